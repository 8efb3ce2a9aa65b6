/**
 * /functions/v1: the edge runtime's main service. `/functions/v1/<name>/...` runs
 * supabase/functions/<name>/app.ts (the Hono app that index.ts serves in production) with the
 * request path `/<name>/...`, as Kong strips `/functions/v1` before the runtime sees it.
 * verify_jwt comes from supabase/config.toml (default true); OPTIONS is never blocked.
 * Responses and errors follow supabase/cli's serve main.ts.
 *
 * With `hotReload` (`deno task start`), each function runs in a Worker (worker_host.ts) with its
 * own module graph, and a save under supabase/functions or packages/shared retires the running
 * Workers: the next request boots a fresh one that reads the edited files, as
 * `supabase functions serve` reloads. A retired Worker finishes the requests it has, then ends.
 * Without it (tests), functions are imported into this process once.
 */
import { bearerToken, JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import { runWithEnv } from "@shared/env.ts";
import { rebuildRequest } from "../gateway.ts";
import { type FunctionConfig, readProjectConfig } from "../project_config.ts";
import type { WorkerReply, WorkerRequest } from "./worker_host.ts";

const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** `[functions.<name>]` blocks of supabase/config.toml; undeclared functions get the defaults. */
export async function readFunctionConfigs(rootDir: string): Promise<Map<string, FunctionConfig>> {
  return (await readProjectConfig(rootDir)).functions;
}

type FetchApp = { fetch: (req: Request) => Response | Promise<Response> };

/**
 * The router's own answers (401 before the function runs, 404, boot errors) carry CORS like the
 * function's would, so a browser sees "sign in again" rather than a CORS failure.
 */
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
  });

export interface RouterOptions {
  rootDir: string;
  jwtSecret: string;
  /** The functions' environment (read at call time, so parts may still add to it). */
  env?: Record<string, string>;
  /** supabase/config.toml's [functions.*] blocks, when the caller has read them already. */
  functions?: Map<string, FunctionConfig>;
  /** Run functions in Workers replaced when supabase/functions or packages/shared change. */
  hotReload?: boolean;
  /** Where boot failures and reloads are reported (default: stderr). */
  log?: (line: string) => void;
}

/** A function's Worker: requests in flight, and whether a save has retired it. */
interface FunctionWorker {
  worker: Worker;
  booted: Promise<void>;
  pending: Map<number, { resolve: (r: WorkerReply) => void }>;
  retired: boolean;
  /** Booted; a Worker is terminated only once booted and idle (terminating earlier strands callers). */
  ready: boolean;
}

export type FunctionsRouter = ((req: Request, rest: string) => Promise<Response>) & {
  /** Stops the file watcher and the Workers. */
  close(): Promise<void>;
};

