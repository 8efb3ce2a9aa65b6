/**
 * Boot benchmark: time from spawning `deno task start` (stack/main.ts) to the first 200 from
 * /functions/v1/health-check, on a fresh data folder (a copy of the migrated template: bootstrap,
 * every migration and the seed, built once per schema under .cache/) and then warm (the same
 * folder again). Each run is a separate process, as a developer would start it. The baseline, in
 * the same rounds: a `deno run` of a bare Deno.serve to its first 200 (what any process start
 * costs here).
 *
 *   deno run -A bench/boot.ts [--runs 3]
 */
import { parseArgs } from "node:util";
import { LOCAL_ANON_KEY } from "../stack/config.ts";

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string", default: "3" } } });
const runs = Number(values.runs);
const root = new URL("..", import.meta.url).pathname;

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function bootOnce(dataDir: string, reset: boolean): Promise<number> {
  const port = freePort();
  const t0 = performance.now();
  const args = ["run", "-A", `${root}stack/main.ts`, "--data-dir", dataDir, "--port", String(port)];
  if (reset) args.push("--reset");
  const child = new Deno.Command(Deno.execPath(), { args, stdout: "null", stderr: "inherit" }).spawn();
  const deadline = t0 + 60_000;
  let ms = NaN;
  while (performance.now() < deadline) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/functions/v1/health-check`, {
        headers: { Authorization: `Bearer ${LOCAL_ANON_KEY}` },
      });
      await r.body?.cancel();
      if (r.status === 200) {
        ms = performance.now() - t0;
        break;
      }
    } catch {
      // Not listening yet: connection refused is the expected answer until the platform is up.
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill("SIGTERM");
  const status = await child.status;
  if (Number.isNaN(ms)) throw new Error(`platform did not answer within 60 s (exit ${status.code})`);
  return ms;
}

/** A bare Deno.serve in a new process, to its first 200: the floor under every start. */
async function bareOnce(): Promise<number> {
  const port = freePort();
  const code =
    `Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() {} }, () => new Response("ok"));`;
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", code], stdout: "null", stderr: "inherit" })
    .spawn();
  let ms = NaN;
  while (performance.now() < t0 + 30_000) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/`);
      await r.body?.cancel();
      ms = performance.now() - t0;
      break;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill("SIGTERM");
  await child.status;
  if (Number.isNaN(ms)) throw new Error("bare Deno.serve did not answer within 30 s");
  return ms;
}

const fresh: number[] = [];
const warm: number[] = [];
const bare: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = await Deno.makeTempDir({ prefix: "boot-bench-" });
  try {
    bare.push(await bareOnce());
    fresh.push(await bootOnce(dir, true));
    warm.push(await bootOnce(dir, false));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
const show = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(2) + " s").join(", ");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const med = (xs: number[]) => (median(xs) / 1000).toFixed(2);
console.log(
  `boot to first 200 from health-check (${runs} runs, one process each; cores ${navigator.hardwareConcurrency})`,
);
console.log(`  baseline (bare Deno.serve, deno run):         ${show(bare)}; median ${med(bare)} s`);
console.log(
  `  fresh (new data folder, copy of the template): ${show(fresh)}; median ${med(fresh)} s (goal < 2 s)`,
);
console.log(
  `  warm  (existing data folder):                 ${show(warm)}; median ${med(warm)} s (goal < 0.5 s)`,
);
