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
 *
 * Both modes enforce the Edge Runtime's limits (limits.ts): a request without a response by the
 * deadline (150 s) is answered 504 and logged, the function running on; a request's handler,
 * body and `EdgeRuntime.waitUntil` work (edge_runtime.ts) must be done by the wall clock (400 s,
 * 150 s on the free plan). Past it a Worker is terminated, as the runtime ends the worker, and
 * requests still waiting on it get 546 WORKER_LIMIT; in-process, where nothing can be stopped,
 * the router stops following the work and logs it. A Worker also logs a warning when a request
 * kept its event loop busy past 2 s (edge_runtime.ts BusyMonitor); in-process the event loop
 * is shared with the database and every other service, so no CPU figure is taken there.
 *
 * What a function prints with console while serving a request (its waitUntil work included) goes
 * to `onConsole` with the request id (console_capture.ts), in-process and from its Worker, as
 * hosted Supabase keeps a function's logs per invocation; it is printed as before too.
 *
 * `recycle()` drops the loaded functions, as the runtime drops idle isolates: the next request
 * boots a fresh Worker (a new module graph), or in-process imports app.ts afresh.
 */
import { bearerToken, JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import { runWithEnv } from "@shared/env.ts";
import { rebuildRequest } from "../gateway.ts";
import { type FunctionConfig, readProjectConfig } from "../project_config.ts";
import type { WorkerReply, WorkerRequest } from "./worker_host.ts";
import { installEdgeRuntime, RequestWork, runInRequest } from "./edge_runtime.ts";
import { captureConsole, type ConsoleLine, withConsoleSink } from "./console_capture.ts";
import { type EdgeLimits, edgeLimitsFromEnv, gatewayTimeout, withDeadline, workerLimit } from "./limits.ts";

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
  /** The runtime's limits; unset ones come from SUPABASE_LOCAL_FUNCTION_* (limits.ts). */
  limits?: Partial<EdgeLimits>;
  /** Each console line a function prints while serving a request (console_capture.ts). */
  onConsole?: (line: ConsoleLine) => void;
}

/** A function's Worker: requests in flight, and whether a save has retired it. */
interface FunctionWorker {
  worker: Worker;
  booted: Promise<void>;
  /** Requests without a reply, or whose body is still streaming. */
  pending: Map<number, { resolve: (r: WorkerReply) => void; fail?: (err: Error) => void }>;
  /** Requests whose handler or waitUntil work has not settled in the Worker. */
  background: Set<number>;
  /** Each request's wall clock, and its request id for log lines. */
  clocks: Map<number, { timer: ReturnType<typeof setTimeout>; rid: string }>;
  retired: boolean;
  /** Booted; a Worker is terminated only once booted and idle (terminating earlier strands callers). */
  ready: boolean;
}

export type FunctionsRouter = ((req: Request, rest: string) => Promise<Response>) & {
  /** Stops the file watcher and the Workers. */
  close(): Promise<void>;
  /** A new isolate for the next request to `name` (every function without it). */
  recycle(name?: string): void;
};

/** ` (request <id>)` for log lines, or nothing. */
const requestTag = (id: string | null) => id ? ` (request ${id})` : "";

