/**
 * The pg_net background worker: takes requests from net.http_request_queue (deleting each row as
 * it takes it, so every request gets exactly one attempt), sends them concurrently with the
 * request's timeout, and writes the outcome to net._http_response: the response, or error_msg
 * (and timed_out) when there was none. It wakes on the `pg_net_wake` notification that
 * net.http_get/post/delete send, which Postgres delivers only when the calling transaction
 * commits, so a rolled-back request is never sent. Responses older than pg_net.ttl (6 hours)
 * are purged, as pg_net does.
 */
import type { PGlite } from "../db/database.ts";
import type { PlatformPart } from "../part.ts";

export const NET_CHANNEL = "pg_net_wake";

/** pg_net.batch_size: requests taken from the queue per pass. */
const BATCH_SIZE = 200;
/** How often an idle worker purges expired responses. */
const PURGE_EVERY_MS = 10 * 60_000;

interface QueuedRequest {
  id: string;
  method: string;
  url: string;
  headers: Record<string, unknown> | null;
  body: Uint8Array<ArrayBuffer> | null;
  timeout_milliseconds: number;
}

interface Outcome {
  status_code: number | null;
  content_type: string | null;
  headers: Record<string, string> | null;
  content: string | null;
  timed_out: boolean | null;
  error_msg: string | null;
}

type Log = (message: string) => void;

export class NetWorker {
  readonly #db: PGlite;
  readonly #log: Log;
  readonly #inflight = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  #unlisten: (() => Promise<void>) | null = null;
  #draining: Promise<void> | null = null;
  #wakeAgain = false;
  #purgeTimer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;

  constructor(db: PGlite, log: Log = (m) => console.error(m)) {
    this.#db = db;
    this.#log = log;
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#db.listen(NET_CHANNEL, () => this.wake());
    this.#purgeTimer = setInterval(() => this.wake(), PURGE_EVERY_MS);
    // Requests queued before a restart (a persisted database) are still owed their attempt.
    await this.wake();
  }

  /** Drains the queue; wakes during a drain coalesce into one more pass. */
  wake(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#draining) {
      this.#wakeAgain = true;
      return this.#draining;
    }
    this.#draining = (async () => {
      try {
        do {
          this.#wakeAgain = false;
          if (!(await this.#enabled())) continue;
          await this.#purge();
          while (!this.#stopped && (await this.#takeBatch()) === BATCH_SIZE);
        } while (this.#wakeAgain && !this.#stopped);
      } catch (err) {
        if (!this.#stopped) this.#log(`net: could not read net.http_request_queue: ${errorText(err)}`);
      } finally {
        this.#draining = null;
      }
    })();
    return this.#draining;
  }

  /** Until `create extension pg_net` (stack/db/extensions) there is no queue to read. */
  async #enabled(): Promise<boolean> {
    const r = await this.#db.query<{ ok: boolean }>(
      `select to_regclass('net.http_request_queue') is not null as ok`,
    );
    return r.rows[0].ok;
  }

  async #purge(): Promise<void> {
    await this.#db.query(
      `delete from net._http_response
       where created < now() - coalesce(nullif(current_setting('pg_net.ttl', true), ''), '6 hours')::interval`,
    );
  }

  async #takeBatch(): Promise<number> {
    const { rows } = await this.#db.query<QueuedRequest>(
      `delete from net.http_request_queue
       where id in (select id from net.http_request_queue order by id limit $1)
       returning id::text, method, url, headers, body, timeout_milliseconds`,
      [BATCH_SIZE],
    );
    for (const req of rows) {
      const p = this.#send(req)
        .then((outcome) => {
          this.#report(req, outcome);
          return this.#record(req.id, outcome);
        })
        .catch((err) => this.#log(`net: could not record response ${req.id}: ${errorText(err)}`))
        .finally(() => this.#inflight.delete(p));
      this.#inflight.add(p);
    }
    return rows.length;
  }

  async #send(req: QueuedRequest): Promise<Outcome> {
    const failed = (error_msg: string, timed_out = false): Outcome => ({
      status_code: null,
      content_type: null,
      headers: null,
      content: null,
      timed_out,
      error_msg,
    });
    const timeout = AbortSignal.timeout(req.timeout_milliseconds);
    const signal = AbortSignal.any([timeout, this.#abort.signal]);
    const started = performance.now();
    try {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers ?? {})) {
        headers.set(k, typeof v === "string" ? v : JSON.stringify(v));
      }
      // curl, which pg_net uses, does not follow redirects unless asked to.
      const res = await fetch(req.url, {
        method: req.method.toUpperCase(),
        headers,
        body: req.body ?? undefined,
        redirect: "manual",
        signal,
      });
      const content = await res.text();
      return {
        status_code: res.status,
        content_type: res.headers.get("content-type"),
        headers: Object.fromEntries(res.headers),
        content,
        timed_out: false,
        error_msg: null,
      };
    } catch (err) {
      if (timeout.aborted) {
        const total = (performance.now() - started).toFixed(1);
        return failed(`Timeout of ${req.timeout_milliseconds} ms reached. Total time: ${total} ms`, true);
      }
      if (this.#abort.signal.aborted) return failed("Request cancelled: the platform stopped");
      // Deno's "fetch failed" says why only in its cause (refused, DNS, TLS ...): keep both.
      const cause = err instanceof Error && err.cause !== undefined ? `: ${errorText(err.cause)}` : "";
      return failed(`${errorText(err)}${cause}`);
    }
  }

  /**
   * A request that got no answer or a non-2xx one is recorded in net._http_response as pg_net
   * records it, and said in the log, where hosted has the function's and pg_net's logs: a
   * scheduled call that fails is visible without querying. The URL is logged, never headers.
   */
  #report(req: QueuedRequest, o: Outcome): void {
    const what = `net: request ${req.id} ${req.method.toUpperCase()} ${req.url}`;
    if (o.error_msg !== null) this.#log(`${what} failed: ${o.error_msg}`);
    else if (o.status_code !== null && (o.status_code < 200 || o.status_code > 299)) {
      this.#log(`${what} answered ${o.status_code}: ${(o.content ?? "").slice(0, 200)}`);
    }
  }

  async #record(id: string, o: Outcome): Promise<void> {
    await this.#db.query(
      `insert into net._http_response (id, status_code, content_type, headers, content, timed_out, error_msg)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [id, o.status_code, o.content_type, o.headers, o.content, o.timed_out, o.error_msg],
    );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#purgeTimer);
    if (this.#unlisten) await this.#unlisten();
    this.#unlisten = null;
    if (this.#draining) await this.#draining;
    // In-flight requests are cut short and recorded as cancelled while the database is open.
    this.#abort.abort();
    await Promise.all([...this.#inflight]);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The platform part: the worker runs for as long as the platform does. */
export const netPart: PlatformPart = {
  name: "net",
  async start(p) {
    const worker = new NetWorker(p.db, (line) => p.log(line));
    await worker.start();
    return worker;
  },
};
