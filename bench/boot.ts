/**
 * Boot benchmark: time from spawning `deno task start` (stack/main.ts) to the first 200 from
 * /functions/v1/health-check, on a fresh data folder (bootstrap + every migration + seed) and then
 * warm (the same folder again). Each run is a separate process, as a developer would start it.
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

const fresh: number[] = [];
const warm: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = await Deno.makeTempDir({ prefix: "boot-bench-" });
  try {
    fresh.push(await bootOnce(dir, true));
    warm.push(await bootOnce(dir, false));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
const show = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(2) + " s").join(", ");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`boot to first 200 from health-check (${runs} runs, one process each)`);
console.log(
  `  fresh (new data folder: bootstrap + migrations + seed): ${show(fresh)}; median ${
    (median(fresh) / 1000).toFixed(2)
  } s (target < 10 s)`,
);
console.log(
  `  warm  (existing data folder):                           ${show(warm)}; median ${
    (median(warm) / 1000).toFixed(2)
  } s (target < 3 s)`,
);
