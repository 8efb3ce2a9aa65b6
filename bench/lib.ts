/** Small helpers every benchmark shares: percentiles, a bounded closed-loop load, printing. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * Runs `fn` from `concurrency` workers until `requests` calls finished or `maxSeconds` passed,
 * whichever comes first. Latencies in milliseconds.
 */
export async function load(
  fn: () => Promise<boolean>,
  opts: { requests: number; concurrency: number; maxSeconds?: number; warmup?: number },
): Promise<LoadResult> {
  for (let i = 0; i < (opts.warmup ?? 50); i++) await fn();
  const lat: number[] = [];
  let errors = 0;
  let started = 0;
  const deadline = performance.now() + (opts.maxSeconds ?? 30) * 1000;
  const t0 = performance.now();
  const worker = async () => {
    while (started < opts.requests && performance.now() < deadline) {
      started++;
      const s = performance.now();
      const ok = await fn();
      lat.push(performance.now() - s);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return {
    requests: lat.length,
    errors,
    seconds,
    rps: lat.length / seconds,
    p50: percentile(lat, 50),
    p90: percentile(lat, 90),
    p99: percentile(lat, 99),
    max: lat[lat.length - 1],
  };
}

export function fmtLoad(name: string, r: LoadResult): string {
  return `${name.padEnd(44)} n=${r.requests} err=${r.errors} p50=${r.p50.toFixed(2)}ms p90=${
    r.p90.toFixed(2)
  }ms ` +
    `p99=${r.p99.toFixed(2)}ms max=${r.max.toFixed(1)}ms ${r.rps.toFixed(0)} req/s`;
}
