/**
 * The unit tier's runner. `deno task test:unit` runs tests/unit/shard_1.ts and shard_2.ts in
 * parallel (one per core); each imports its half of the `*_test.ts` files under tests/unit/, so
 * their `Deno.test`s register and run in one isolate per shard. Deno's test runner costs about
 * half a second of CPU per test module it starts (a worker and the module graph), several times
 * what most unit files take to run, so one module per shard instead of one per file is what
 * makes the tier fast. The same files still run one module each under `deno task test`.
 *
 * Files are dealt to the shards largest first, each to the lighter shard (by bytes), so a new
 * file lands in one of them without a list to keep. The shards are not type-checked by the
 * test run (the imports are computed): `deno task check` is.
 */

const ROOT = new URL("./", import.meta.url);

/** Every `*_test.ts` under tests/unit/, as paths relative to it, sorted. */
export async function unitTestFiles(dir = ROOT, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) out.push(...await unitTestFiles(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`));
    else if (e.isFile && e.name.endsWith("_test.ts")) out.push(`${prefix}${e.name}`);
  }
  return out.sort();
}

/** The files of shard `shard` (1-based) of `of`: largest first, each to the lighter shard. */
export async function shardFiles(shard: number, of: number): Promise<string[]> {
  const sized = await Promise.all(
    (await unitTestFiles()).map(async (f) => ({ f, size: (await Deno.stat(new URL(f, ROOT))).size })),
  );
  sized.sort((a, b) => b.size - a.size || a.f.localeCompare(b.f));
  const bins = Array.from({ length: of }, () => ({ size: 0, files: [] as string[] }));
  for (const { f, size } of sized) {
    const lightest = bins.reduce((a, b) => (b.size < a.size ? b : a));
    lightest.size += size;
    lightest.files.push(f);
  }
  return bins[shard - 1].files.sort();
}

/** Imports the files of one shard, registering their tests in this module. */
export async function importShard(shard: number, of: number): Promise<void> {
  for (const f of await shardFiles(shard, of)) await import(new URL(f, ROOT).href);
}
