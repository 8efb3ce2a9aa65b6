/**
 * One edge function in a Worker, for `deno task start`'s hot reload (router.ts, `hotReload`): a
 * Worker has its own module graph, so a Worker started after a save loads the function and every
 * file it imports (packages/shared included) from disk again, as the edge runtime boots a fresh
 * worker. The router posts `{ init: { name, appUrl } }` once, then one message per request
 * (method, url, headers, the body as a transferred stream, the function environment); the Worker
 * answers `{ id, status, statusText, headers, body }` (the body streamed back, so SSE keeps
 * streaming) or `{ id, error }`. Its console output is prefixed with `[<name>]`.
 */
/// <reference lib="deno.worker" />
import { runWithEnv } from "@shared/env.ts";

type FetchApp = { fetch: (req: Request) => Response | Promise<Response> };

export interface WorkerRequest {
  id: number;
  method: string;
  url: string;
  headers: [string, string][];
  body: ReadableStream<Uint8Array> | null;
  env: Record<string, string>;
}

export type WorkerReply =
  | {
    id: number;
    status: number;
    statusText: string;
    headers: [string, string][];
    body: ReadableStream | null;
  }
  | { id: number; error: string; invalid?: boolean }
  | { booted: true }
  | { bootError: string };

let app: FetchApp | null = null;

function prefixConsole(name: string): void {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => original(`[${name}]`, ...args);
  }
}

self.onmessage = async (e: MessageEvent) => {
  const msg = e.data;
  if (msg.init) {
    prefixConsole(msg.init.name);
    try {
      const mod = await import(msg.init.appUrl);
      const candidate = mod.default as FetchApp | undefined;
      if (!candidate || typeof candidate.fetch !== "function") {
        throw new Error(`supabase/functions/${msg.init.name}/app.ts must export default an app with fetch()`);
      }
      app = candidate;
      self.postMessage({ booted: true } satisfies WorkerReply);
    } catch (err) {
      self.postMessage({ bootError: err instanceof Error ? err.stack ?? err.message : String(err) });
    }
    return;
  }
  const r = msg as WorkerRequest;
  try {
    const req = new Request(r.url, {
      method: r.method,
      headers: r.headers,
      body: r.body ?? undefined,
      // @ts-ignore: required by fetch for streamed bodies; unknown to older lib typings
      duplex: "half",
    });
    const res = await runWithEnv(r.env, () => app!.fetch(req));
    if (!(res instanceof Response)) {
      self.postMessage({ id: r.id, error: "not a Response", invalid: true } satisfies WorkerReply);
      return;
    }
    const body = res.body;
    self.postMessage(
      { id: r.id, status: res.status, statusText: res.statusText, headers: [...res.headers], body },
      body ? [body] : [],
    );
  } catch (err) {
    console.error("threw", err);
    self.postMessage(
      { id: r.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply,
    );
  }
};
