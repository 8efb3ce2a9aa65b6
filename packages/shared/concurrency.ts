/** Bounded concurrency for I/O fan-out (uploads, fetches) without a queue library. */

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (t: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
