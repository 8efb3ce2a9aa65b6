/**
 * health-check latency over loopback: p50/p99 and requests per second through the gateway and
 * the functions router (JWT verified), against a bare Deno.serve answering the same JSON in the
 * same process as the baseline.
 *
 *   deno run -A bench/health.ts [--requests 5000] [--concurrency 16]
 */
import { parseArgs } from "node:util";
import { startPlatform } from "../stack/platform.ts";
import { fmtLoad, load } from "./lib.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { requests: { type: "string", default: "5000" }, concurrency: { type: "string", default: "16" } },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);

const platform = await startPlatform({ ephemeral: true, apiPort: 0 });
const baseline = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  () => Response.json({ status: "healthy", timestamp: new Date().toISOString() }),
);

const hit = (url: string, headers: Record<string, string> = {}) => async () => {
  const r = await fetch(url, { headers });
  await r.arrayBuffer();
  return r.status === 200;
};

try {
  const opts = { requests, concurrency, maxSeconds: 30 };
  const base = await load(hit(`http://127.0.0.1:${baseline.addr.port}/`), opts);
  const fn = await load(
    hit(`${platform.url}/functions/v1/health-check`, {
      apikey: platform.config.anonKey,
      Authorization: `Bearer ${platform.config.anonKey}`,
    }),
    opts,
  );
  console.log(
    `health-check over loopback, concurrency ${concurrency}, cores ${navigator.hardwareConcurrency}`,
  );
  console.log(fmtLoad("baseline: bare Deno.serve, same JSON", base));
  console.log(fmtLoad("GET /functions/v1/health-check", fn));
  console.log(
    `ratio p50 ${(fn.p50 / base.p50).toFixed(2)}x, throughput ${
      (base.rps / fn.rps).toFixed(2)
    }x slower than baseline`,
  );
} finally {
  await baseline.shutdown();
  await platform.stop();
}
