/**
 * Work that outlives the response: on Supabase's Edge Runtime, EdgeRuntime.waitUntil keeps the
 * worker alive until the promise settles (otherwise it may be stopped once the response is
 * sent), but never past the worker's wall clock (400 s, 150 s on the free plan, counted from the
 * request): work that may take longer belongs on a queue. The local functions router gives
 * functions the same EdgeRuntime.waitUntil and wall clock (stack/functions/edge_runtime.ts);
 * where there is none (the AI backend) the promise simply runs on. Every function's background
 * work goes through here. A rejection is logged, never unhandled.
 */
type EdgeRuntimeGlobal = { EdgeRuntime?: { waitUntil(p: Promise<unknown>): void } };

export function runInBackground<T>(label: string, work: Promise<T>): Promise<T | undefined> {
  const guarded = work.catch((err) => {
    console.error(`${label}: background work failed`, err);
    return undefined;
  });
  (globalThis as EdgeRuntimeGlobal).EdgeRuntime?.waitUntil(guarded);
  return guarded;
}
