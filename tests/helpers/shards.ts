/**
 * The suite's runner. Deno's test runner starts a worker and loads the module graph for every
 * test module: about half a second of CPU for a unit file, three to four seconds for a file that
 * boots a platform (the stack's graph, its first-use compilation), several times what most
 * files' tests take. So `deno task test` runs tests/shards/*_test.ts, a dozen modules, each
 * importing its share of the `*_test.ts` files: the unit tier's files (tests/unit/) in
 * tests/shards/unit_*, every other file in tests/shards/platform_*. Eight small platform files
 * took 48 s of CPU as eight modules and 12.5 s as one.
 *
 * A test's name in the output starts with its file (`rest/rls_test.ts: anon: no privileges ...`).
 *
 * Isolation stays what a module gave a file. Every file gets its own platform: the one
 * tests/helpers/platform.ts starts at the file's first `getPlatform()`, kept per file
 * (`currentTestFile()`), and stopped when the file's last test ends, before the next file's
 * first test. Module-level state of the files themselves is theirs as before; what the stack
 * keeps per process (imported functions, caches) is shared, as it was between the platforms one
 * module starts. A file's top-level code runs at import, before any test of the shard.
 *
 * Files are dealt to shards largest first (by bytes), each to the lighter shard, so a new file
 * lands in one without a list to keep. The computed imports are not type-checked by the test
 * run: `deno task check` (CI) is. One file alone still runs as its own module:
 * `deno test -A tests/<dir>/<file>_test.ts`.
 */
import { setImportingFile, setRunningFile } from "./file_scope.ts";

const TESTS = new URL("../", import.meta.url);

/** Every `*_test.ts` under tests/ (relative paths, sorted), tests/shards/ excepted. */
export async function testFiles(dir = TESTS, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory && !(prefix === "" && e.name === "shards")) {
      out.push(...await testFiles(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`));
    } else if (e.isFile && e.name.endsWith("_test.ts")) out.push(`${prefix}${e.name}`);
  }
  return out.sort();
}

export type Tier = "unit" | "platform";

const inTier = (tier: Tier) => (f: string) => f.startsWith("unit/") === (tier === "unit");

/** The files of shard `shard` (1-based) of `of` in `tier`: largest first, each to the lighter shard. */
export async function shardFiles(tier: Tier, shard: number, of: number): Promise<string[]> {
  const sized = await Promise.all(
    (await testFiles()).filter(inTier(tier)).map(async (f) => ({
      f,
      size: (await Deno.stat(new URL(f, TESTS))).size,
    })),
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

type TestFn = (t: Deno.TestContext) => void | Promise<void>;

/** The test's definition in Deno.test's object form, whichever form it was registered in. */
export function definition(args: unknown[]): Deno.TestDefinition {
  const [a, b, c] = args;
  if (typeof a === "function") return { name: a.name, fn: a as TestFn };
  if (typeof a === "string" && typeof b === "function") return { name: a, fn: b as TestFn };
  if (typeof a === "string") return { ...(b as object), name: a, fn: c as TestFn } as Deno.TestDefinition;
  if (typeof a === "object" && a !== null && typeof b === "function") {
    return { ...(a as object), fn: b as TestFn } as Deno.TestDefinition;
  }
  return a as Deno.TestDefinition;
}

/**
 * A focused test (`Deno.test.only`, `only: true`) would silence every other file of its shard, not
 * just its own file's tests: refused, with the way to focus that works.
 */
function focusRefused(file: string): Error {
  return new Error(
    `${file}: focused tests are refused in a shard; run the file alone: deno test -A tests/${file}`,
  );
}

/**
 * Imports the files of one shard, registering their tests in this module, each run with its
 * file as the current one and the file's platform stopped after its last test (see above).
 */
export async function runShard(tier: Tier, shard: number, of: number): Promise<void> {
  const files = await shardFiles(tier, shard, of);
  const realTest = Deno.test;
  const lastOf = new Map<string, Deno.TestDefinition>();
  const { stopFilePlatform } = await import("./platform.ts");
  for (const file of files) {
    const register = (...args: unknown[]) => {
      const def = definition(args);
      if (def.only) throw focusRefused(file);
      const fn = def.fn;
      const wrapped: Deno.TestDefinition = {
        ...def,
        name: `${file}: ${def.name}`,
        fn: async (t) => {
          setRunningFile(file);
          try {
            await fn(t);
          } finally {
            if (lastOf.get(file) === wrapped) await stopFilePlatform(file);
          }
        },
      };
      // An ignored test never runs, so it cannot be the one that stops the file's platform.
      if (!def.ignore) lastOf.set(file, wrapped);
      realTest(wrapped);
    };
    const scoped = Object.assign(register, {
      ignore: (...args: unknown[]) => register({ ...definition(args), ignore: true }),
      only: () => {
        throw focusRefused(file);
      },
    });
    (Deno as { test: unknown }).test = scoped;
    setImportingFile(file);
    try {
      await import(new URL(file, TESTS).href);
    } finally {
      setImportingFile(null);
      (Deno as { test: unknown }).test = realTest;
    }
  }
}
