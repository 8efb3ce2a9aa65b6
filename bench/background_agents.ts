/**
 * Background agents and 3D worlds: `deno run -A bench/background_agents.ts [--runs 100]
 * [--due 200] [--worlds 60]`.
 *
 * - agent run over HTTP: a stale-price-document checker over 200 price documents (50 stale,
 *   owners and admins notified) run --runs times one after the other through
 *   background-agent-runner with a member's JWT: authorisation, the run row, ordered log rows,
 *   notifications, the run closed;
 * - scheduler tick: --due enabled agents all due (at most 200 are claimed per tick), one /cron call
 *   as the service role (claim in one statement, advance each, run each, 8 at a time), then a
 *   second tick that must claim nothing;
 * - generate-vr-world: --worlds generations against the World Labs stand-in (done on the first
 *   poll, poll interval 20 ms), 10 at a time, each debiting 75 credits: latency percentiles and the
 *   balance left, which must be exact.
 */
import { parseArgs } from "node:util";
import { percentile } from "./lib.ts";
import { createUser, createWorkspace, startEphemeralPlatform } from "../fixtures/platform.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "100" },
    due: { type: "string", default: "200" },
    worlds: { type: "string", default: "60" },
  },
});

function summary(name: string, lat: number[], elapsedMs: number): string {
  lat.sort((a, b) => a - b);
  return `${name}: ${lat.length} in ${elapsedMs.toFixed(0)} ms = ${
    (lat.length / elapsedMs * 1000).toFixed(1)
  }/s; ` +
    `p50 ${percentile(lat, 50).toFixed(1)} ms, p90 ${percentile(lat, 90).toFixed(1)} ms, p99 ${
      percentile(lat, 99).toFixed(1)
    } ms`;
}

const platform = await startEphemeralPlatform();
try {
  const owner = await createUser(platform, "bench-agents-owner");
  const member = await createUser(platform, "bench-agents-member");
  const ws = await createWorkspace(platform, owner.id, { [member.id]: "member" });
  const db = platform.db;
  const cat = (await db.query<{ id: string }>(
    `insert into public.kb_categories (workspace_id, name, slug, access_level) values ($1, 'Pricing', 'pricing', 'admin')
     returning id`,
    [ws],
  )).rows[0].id;
  await db.query(
    `insert into public.kb_docs (workspace_id, category_id, title, content, content_hash, price_doc_type, updated_at)
     select $1, $2, 'Price list ' || g, 'x', md5(g::text) || md5(g::text || '.'), 'price_list',
            now() - ((case when g <= 50 then 200 else 10 end) || ' days')::interval
       from generate_series(1, 200) g`,
    [ws, cat],
  );
  const agent = (await db.query<{ id: string }>(
    `insert into public.background_agents (workspace_id, agent_type, name, created_by)
     values ($1, 'stale_price_documents', 'Bench', $2) returning id`,
    [ws, owner.id],
  )).rows[0].id;
  const fn = `${platform.url}/functions/v1/background-agent-runner`;
  const headers = (token: string) => ({
    apikey: platform.config.anonKey,
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
  });

  const runs = Number(values.runs);
  const lat: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    const r = await fetch(fn, {
      method: "POST",
      headers: headers(member.accessToken),
      body: JSON.stringify({ agent_id: agent }),
    });
    const body = await r.json();
    if (body.status !== "completed" || body.output.stale_documents.length !== 50) {
      throw new Error(`run: ${JSON.stringify(body).slice(0, 300)}`);
    }
    lat.push(performance.now() - s);
  }
  console.log(summary("agent run over HTTP (200 price docs, 50 stale)", lat, performance.now() - t0));

  const due = Number(values.due);
  await db.query(
    `insert into public.background_agents (workspace_id, agent_type, name, schedule, created_by, config)
     select $1, 'quote_follow_up', 'Due ' || g, '*/5 * * * *', $2, '{"notify": false}'::jsonb from generate_series(1, $3::int) g`,
    [ws, owner.id, due],
  );
  await db.query(
    `update public.background_agents set next_run_at = now() - interval '1 minute' where schedule is not null`,
  );
  const svc = platform.config.serviceRoleKey;
  const c0 = performance.now();
  const tick = await fetch(`${fn}/cron`, { method: "POST", headers: headers(svc) }).then((r) => r.json());
  const tickMs = performance.now() - c0;
  const ok = tick.runs.filter((r: { status: string }) => r.status === "completed").length;
  const again = await fetch(`${fn}/cron`, { method: "POST", headers: headers(svc) }).then((r) => r.json());
  console.log(
    `scheduler tick: ${tick.claimed} due agents claimed and ${ok} runs completed in ${
      tickMs.toFixed(0)
    } ms ` +
      `(${(tick.claimed / tickMs * 1000).toFixed(0)} runs/s); second tick claimed ${again.claimed}`,
  );

  // 3D worlds against the stand-in.
  platform.env.VR_WORLD_POLL_INTERVAL_MS = "20";
  const buyer = await createUser(platform, "bench-worlds");
  const worlds = Number(values.worlds);
  await db.query(`select public.grant_credits($1, $2)`, [buyer.id, worlds * 75 + 0.25]);
  const wlat: number[] = [];
  let next = 0;
  const w0 = performance.now();
  await Promise.all(Array.from({ length: 10 }, async () => {
    while (next < worlds) {
      next++;
      const s = performance.now();
      const r = await fetch(`${platform.url}/functions/v1/generate-vr-world`, {
        method: "POST",
        headers: headers(buyer.accessToken),
        body: JSON.stringify({ source_image_url: "https://93.184.216.34/room.jpg", prompt: "Bench room" }),
      });
      const body = await r.json();
      if (r.status !== 200) throw new Error(`generate-vr-world: ${JSON.stringify(body)}`);
      wlat.push(performance.now() - s);
    }
  }));
  const left =
    (await db.query<{ balance: string }>(`select balance from public.user_credits where user_id = $1`, [
      buyer.id,
    ])).rows[0].balance;
  console.log(
    summary("generate-vr-world (stand-in, 10 concurrent)", wlat, performance.now() - w0) +
      `; balance left ${Number(left)} (expected 0.25)`,
  );
} finally {
  await platform.stop();
}