export async function createFunctionsRouter(opts: RouterOptions): Promise<FunctionsRouter> {
  const configs = opts.functions ?? await readFunctionConfigs(opts.rootDir);
  const loaded = new Map<string, Promise<FetchApp>>();
  const functionsDir = `${opts.rootDir}/supabase/functions`;
  const log = opts.log ?? ((line: string) => console.error(line));

  // ---- hot reload: one Worker per function, retired on save ----
  const workers = new Map<string, FunctionWorker>();
  let nextId = 0;
  const endIfIdle = (w: FunctionWorker) => {
    if (w.retired && w.ready && w.pending.size === 0) w.worker.terminate();
  };
  const retire = (w: FunctionWorker) => {
    w.retired = true;
    endIfIdle(w);
  };
  const startWorker = (name: string): FunctionWorker => {
    const worker = new Worker(new URL("./worker_host.ts", import.meta.url), { type: "module" });
    const w: FunctionWorker = {
      worker,
      booted: Promise.resolve(),
      pending: new Map(),
      retired: false,
      ready: false,
    };
    w.booted = new Promise<void>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<WorkerReply>) => {
        const m = e.data;
        if ("booted" in m) {
          w.ready = true;
          resolve();
        } else if ("bootError" in m) reject(new Error(m.bootError));
        else {
          // A body streams from the Worker: the call stays pending until it is read or cancelled.
          const done = () => {
            w.pending.delete(m.id);
            endIfIdle(w);
          };
          const call = w.pending.get(m.id);
          if ("body" in m && m.body) {
            const reader = m.body.getReader();
            m.body = new ReadableStream({
              async pull(c) {
                const { done: end, value } = await reader.read();
                if (end) {
                  c.close();
                  done();
                } else c.enqueue(value);
              },
              cancel(reason) {
                done();
                return reader.cancel(reason);
              },
            });
            call?.resolve(m);
          } else {
            call?.resolve(m);
            done();
          }
        }
      };
      worker.onerror = (e) => {
        e.preventDefault();
        const err = new Error(`worker for ${name} failed: ${e.message}`);
        reject(err);
        for (const p of w.pending.values()) p.resolve({ id: -1, error: err.message });
        w.pending.clear();
        if (workers.get(name) === w) workers.delete(name);
        worker.terminate();
      };
    });
    worker.postMessage({ init: { name, appUrl: `file://${functionsDir}/${name}/app.ts` } });
    return w;
  };
  const callWorker = async (name: string, req: Request): Promise<WorkerReply> => {
    let w = workers.get(name);
    if (!w) {
      w = startWorker(name);
      workers.set(name, w);
    }
    // Registered before the boot completes, so a save meanwhile cannot end this Worker under it.
    const id = nextId++;
    const reply = new Promise<WorkerReply>((resolve) => w.pending.set(id, { resolve }));
    try {
      await w.booted;
    } catch (err) {
      w.pending.delete(id);
      if (workers.get(name) === w) workers.delete(name);
      w.worker.terminate();
      throw err;
    }
    const body = req.body;
    const msg: WorkerRequest = {
      id,
      method: req.method,
      url: req.url,
      headers: [...req.headers],
      body,
      env: { ...opts.env },
    };
    w.worker.postMessage(msg, body ? [body] : []);
    return await reply;
  };
  let watcher: Deno.FsWatcher | null = null;
  let watching: Promise<void> | null = null;
  if (opts.hotReload) {
    const paths = [functionsDir, `${opts.rootDir}/packages/shared`].filter((p) => {
      try {
        return Deno.statSync(p).isDirectory;
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return false;
        throw err;
      }
    });
    watcher = Deno.watchFs(paths, { recursive: true });
    const w = watcher;
    watching = (async () => {
      for await (const event of w) {
        if (event.kind === "access" || !event.paths.some((p) => /\.(ts|tsx|js|mjs|json)$/.test(p))) continue;
        if (workers.size) log(`functions: ${event.paths.join(", ")} changed; reloading functions`);
        for (const fw of workers.values()) retire(fw);
        workers.clear();
      }
    })();
  }

  // A function folder found once stays found; missing names are looked up again, so a function
  // added while the platform runs is served without a restart.
  const present = new Set<string>();
  const exists = async (name: string) => {
    if (present.has(name)) return true;
    try {
      if (!(await Deno.stat(`${functionsDir}/${name}/app.ts`)).isFile) return false;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
    present.add(name);
    return true;
  };

  const load = (name: string): Promise<FetchApp> => {
    let p = loaded.get(name);
    if (!p) {
      p = import(`file://${functionsDir}/${name}/app.ts`).then((mod) => {
        const app = mod.default as FetchApp | undefined;
        if (!app || typeof app.fetch !== "function") {
          throw new Error(`supabase/functions/${name}/app.ts must export default an app with fetch()`);
        }
        return app;
      });
      loaded.set(name, p);
      p.catch(() => loaded.delete(name));
    }
    return p;
  };

  /** `req` has the gateway path; `rest` is the part after /functions/v1. */
  async function handle(req: Request, rest: string): Promise<Response> {
    const name = rest.split("/")[1] ?? "";
    const config = configs.get(name) ?? { enabled: true, verifyJwt: true };
    if (!NAME_RE.test(name) || !config.enabled || !(await exists(name))) {
      return json(404, { code: "NOT_FOUND", message: "Requested function was not found" });
    }
    if (config.verifyJwt && req.method !== "OPTIONS") {
      const header = req.headers.get("authorization");
      const token = bearerToken(header);
      if (!token) return json(401, { msg: "Error: Missing authorization header" });
      try {
        await verifyJwt(token, opts.jwtSecret);
      } catch (err) {
        if (err instanceof JwtError) return json(401, { msg: "Invalid JWT" });
        throw err;
      }
    }
    const url = new URL(req.url);
    url.pathname = rest;
    const inner = rebuildRequest(req, url);
    const requestId = req.headers.get("x-request-id");
    const bootError = (err: unknown) => {
      log(
        `functions: ${name} failed to boot${requestId ? ` (request ${requestId})` : ""}: ${
          err instanceof Error ? err.stack ?? err.message : err
        }`,
      );
      return json(503, { code: "BOOT_ERROR", message: "Worker failed to boot (please check logs)" });
    };
    if (opts.hotReload) {
      let reply: WorkerReply;
      try {
        reply = await callWorker(name, inner);
      } catch (err) {
        return bootError(err);
      }
      if ("error" in reply) {
        if ("invalid" in reply) {
          return json(500, { code: "WORKER_ERROR", message: "Function returned an invalid response" });
        }
        log(`functions: ${name} threw${requestId ? ` (request ${requestId})` : ""}: ${reply.error}`);
        return json(500, {
          code: "Internal Server Error",
          message: "Request failed due to an internal server error",
        });
      }
      if (!("status" in reply)) throw new Error(`unexpected worker reply for ${name}`);
      return new Response(reply.body, {
        status: reply.status,
        statusText: reply.statusText,
        headers: reply.headers,
      });
    }
    let app: FetchApp;
    try {
      app = await load(name);
    } catch (err) {
      return bootError(err);
    }
    try {
      const res = await runWithEnv(opts.env ?? {}, () => app.fetch(inner));
      if (!(res instanceof Response)) {
        return json(500, { code: "WORKER_ERROR", message: "Function returned an invalid response" });
      }
      return res;
    } catch (err) {
      log(
        `functions: ${name} threw${requestId ? ` (request ${requestId})` : ""}: ${
          err instanceof Error ? err.stack ?? err.message : err
        }`,
      );
      return json(500, {
        code: "Internal Server Error",
        message: "Request failed due to an internal server error",
      });
    }
  }

  return Object.assign(handle, {
    async close() {
      watcher?.close();
      await watching;
      for (const w of workers.values()) w.worker.terminate();
      workers.clear();
    },
  });
}
