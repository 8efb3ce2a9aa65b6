/**
 * The AI backend (services/ai-backend) as a part of the local platform (../parts.ts): served
 * in-process on DEFAULT_AI_BACKEND_PORT (a free port when the platform itself runs on one, as in
 * tests), with the platform's URL and keys, and announced to edge functions through
 * AI_BACKEND_URL in the platform's function environment (platform.env, scoped to each call; the
 * process environment is never written, since one process may run several platforms).
 *
 * The backend's job runner (services/ai-backend/pipeline/runner.ts) starts with it and stops
 * before it: runs in flight are aborted like a killed process and taken up at the next start.
 *
 * In-memory platforms (tests) always embed with the local provider, whatever keys the shell
 * has, so tests never reach a paid API; a persisted platform (`deno task start`) uses
 * EMBEDDINGS_* when set.
 *
 * The backend has its own port, so the gateway never sees its requests: `logged` writes the
 * same request line for each (surface `ai-backend`, gateway.ts requestLine) to the platform's
 * request log, and hands what the backend prints while serving a request to
 * `functionConsole` with the request id (the dashboard's Functions page shows both).
 */
import { embeddingsFromEnv, LocalHashEmbeddings } from "@shared/embeddings/mod.ts";
import { createAiBackendApp, jobRunnerOf } from "../../services/ai-backend/mod.ts";
import { DEFAULT_AI_BACKEND_PORT } from "../config.ts";
import type { Platform, PlatformPart } from "../part.ts";
import { callerOf, errorSummary, rebuildRequest, requestLine } from "../gateway.ts";
import { captureConsole, withConsoleSink } from "../functions/console_capture.ts";

export interface RunningBackend {
  url: string;
  app: ReturnType<typeof createAiBackendApp>;
}

const running = new WeakMap<Platform, RunningBackend>();

/** The backend a platform started (tests call it directly). */
export function aiBackendOf(p: Platform): RunningBackend {
  const b = running.get(p);
  if (!b) throw new Error("the ai-backend part has not started on this platform");
  return b;
}

function port(p: Platform): number {
  const fromEnv = Deno.env.get("SUPABASE_LOCAL_AI_BACKEND_PORT");
  if (fromEnv !== undefined) {
    const n = Number(fromEnv);
    if (!Number.isInteger(n) || n < 0 || n > 65535) {
      throw new Error(`invalid SUPABASE_LOCAL_AI_BACKEND_PORT: ${fromEnv}`);
    }
    return n;
  }
  return p.config.apiPort === 0 ? 0 : DEFAULT_AI_BACKEND_PORT;
}

type FetchApp = { fetch: (req: Request) => Response | Promise<Response> };

/**
 * The backend's handler with a request line per request (when the platform logs requests) and its
 * console output per request id (when it has a functionConsole). A request without an
 * x-request-id gets one, which the backend then echoes, as the gateway does.
 */
function logged(p: Platform, app: FetchApp): (req: Request) => Promise<Response> {
  const sink = p.functionConsole;
  if (sink) captureConsole();
  return async (req) => {
    const log = p.gateway.requestLog;
    if (!log && !sink) return await app.fetch(req);
    const t0 = performance.now();
    const path = new URL(req.url).pathname;
    let requestId = req.headers.get("x-request-id");
    if (!requestId) {
      requestId = crypto.randomUUID();
      const headers = new Headers(req.headers);
      headers.set("x-request-id", requestId);
      req = rebuildRequest(req, req.url, headers);
    }
    const id = requestId;
    const caller = callerOf(req.headers.get("authorization"));
    const res = sink
      ? await withConsoleSink(
        (level, text) => sink({ source: "ai-backend", requestId: id, level, text }),
        () => app.fetch(req),
      )
      : await app.fetch(req);
    log?.(requestLine({
      surface: "ai-backend",
      method: req.method,
      path,
      status: res.status,
      ms: performance.now() - t0,
      requestId: id,
      caller,
      error: res.status >= 500 ? await errorSummary(res) : null,
    }));
    return res;
  };
}

export const aiBackendPart: PlatformPart = {
  name: "ai-backend",
  start(p) {
    const app = createAiBackendApp({
      supabase: {
        url: p.url,
        anonKey: p.config.anonKey,
        serviceRoleKey: p.config.serviceRoleKey,
        jwtSecret: p.config.jwtSecret,
      },
      embeddings: p.config.dataDir === null
        ? new LocalHashEmbeddings()
        : embeddingsFromEnv((n) => p.env[n] ?? Deno.env.get(n)),
      // Model keys and base URLs (the sandbox stand-ins on a local platform).
      secrets: (n) => p.env[n] ?? (p.config.dataDir === null ? undefined : Deno.env.get(n)),
    });
    const abort = new AbortController();
    const server = Deno.serve(
      { hostname: p.config.hostname, port: port(p), signal: abort.signal, onListen: () => {} },
      logged(p, app),
    );
    const url = `http://${p.config.hostname}:${server.addr.port}`;
    p.env.AI_BACKEND_URL = url;
    running.set(p, { url, app });
    // As in production (main.ts): accepted uploads run, and queued jobs left by the last run of
    // this data folder are taken up at start.
    const runner = jobRunnerOf(app).start();
    p.extraUrls["AI backend"] = url;
    p.extraUrls["AI backend docs"] = `${url}/docs`;
    return Promise.resolve({
      async stop() {
        running.delete(p);
        await runner.stop();
        abort.abort();
        await server.finished;
      },
    });
  },
};
