/**
 * /rest/v1 benchmark: `deno run -A bench/rest.ts [iterations]`.
 *
 * Starts an ephemeral local platform, creates the REST fixture plus 500 projects, and measures
 * two requests over loopback HTTP (through the gateway, with the anon key):
 *   - select by primary key:      /rt_projects?select=*&id=eq.<id>
 *   - 50 rows with one embed:     /rt_projects?select=id,name,budget,rt_clients(name)&order=id&limit=50
 * and, in the same run, the very SQL statement the REST layer builds for each, executed directly
 * in-process with db.query. Prints p50/p99 latency, requests per second (sequential, and with 8
 * concurrent clients) and the REST/direct ratio; the target is <= 1.5x for the primary-key read.
 */
import { parseRequest } from "../stack/rest/request.ts";
import { plan } from "../stack/rest/plan.ts";
import { readStatement } from "../stack/rest/statement.ts";
import { loadSchemaCache } from "../stack/rest/schema-cache.ts";
import { startEphemeralPlatform } from "../fixtures/platform.ts";
import { setupFixture } from "../fixtures/rest.ts";

const ITERATIONS = Math.min(Math.max(Number(Deno.args[0] ?? 2000) || 2000, 100), 100_000);
const WARMUP = 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Figures {
  p50: number;
  p99: number;
  rps: number;
}

async function measure(fn: (i: number) => Promise<void>, n: number): Promise<Figures> {
  for (let i = 0; i < WARMUP; i++) await fn(i);
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  const total = performance.now() - start;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), rps: (n / total) * 1000 };
}

async function concurrentRps(fn: (i: number) => Promise<void>, n: number, clients: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < n) await fn(next++);
  }));
  return (n / (performance.now() - start)) * 1000;
}

const RAW = new Proxy({}, { get: () => (v: unknown) => String(v) });

const platform = await startEphemeralPlatform();
try {
  await setupFixture(platform);
  await platform.db.exec(`
    insert into public.rt_clients (name, tier) select 'client ' || g, 'bronze' from generate_series(1, 50) g;
    insert into public.rt_projects (client_id, name, budget)
      select 1 + (g % 53), 'project ' || g, g * 10 from generate_series(1, 500) g;
    analyze public.rt_projects; analyze public.rt_clients;`);
  const ids = (await platform.db.query<{ id: number }>(`select id from public.rt_projects order by id`)).rows
    .map((r) => r.id);
  const { schemas, maxRows } = platform.project.api;
  const cache = await loadSchemaCache(platform.db, schemas);
  const headers = { apikey: platform.config.anonKey };

  const cases = [
    {
      name: "select by primary key",
      path: (i: number) => `/rt_projects?select=*&id=eq.${ids[i % ids.length]}`,
    },
    {
      name: "50 rows with one embed",
      path: () => `/rt_projects?select=id,name,budget,rt_clients(name)&order=id&limit=50`,
    },
  ];
  console.log(`cores ${navigator.hardwareConcurrency}`);
  console.log(
    `REST bench: ${ITERATIONS} requests per case after ${WARMUP} warm-up (loopback HTTP, anon key)\n`,
  );
  const rows: string[][] = [];
  for (const c of cases) {
    const http = async (i: number) => {
      const res = await fetch(`${platform.url}/rest/v1${c.path(i)}`, { headers });
      if (res.status !== 200) throw new Error(`${c.path(i)}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    // The statement the REST layer runs for this request, built by its own stages.
    const statementFor = async (i: number) => {
      const path = c.path(i).split("?")[0];
      const api = await parseRequest(new Request(`http://local/rest/v1${c.path(i)}`), path, {
        schemas,
        timezones: new Set(),
      });
      const p = plan(cache, api, { maxRows });
      if (p.kind !== "read") throw new Error("expected a read plan");
      return readStatement(p.read, { media: api.media, none: false }, false, false).main;
    };
    const statements = await Promise.all(
      Array.from({ length: Math.min(ids.length, ITERATIONS) }, (_, i) => statementFor(i)),
    );
    const direct = async (i: number) => {
      const st = statements[i % statements.length];
      await platform.db.query(st.sql, st.params, { serializers: RAW });
    };
    const rest = await measure(http, ITERATIONS);
    const sql = await measure(direct, ITERATIONS);
    const rest8 = await concurrentRps(http, ITERATIONS, 8);
    rows.push([
      c.name,
      rest.p50.toFixed(3),
      rest.p99.toFixed(3),
      rest.rps.toFixed(0),
      rest8.toFixed(0),
      sql.p50.toFixed(3),
      sql.p99.toFixed(3),
      sql.rps.toFixed(0),
      (rest.p50 / sql.p50).toFixed(2) + "x",
    ]);
  }
  const head = [
    "case",
    "REST p50 ms",
    "REST p99 ms",
    "REST req/s",
    "REST req/s (8 clients)",
    "SQL p50 ms",
    "SQL p99 ms",
    "SQL q/s",
    "ratio p50",
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  console.log(`\ntarget: primary-key read ratio <= 1.5x -> ${rows[0][8]}`);
} finally {
  await platform.stop();
}
