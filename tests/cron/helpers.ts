/**
 * Helpers for the cron, net and vault tests: a recording HTTP target on 127.0.0.1 and polling
 * for what the background workers do.
 */
import type { PGlite } from "../../stack/db/database.ts";

export interface Received {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

export interface Target {
  url: string;
  received: Received[];
  /** Requests whose path is `path`. */
  to(path: string): Received[];
  close(): Promise<void>;
}

/**
 * A server that records every request and answers `respond(req)` (default 200 {"ok":true}).
 * `respond` may return a promise that never settles before close() (a hanging server).
 */
export function startTarget(respond?: (req: Received) => Response | Promise<Response>): Target {
  const received: Received[] = [];
  const abort = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      const r: Received = {
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
      };
      received.push(r);
      return respond ? await respond(r) : Response.json({ ok: true });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    received,
    to: (path) => received.filter((r) => r.path === path),
    async close() {
      abort.abort();
      await server.finished;
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value other than undefined/null/false, or fails after timeoutMs. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** A port nothing listens on. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export interface RunRow {
  runid: string;
  status: string;
  return_message: string | null;
  start_time: Date | null;
  end_time: Date | null;
}

/** Runs of a job, oldest first (they outlive cron.unschedule, as in pg_cron). */
export async function runsOf(db: PGlite, jobid: string | number): Promise<RunRow[]> {
  const r = await db.query<RunRow>(
    `select runid::text, status, return_message, start_time, end_time
       from cron.job_run_details where jobid = $1 order by runid`,
    [jobid],
  );
  return r.rows;
}

export interface ResponseRow {
  id: string;
  status_code: number | null;
  content_type: string | null;
  headers: Record<string, string> | null;
  content: string | null;
  timed_out: boolean | null;
  error_msg: string | null;
}

export async function responseOf(db: PGlite, id: string | number): Promise<ResponseRow | undefined> {
  const r = await db.query<ResponseRow>(
    `select id::text, status_code, content_type, headers, content, timed_out, error_msg
       from net._http_response where id = $1`,
    [id],
  );
  return r.rows[0];
}

/** Schedule grammar cases, run through both the worker's parser and cron._validate_schedule. */
export const INVALID_SCHEDULES = [
  "",
  "nonsense",
  "0 seconds",
  "60 seconds",
  "5 minutes",
  "* * * *",
  "* * * * * *",
  "60 * * * *",
  "* 24 * * *",
  "* * 0 * *",
  "* * 32 * *",
  "* * * 13 *",
  "* * * * 8",
  "*/0 * * * *",
  "5-1 * * * *",
  "jan * * * *",
  "* * * * jan",
  "$ * * * *",
  "@reboot",
  "1,,2 * * * *",
];

export const VALID_SCHEDULES = [
  "1 second",
  "30 seconds",
  "* * * * *",
  "*/15 0-6 * * *",
  "0 0 $ * *",
  "5 4 * * sun",
  "0 12 1-7 jun-aug mon-fri",
  "0 0 1,15 * *",
  "@weekly",
];