export async function createFunctionsRouter(opts: RouterOptions): Promise<FunctionsRouter> {
  const configs = opts.functions ?? await readFunctionConfigs(opts.rootDir);
  const loaded = new Map<string, Promise<FetchApp>>();
  const functionsDir = `${opts.rootDir}/supabase/functions`;
  const log = opts.log ?? ((line: string) => console.error(line));
  const limits: EdgeLimits = { ...edgeLimitsFromEnv(), ...opts.limits };

  // ---- hot reload: one Worker per function, retired on save ----
  const workers = new Map<string, FunctionWorker>();
  /** Every Worker not yet terminated, retired ones included (close() ends them all). */
  const live = new Set<FunctionWorker>();
  let nextId = 0;
  const terminate = (w: FunctionWorker) => {
    for (const c of w.clocks.values()) clearTimeout(c.timer);
    w.clocks.clear();
    live.delete(w);
    w.worker.terminate();
  };
  const endIfIdle = (w: FunctionWorker) => {
    if (w.retired && w.ready && w.pending.size === 0 && w.background.size === 0) terminate(w);
  };
  /** A request is over once its reply, body and background work are; its wall clock stops. */
  const release = (w: FunctionWorker, id: number) => {
    if (!w.pending.has(id) && !w.background.has(id)) {
      clearTimeout(w.clocks.get(id)?.timer);
      w.clocks.delete(id);
    }
    endIfIdle(w);
  };
  /** A limit ends the Worker: whatever still waits on it is answered 546, its streams fail. */
  const kill = (name: string, w: FunctionWorker, reason: string) => {
    log(reason);
    if (workers.get(name) === w) workers.delete(name);
    const err = new Error(reason);
    for (const [id, call] of w.pending) {
      call.fail?.(err);
      call.resolve({ id, error: reason, limit: true });
    }
    w.pending.clear();
    w.background.clear();
    terminate(w);
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
      background: new Set(),
      clocks: new Map(),
      retired: false,
      ready: false,
    };
    live.add(w);
    w.booted = new Promise<void>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<WorkerReply>) => {
        const m = e.data;
        if ("booted" in m) {
          w.ready = true;
          resolve();
        } else if ("bootError" in m) reject(new Error(m.bootError));
        else if ("console" in m) opts.onConsole?.({ source: name, ...m.console });
        else if ("settled" in m) {
          const rid = w.clocks.get(m.settled)?.rid ?? null;
          if (m.busyMs > limits.cpuWarnMs) {
            log(
              `functions: WARNING ${name} kept its worker busy ${m.busyMs} ms${requestTag(rid)}; ` +
                `the Edge Runtime allows ${limits.cpuWarnMs} ms of CPU per request`,
            );
          }
          w.background.delete(m.settled);
          release(w, m.settled);
        } else {
          // A body streams from the Worker: the call stays pending until it is read or cancelled.
          const done = () => {
            w.pending.delete(m.id);
            release(w, m.id);
          };
          const call = w.pending.get(m.id);
          if ("body" in m && m.body) {
            const reader = m.body.getReader();
            m.body = new ReadableStream({
              start(c) {
                if (call) call.fail = (err) => c.error(err);
              },
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
        for (const p of w.pending.values()) {
          p.fail?.(err);
          p.resolve({ id: -1, error: err.message });
        }
        w.pending.clear();
        w.background.clear();
        if (workers.get(name) === w) workers.delete(name);
        terminate(w);
      };
    });
    worker.postMessage({ init: { name, appUrl: `file://${functionsDir}/${name}/app.ts` } });
    return w;
  };
  /**
   * Boots the function's Worker if needed and sends it the request; resolves, once sent, with the
   * reply to come. The limits' clocks start there: a local boot type-checks and loads the module
   * graph, which the hosted runtime does ahead of time (a deployed function is bundled).
   */
  const callWorker = async (
    name: string,
    req: Request,
    rid: string | null,
  ): Promise<{ reply: Promise<WorkerReply> }> => {
    let w = workers.get(name);
    if (!w) {
      w = startWorker(name);
      workers.set(name, w);
    }
    // Registered before the boot completes, so a save meanwhile cannot end this Worker under it.
    const id = nextId++;
    const reply = new Promise<WorkerReply>((resolve) => w.pending.set(id, { resolve }));
    w.background.add(id);
    try {
      await w.booted;
    } catch (err) {
      w.pending.delete(id);
      w.background.delete(id);
      if (workers.get(name) === w) workers.delete(name);
      terminate(w);
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
      requestId: rid,
    };
    const fw = w;
    const timer = setTimeout(() => {
      if (!fw.pending.has(id) && !fw.background.has(id)) return;
      kill(
        name,
        fw,
        `functions: ${name} ran past its wall clock of ${limits.wallClockMs} ms${requestTag(rid)} ` +
          `(handler, body or EdgeRuntime.waitUntil work unfinished); its Worker is terminated`,
      );
    }, limits.wallClockMs);
    w.clocks.set(id, { timer, rid: rid ?? "" });
    w.worker.postMessage(msg, body ? [body] : []);
    return { reply };
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
        log(`functions: ${event.paths.join(", ")} changed; reloading functions`);
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

  // ---- in-process: each function imported once (again after recycle()) ----
  if (!opts.hotReload) installEdgeRuntime();
  if (!opts.hotReload && opts.onConsole) captureConsole();
  /** recycle() count per function: the next import's cache-busting query. */
  const generation = new Map<string, number>();
  /** In-process wall clocks, so close() can clear them. */
  const clocks = new Set<ReturnType<typeof setTimeout>>();
  const followWallClock = (name: string, work: RequestWork, rid: string | null) => {
    const timer = setTimeout(() => {
      clocks.delete(timer);
      if (!work.pending) return;
      work.end();
      log(
        `functions: ${name} ran past its wall clock of ${limits.wallClockMs} ms${requestTag(rid)} ` +
          `(handler or EdgeRuntime.waitUntil work unfinished); no longer awaited (an in-process function ` +
          `cannot be stopped; under deno task start its Worker is terminated)`,
      );
    }, limits.wallClockMs);
    clocks.add(timer);
    work.settled().then(() => {
      clearTimeout(timer);
      clocks.delete(timer);
    });
  };

  const load = (name: string): Promise<FetchApp> => {
    let p = loaded.get(name);
    if (!p) {
      const n = generation.get(name);
      const url = `file://${functionsDir}/${name}/app.ts${n ? `?isolate=${n}` : ""}`;
      p = import(url).then((mod) => {
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
    const rid = requestTag(requestId);
    const describe = (err: unknown) => err instanceof Error ? err.stack ?? err.message : String(err);
    const bootError = (err: unknown) => {
      log(`functions: ${name} failed to boot${rid}: ${describe(err)}`);
      return json(503, { code: "BOOT_ERROR", message: "Worker failed to boot (please check logs)" });
    };
    const timedOut = () => {
      log(
        `functions: ${name} sent no response within ${limits.responseTimeoutMs} ms${rid}; ` +
          `answered 504 as the Edge Runtime does (the function keeps running until its wall clock)`,
      );
      return gatewayTimeout();
    };
    if (opts.hotReload) {
      let call: { reply: Promise<WorkerReply> };
      try {
        call = await callWorker(name, inner, requestId);
      } catch (err) {
        return bootError(err);
      }
      const reply = await withDeadline(call.reply, limits.responseTimeoutMs);
      if (reply === "timeout") {
        // A late answer is dropped: its body is cancelled so the Worker can end when retired.
        call.reply.then((late) => "body" in late ? late.body?.cancel() : undefined);
        return timedOut();
      }
      if ("error" in reply) {
        if ("limit" in reply) return workerLimit();
        if ("invalid" in reply) {
          return json(500, { code: "WORKER_ERROR", message: "Function returned an invalid response" });
        }
        log(`functions: ${name} threw${rid}: ${reply.error}`);
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
    const work = new RequestWork(`${name}${rid}`, log);
    const onConsole = opts.onConsole;
    const run = () => runWithEnv(opts.env ?? {}, () => runInRequest(work, () => app.fetch(inner)));
    const handler =
      (async () =>
        await (onConsole
          ? withConsoleSink((level, text) => onConsole({ source: name, requestId, level, text }), run)
          : run()))();
    work.add(handler, "handler");
    followWallClock(name, work, requestId);
    try {
      const res = await withDeadline(handler, limits.responseTimeoutMs);
      if (res === "timeout") {
        handler.then(
          (late) => late instanceof Response ? late.body?.cancel() : undefined,
          (err) => log(`functions: ${name} threw after its 504${rid}: ${describe(err)}`),
        );
        return timedOut();
      }
      if (!(res instanceof Response)) {
        return json(500, { code: "WORKER_ERROR", message: "Function returned an invalid response" });
      }
      return res;
    } catch (err) {
      log(`functions: ${name} threw${rid}: ${describe(err)}`);
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
      for (const w of [...live]) terminate(w);
      workers.clear();
      for (const t of clocks) clearTimeout(t);
      clocks.clear();
    },
    recycle(name?: string) {
      for (const [n, w] of workers) {
        if (name !== undefined && n !== name) continue;
        retire(w);
        workers.delete(n);
      }
      for (const n of name === undefined ? [...loaded.keys()] : [name]) {
        loaded.delete(n);
        generation.set(n, (generation.get(n) ?? 0) + 1);
      }
    },
  });
}
