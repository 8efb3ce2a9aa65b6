/**
 * Work that outlives the response: on Supabase's Edge Runtime, EdgeRuntime.waitUntil keeps the
 * worker alive until the promise settles (otherwise it may be stopped once the response is
 * sent); elsewhere (the local platform, one long-lived process) the promise simply runs on.
 * A rejection is logged, never unhandled.
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
