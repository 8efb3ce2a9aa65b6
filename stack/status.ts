/**
 * `deno task status [--data-dir <path>]`: reprints the status block of the platform running on a
 * data folder (default .data/), from the platform.json it wrote (stack/running.ts), once its pid
 * lives and its URL answers. Exit code 1 when no platform runs there.
 */
import { parseArgs } from "node:util";
import { resolveDataDir, runningPlatform } from "./running.ts";

const { values } = parseArgs({ args: Deno.args, options: { "data-dir": { type: "string" } } });
const dir = resolveDataDir(values["data-dir"]);
const rec = await runningPlatform(dir);
if (!rec) {
  console.error(`no local platform is running for ${dir} (start it with: deno task start)`);
  Deno.exit(1);
}
if (rec.state !== "running" || !rec.url || !rec.block) {
  console.error(`the local platform for ${dir} is starting (pid ${rec.pid}); try again in a moment`);
  Deno.exit(1);
}
try {
  const res = await fetch(`${rec.url}/auth/v1/health`, { signal: AbortSignal.timeout(5000) });
  await res.body?.cancel();
} catch (err) {
  console.error(`the local platform for ${dir} (pid ${rec.pid}) does not answer on ${rec.url}: ${err}`);
  Deno.exit(1);
}
console.log(`local platform running (pid ${rec.pid}, data ${dir}, since ${rec.started_at}).\n`);
for (const line of rec.block) console.log(line);
