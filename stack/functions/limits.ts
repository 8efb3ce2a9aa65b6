/**
 * The Edge Runtime's limits, as the local functions router enforces them (router.ts). Numbers
 * from supabase.com/docs/guides/functions/limits ("Runtime limits"):
 *
 * - request idle timeout 150 s: a function that sends no response (status and headers) within it
 *   gets 504 Gateway Timeout. The body is the one `supabase start` gives (Kong's `functions-v1`
 *   service has `read_timeout: 150000` "to match hosted", and Kong answers its 504 with
 *   `{"message":"The upstream server is timing out"}`; supabase/edge-runtime#129 shows that body
 *   for a function held past the limit). The hosted docs give the status only.
 * - wall clock 400 s on paid plans, 150 s on the free plan: how long a worker lives, its
 *   `EdgeRuntime.waitUntil` work included. Locally the clock runs per request from its arrival:
 *   the handler, the response body and every waitUntil promise must be done by then. Past it
 *   the work is ended (router.ts says how far each mode can end it).
 * - CPU 2 s per request: locally a warning only (router.ts says what is measured).
 *
 * A request a limit cuts off gets the runtime's 546 WORKER_LIMIT (supabase/cli's serve
 * main.ts: `Worker failed to respond due to a resource limit (please check logs)`).
 *
 * Settings (read from the environment when the router starts; tests pass `limits`, or a test
 * platform `functionLimits`):
 *   SUPABASE_LOCAL_FUNCTION_PLAN                 paid (default) | free: the wall clock, 400 s or 150 s
 *   SUPABASE_LOCAL_FUNCTION_WALL_CLOCK_MS        overrides the plan's wall clock
 *   SUPABASE_LOCAL_FUNCTION_RESPONSE_TIMEOUT_MS  the response deadline (default 150000)
 *   SUPABASE_LOCAL_FUNCTION_CPU_WARN_MS          the CPU warning threshold (default 2000)
 */

export interface EdgeLimits {
  /** A request that has no response by then is answered 504. */
  responseTimeoutMs: number;
  /** A request's handler, body and waitUntil work end by then. */
  wallClockMs: number;
  /** A request that kept the worker busy longer is logged as a warning. */
  cpuWarnMs: number;
}

export const PAID_WALL_CLOCK_MS = 400_000;
export const FREE_WALL_CLOCK_MS = 150_000;
export const RESPONSE_TIMEOUT_MS = 150_000;
export const CPU_LIMIT_MS = 2_000;

export const DEFAULT_LIMITS: EdgeLimits = {
  responseTimeoutMs: RESPONSE_TIMEOUT_MS,
  wallClockMs: PAID_WALL_CLOCK_MS,
  cpuWarnMs: CPU_LIMIT_MS,
};

/** The limits the SUPABASE_LOCAL_FUNCTION_* settings give; a bad value is an error naming it. */
export function edgeLimitsFromEnv(
  get: (name: string) => string | undefined = (n) => Deno.env.get(n),
): EdgeLimits {
  const ms = (name: string, fallback: number) => {
    const raw = get(name);
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) {
      throw new Error(`${name} must be a positive number of milliseconds, got ${raw}`);
    }
    return n;
  };
  const plan = get("SUPABASE_LOCAL_FUNCTION_PLAN") || "paid";
  if (plan !== "paid" && plan !== "free") {
    throw new Error(`SUPABASE_LOCAL_FUNCTION_PLAN must be paid or free, got ${plan}`);
  }
  return {
    responseTimeoutMs: ms("SUPABASE_LOCAL_FUNCTION_RESPONSE_TIMEOUT_MS", RESPONSE_TIMEOUT_MS),
    wallClockMs: ms(
      "SUPABASE_LOCAL_FUNCTION_WALL_CLOCK_MS",
      plan === "free" ? FREE_WALL_CLOCK_MS : PAID_WALL_CLOCK_MS,
    ),
    cpuWarnMs: ms("SUPABASE_LOCAL_FUNCTION_CPU_WARN_MS", CPU_LIMIT_MS),
  };
}

/** The 504 a request gets past the response deadline (Kong's body, see above). */
export function gatewayTimeout(): Response {
  return new Response(`{\n  "message":"The upstream server is timing out"\n}`, {
    status: 504,
    headers: { "content-type": "application/json; charset=utf-8", "access-control-allow-origin": "*" },
  });
}

/** The runtime's answer to a request whose worker a limit ended. */
export function workerLimit(): Response {
  return Response.json(
    { code: "WORKER_LIMIT", message: "Worker failed to respond due to a resource limit (please check logs)" },
    { status: 546, headers: { "access-control-allow-origin": "*" } },
  );
}

/** `p` or, after `ms`, "timeout"; the timer is cleared either way. */
export async function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), ms))]);
  } finally {
    clearTimeout(timer);
  }
}
