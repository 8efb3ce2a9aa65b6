/**
 * Realtime postgres_changes fan-out: N subscribers (raw WebSockets speaking vsn 2.0.0, as
 * supabase-js does) on one table of the supabase_realtime publication with RLS, M inserts
 * committed one by one; prints events delivered per second and the latency from commit (the
 * insert's return) to each delivery (p50/p99/max). Baseline in the same process: the same
 * inserts with nobody subscribed (the cost of capture alone).
 *
 *   deno run -A bench/realtime.ts [--subscribers 100] [--inserts 200]
 */
import { parseArgs } from "node:util";
import { startPlatform } from "../stack/platform.ts";
import { percentile } from "./lib.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { subscribers: { type: "string", default: "100" }, inserts: { type: "string", default: "200" } },
});
const SUBSCRIBERS = Number(values.subscribers);
const INSERTS = Number(values.inserts);

const p = await startPlatform({ ephemeral: true, apiPort: 0 });
await p.db.exec(`
  create table public.bench_events (id bigint generated always as identity primary key, body text not null);
  alter table public.bench_events enable row level security;
  create policy bench_read on public.bench_events for select to anon using (true);
  grant select on public.bench_events to anon;
  alter publication supabase_realtime add table public.bench_events;
`);

async function timeInserts(n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await p.db.query(`insert into public.bench_events (body) values ($1)`, [`e${i}`]);
  }
  return performance.now() - t0;
}

// Baseline: capture without subscribers.
const baseMs = await timeInserts(INSERTS);

const committed = new Map<string, number>();
const latencies: number[] = [];
let delivered = 0;
let lastAt = 0;
const url = `${p.url.replace(/^http/, "ws")}/realtime/v1/websocket?apikey=${p.config.anonKey}&vsn=2.0.0`;
const sockets: WebSocket[] = [];
await Promise.all(Array.from({ length: SUBSCRIBERS }, (_, i) =>
  new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url);
    sockets.push(ws);
    ws.onopen = () =>
      ws.send(JSON.stringify([
        "1",
        "1",
        `realtime:bench-${i}`,
        "phx_join",
        { config: { postgres_changes: [{ event: "INSERT", schema: "public", table: "bench_events" }] } },
      ]));
    ws.onerror = () => reject(new Error("socket error"));
    ws.onmessage = (e) => {
      const [, , , event, payload] = JSON.parse(String(e.data));
      if (event === "system" && payload.status === "ok") resolve();
      if (event === "system" && payload.status === "error") reject(new Error(payload.message));
      if (event === "postgres_changes") {
        const at = performance.now();
        const t = committed.get(payload.data.record.body);
        if (t !== undefined) latencies.push(at - t);
        delivered++;
        lastAt = at;
      }
    };
  })));

const t0 = performance.now();
for (let i = 0; i < INSERTS; i++) {
  const body = `s${i}`;
  await p.db.query(`insert into public.bench_events (body) values ($1)`, [body]);
  committed.set(body, performance.now());
}
const insertMs = performance.now() - t0;
const expected = SUBSCRIBERS * INSERTS;
const deadline = performance.now() + 120_000;
while (delivered < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
const totalMs = lastAt - t0;
latencies.sort((a, b) => a - b);

console.log(`subscribers ${SUBSCRIBERS}, inserts ${INSERTS}: delivered ${delivered}/${expected}`);
console.log(
  `throughput: ${(delivered / (totalMs / 1000)).toFixed(0)} events/s delivered ` +
    `(${(INSERTS / (totalMs / 1000)).toFixed(0)} changes/s fanned out to every subscriber)`,
);
console.log(
  `commit -> delivery: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${
    percentile(latencies, 99).toFixed(1)
  } ms, max ${latencies.at(-1)?.toFixed(1)} ms`,
);
console.log(
  `inserts: ${(insertMs / INSERTS).toFixed(2)} ms each while streaming vs ${
    (baseMs / INSERTS).toFixed(2)
  } ms with nobody subscribed (baseline, same process)`,
);
for (const ws of sockets) ws.close();
await p.stop();
