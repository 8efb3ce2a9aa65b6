/**
 * Realtime postgres_changes fan-out: N subscribers (raw WebSockets speaking vsn 2.0.0, as
 * supabase-js does) on one table of the supabase_realtime publication with RLS. Two scenarios on
 * the same subscribers, each printing events delivered per second and the latency from commit
 * (the insert's return) to each delivery (p50/p99/max):
 *
 * - in process, back to back: M inserts through the database handle, each awaited before the next;
 * - through /rest/v1 at a pace: M inserts made with fetch and the anon key, as a frontend makes
 *   them, started every 1000/rate ms without waiting for the previous one (commit = the
 *   response; a delivery that beats the response to the client counts as 0 ms).
 *
 * Baseline in the same process: the same in-process inserts with nobody subscribed (the cost of
 * capture alone). The machine's core count is printed: every figure depends on it.
 *
 *   deno run -A bench/realtime.ts [--subscribers 100] [--inserts 200] [--rate 50]
 */
import { parseArgs } from "node:util";
import { startPlatform } from "../stack/platform.ts";
import { percentile } from "./lib.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    subscribers: { type: "string", default: "100" },
    inserts: { type: "string", default: "200" },
    rate: { type: "string", default: "50" },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const INSERTS = Number(values.inserts);
const RATE = Number(values.rate);

const p = await startPlatform({ ephemeral: true, apiPort: 0 });
await p.db.exec(`
  create table public.bench_events (id bigint generated always as identity primary key, body text not null);
  alter table public.bench_events enable row level security;
  create policy bench_read on public.bench_events for select to anon using (true);
  create policy bench_write on public.bench_events for insert to anon with check (true);
  grant select, insert on public.bench_events to anon;
  alter publication supabase_realtime add table public.bench_events;
  notify pgrst, 'reload schema';
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

/** body -> when its insert returned; body -> when each subscriber got it. */
const committed = new Map<string, number>();
const arrivals = new Map<string, number[]>();
let delivered = 0;
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
        const body = payload.data.record.body as string;
        let list = arrivals.get(body);
        if (!list) arrivals.set(body, list = []);
        list.push(performance.now());
        delivered++;
      }
    };
  })));

async function scenario(name: string, prefix: string, run: () => Promise<void>): Promise<void> {
  const before = delivered;
  const t0 = performance.now();
  await run();
  const insertMs = performance.now() - t0;
  const expected = SUBSCRIBERS * INSERTS;
  const deadline = performance.now() + 120_000;
  while (delivered - before < expected && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const latencies: number[] = [];
  let lastAt = 0;
  for (let i = 0; i < INSERTS; i++) {
    const at = committed.get(`${prefix}${i}`)!;
    for (const d of arrivals.get(`${prefix}${i}`) ?? []) {
      latencies.push(Math.max(0, d - at));
      lastAt = Math.max(lastAt, d);
    }
  }
  latencies.sort((a, b) => a - b);
  const totalMs = lastAt - t0;
  console.log(`${name}: delivered ${delivered - before}/${expected}, inserts took ${insertMs.toFixed(0)} ms`);
  console.log(
    `  throughput: ${((delivered - before) / (totalMs / 1000)).toFixed(0)} events/s delivered ` +
      `(${(INSERTS / (totalMs / 1000)).toFixed(0)} changes/s fanned out to every subscriber)`,
  );
  console.log(
    `  commit -> delivery: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${
      percentile(latencies, 99).toFixed(1)
    } ms, max ${latencies.at(-1)?.toFixed(1)} ms`,
  );
}

console.log(
  `cores ${navigator.hardwareConcurrency}; subscribers ${SUBSCRIBERS}, inserts ${INSERTS} per scenario`,
);

let streamingMs = 0;
await scenario("in process, back to back", "s", async () => {
  const t0 = performance.now();
  for (let i = 0; i < INSERTS; i++) {
    const body = `s${i}`;
    await p.db.query(`insert into public.bench_events (body) values ($1)`, [body]);
    committed.set(body, performance.now());
  }
  streamingMs = performance.now() - t0;
});

await scenario(`through /rest/v1 (anon key) at ${RATE} inserts/s`, "r", async () => {
  const t0 = performance.now();
  const headers = {
    apikey: p.config.anonKey,
    authorization: `Bearer ${p.config.anonKey}`,
    "content-type": "application/json",
    prefer: "return=minimal",
  };
  const pending: Promise<void>[] = [];
  for (let i = 0; i < INSERTS; i++) {
    const wait = t0 + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = `r${i}`;
    pending.push((async () => {
      const res = await fetch(`${p.url}/rest/v1/bench_events`, {
        method: "POST",
        headers,
        body: JSON.stringify({ body }),
      });
      committed.set(body, performance.now());
      await res.body?.cancel();
      if (res.status !== 201) throw new Error(`insert ${body}: ${res.status}`);
    })());
  }
  await Promise.all(pending);
});

console.log(
  `in-process inserts: ${(streamingMs / INSERTS).toFixed(2)} ms each while streaming vs ${
    (baseMs / INSERTS).toFixed(2)
  } ms with nobody subscribed (baseline, same process)`,
);
for (const ws of sockets) ws.close();
await p.stop();
