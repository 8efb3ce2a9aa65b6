/**
 * `EdgeRuntime.waitUntil` locally, with the hosted semantics
 * (supabase.com/docs/guides/functions/background-tasks): the response goes out at once, and the
 * promise keeps the worker alive until it settles or the wall clock (limits.ts) ends it.
 *
 * Each request runs inside a RequestWork (an AsyncLocalStorage scope, so a waitUntil called in
 * any continuation of the request is charged to it, also when several platforms share the test
 * process); the router (in-process) and worker_host.ts (one Worker per function) install the
 * global and read `settled()` to know when the request's work is done. A waitUntil outside any
 * request (module top level, or code of the AI backend sharing the test process) just runs on.
 *
 * `busyMs` is what the CPU warning reads in a Worker: the time its event loop was blocked while
 * the request was in flight, measured by a timer that notes how late it fires (BusyMonitor).
 */
import { AsyncLocalStorage } from "node:async_hooks";

export class RequestWork {
  /** Unsettled promises: the handler and every waitUntil of the request. */
  readonly #tasks = new Set<Promise<void>>();
  /** Set by the wall clock: later waitUntil calls and settlements are no longer followed. */
  ended = false;
  /** Event-loop time blocked while the request was in flight (Workers only). */
  busyMs = 0;

  constructor(readonly label: string, private readonly log: (line: string) => void) {}

  /** Follows `p` until it settles; a rejection is logged (hosted logs it as uncaught). */
  add(p: Promise<unknown>, kind: "handler" | "waitUntil"): void {
    if (this.ended) {
      this.log(
        `functions: ${this.label} called EdgeRuntime.waitUntil after its wall clock ended; not kept alive`,
      );
      return;
    }
    const t: Promise<void> = Promise.resolve(p).then(() => {}, (err) => {
      if (kind === "waitUntil") {
        this.log(
          `functions: ${this.label} waitUntil task failed: ${
            err instanceof Error ? err.stack ?? err.message : err
          }`,
        );
      }
    });
    this.#tasks.add(t);
    t.then(() => this.#tasks.delete(t));
  }

  get pending(): number {
    return this.#tasks.size;
  }

  /** Resolves once nothing the request started (waitUntil added later included) is unsettled. */
  async settled(): Promise<void> {
    while (this.#tasks.size && !this.ended) await Promise.all([...this.#tasks]);
  }

  /** The wall clock: stop following the request's work. */
  end(): void {
    this.ended = true;
    this.#tasks.clear();
  }
}

const scope = new AsyncLocalStorage<RequestWork>();

/** Runs `fn` as part of `work`: EdgeRuntime.waitUntil calls in it are charged to the request. */
export function runInRequest<T>(work: RequestWork, fn: () => T): T {
  return scope.run(work, fn);
}

type EdgeRuntimeGlobal = { EdgeRuntime?: { waitUntil(p: Promise<unknown>): Promise<unknown> } };

/** Defines globalThis.EdgeRuntime.waitUntil once per process or Worker. */
export function installEdgeRuntime(): void {
  const g = globalThis as EdgeRuntimeGlobal;
  if (g.EdgeRuntime) return;
  g.EdgeRuntime = {
    waitUntil(p: Promise<unknown>) {
      scope.getStore()?.add(p, "waitUntil");
      return p;
    },
  };
}

/**
 * Event-loop blocking, charged to the requests in flight: a timer set for every TICK_MS notes
 * how much later than that it fired. Synchronous work (parsing, rendering, hashing) delays it;
 * awaiting I/O does not, which is the distinction the runtime's CPU limit draws. With several
 * requests in flight each is charged the whole delay (an over-estimate, so a warning is never
 * missed). Runs only while a request is in flight.
 */
export class BusyMonitor {
  static readonly TICK_MS = 20;
  readonly #active = new Set<RequestWork>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #from = 0;

  track(work: RequestWork): void {
    this.#active.add(work);
    if (this.#timer === undefined) this.#tick(performance.now());
  }

  /** Stops charging `work`, counting the block that may have ended it before the timer could fire. */
  untrack(work: RequestWork): void {
    const late = performance.now() - this.#from - BusyMonitor.TICK_MS;
    if (late > 0 && this.#active.has(work)) work.busyMs += late;
    this.#active.delete(work);
    if (!this.#active.size && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #tick(from: number): void {
    this.#from = from;
    this.#timer = setTimeout(() => {
      const now = performance.now();
      const late = now - from - BusyMonitor.TICK_MS;
      if (late > 0) { for (const w of this.#active) w.busyMs += late; }
      this.#tick(now);
    }, BusyMonitor.TICK_MS);
  }
}
