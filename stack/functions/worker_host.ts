/**
 * One edge function in a Worker, for `deno task start`'s hot reload (router.ts, `hotReload`): a
 * Worker has its own module graph, so a Worker started after a save loads the function and every
 * file it imports (packages/shared included) from disk again, as the edge runtime boots a fresh
 * worker. The router posts `{ init: { name, appUrl } }` once, then one message per request
 * (method, url, headers, the body as a transferred stream, the function environment); the Worker
 * answers `{ id, status, statusText, headers, body }` (the body streamed back, so SSE keeps
 * streaming) or `{ id, error }`, and later `{ settled: id, busyMs }` once the handler and every
 * `EdgeRuntime.waitUntil` promise of the request have settled (edge_runtime.ts), which is what
 * the router's wall clock waits for; past it the router terminates this Worker. Its console
 * output is prefixed with `[<name>]`, and what a request prints is also posted back as
 * `{ console: { requestId, level, text } }` (console_capture.ts), the router's `onConsole`.
 */
/// <reference lib="deno.worker" />
import { runWithEnv } from "@shared/env.ts";
import { BusyMonitor, installEdgeRuntime, RequestWork, runInRequest } from "./edge_runtime.ts";
import { captureConsole, type ConsoleLevel, withConsoleSink } from "./console_capture.ts";

type FetchApp = { fetch: (req: Request) => Response | Promise<Response> };

export interface WorkerRequest {
  id: number;
  method: string;
  url: string;
  headers: [string, string][];
  body: ReadableStream<Uint8Array> | null;
  env: Record<string, string>;
  /** The gateway's x-request-id, for log lines. */
  requestId?: string | null;
}

export type WorkerReply =
  | {
    id: number;
    status: number;
    statusText: string;
    headers: [string, string][];
    body: ReadableStream | null;
  }
  | { id: number; error: string; invalid?: boolean; limit?: boolean }
  | { settled: number; busyMs: number }
  | { console: { requestId: string | null; level: ConsoleLevel; text: string } }
  | { booted: true }
  | { bootError: string };

let app: FetchApp | null = null;
let functionName = "";
const busy = new BusyMonitor();
installEdgeRuntime();

self.onmessage = async (e: MessageEvent) => {
  const msg = e.data;
  if (msg.init) {
    functionName = msg.init.name;
    captureConsole(`[${msg.init.name}]`);
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
  const work = new RequestWork(`${functionName} (request ${r.requestId ?? r.id})`, (l) => console.error(l));
  const handler = Promise.withResolvers<void>();
  work.add(handler.promise, "handler");
  busy.track(work);
  work.settled().then(() => {
    busy.untrack(work);
    self.postMessage({ settled: r.id, busyMs: Math.round(work.busyMs) } satisfies WorkerReply);
  });
  try {
    const req = new Request(r.url, {
      method: r.method,
      headers: r.headers,
      body: r.body ?? undefined,
      // @ts-ignore: required by fetch for streamed bodies; unknown to older lib typings
      duplex: "half",
    });
    const requestId = r.requestId ?? null;
    const res = await withConsoleSink(
      (level, text) => self.postMessage({ console: { requestId, level, text } } satisfies WorkerReply),
      () => runWithEnv(r.env, () => runInRequest(work, () => app!.fetch(req))),
    );
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
  } finally {
    handler.resolve();
  }
};
