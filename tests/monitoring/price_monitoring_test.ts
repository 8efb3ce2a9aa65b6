/**
 * price-monitoring over HTTP (spec "Price monitoring"), against a local competitor site whose
 * prices the test changes between checks (allowed through safe_fetch by
 * PRICE_MONITORING_ALLOWED_HOSTS; any other private address is still refused): check_now records
 * prices and their changes in price_history and notifies the workspace, bills 0.5 credits per
 * source read and refunds unread ones, get_status has the spec's shape, insufficient credits
 * leave nothing debited, outsiders and viewers are refused, and a scheduled check runs from the
 * cron job's tick through pg_net.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createUser, createWorkspace, pauseCronJobsInModule, platformTest } from "../helpers/platform.ts";
import { balance, createTeam, grant, type Team } from "../helpers/team.ts";
import { waitFor } from "../cron/helpers.ts";

// This module drives price-monitoring-scheduler by hand: the real per-minute tick must not claim its work.
pauseCronJobsInModule("price-monitoring-scheduler");

/** The competitor site: prices per path, changed by the tests. */
const prices: Record<string, string> = { "/oak": "100.00", "/tile": "1.234,50 €" };
const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  const path = new URL(req.url).pathname;
  if (path === "/oak") {
    const ld = {
      "@context": "https://schema.org",
      "@type": "Product",
      name: "Oak parquet 14 mm",
      sku: "OAK-14",
      offers: { "@type": "Offer", price: prices["/oak"], priceCurrency: "EUR" },
    };
    return new Response(
      `<html><head><script type="application/ld+json">${
        JSON.stringify(ld)
      }</script></head><body>Oak</body></html>`,
      { headers: { "content-type": "text/html" } },
    );
  }
  if (path === "/tile") {
    return new Response(
      `<html><body><h1>Tile</h1><span class="price">${prices["/tile"]}</span></body></html>`,
      {
        headers: { "content-type": "text/html" },
      },
    );
  }
  if (path === "/plain") return new Response("<html><body>Call us for a price</body></html>");
  return new Response("gone", { status: 404 });
});
const SITE = `http://127.0.0.1:${site.addr.port}`;
addEventListener("unload", () => site.shutdown());

let team: Team | null = null;
async function setup(p: Platform): Promise<Team> {
  if (!team) {
    p.env.PRICE_MONITORING_ALLOWED_HOSTS = `127.0.0.1:${site.addr.port}`;
    team = await createTeam(p, { prefix: "mon", credits: 100 });
  }
  return team;
}

async function product(p: Platform, ws: string, name: string): Promise<string> {
  const r = await p.db.query<{ id: string }>(
    `insert into public.products (workspace_id, name) values ($1, $2) returning id`,
    [ws, name],
  );
  return r.rows[0].id;
}

async function monitor(p: Platform, token: string | null, body: Record<string, unknown>) {
  const res = await fetch(`${p.url}/functions/v1/price-monitoring`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  // deno-lint-ignore no-explicit-any
  return { status: res.status, body: await res.json() as any };
}

/** Adds competitor sources as a workspace writer would: through /rest/v1 (RLS applies). */
async function addSources(t: Team, productId: string, rows: Record<string, unknown>[]): Promise<string[]> {
  const { data, error } = await t.member.client.from("competitor_sources")
    .insert(rows.map((r) => ({ product_id: productId, ...r }))).select("id, workspace_id");
  if (error) throw new Error(error.message);
  for (const r of data!) assert.equal(r.workspace_id, t.ws, "the workspace comes from the product");
  return data!.map((r) => r.id);
}

platformTest("check_now: prices, a change, its history and notifications; credits exact", async (p) => {
  const t = await setup(p);
  const oak = await product(p, t.ws, "Oak parquet");
  const [a, b, c] = await addSources(t, oak, [
    { competitor_name: "Timber Co", url: `${SITE}/oak`, sku_hint: "OAK-14" },
    {
      competitor_name: "Floor Depot",
      url: `${SITE}/tile`,
      price_selector: "span.price",
      default_currency: "EUR",
    },
    // A private address nobody allowed: refused by safe_fetch, and refunded.
    { competitor_name: "Intranet", url: "http://10.1.2.3/price" },
  ]);
  const before = await balance(p, t.member.id);

  prices["/oak"] = "100.00";
  const first = await monitor(p, t.member.accessToken, { action: "check_now", productId: oak });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.success, true);
  assert.match(first.body.jobId, /^[0-9a-f-]{36}$/);
  assert.match(first.body.message, /3 source\(s\): 2 price\(s\) found, 0 change\(s\)/);
  assert.equal(first.body.results.sourcesChecked, 3);
  assert.equal(first.body.results.pricesFound, 2);
  assert.equal(first.body.results.creditsConsumed, 1);
  assert.equal(first.body.results.creditsRefunded, 0.5);
  const bySource = Object.fromEntries(
    first.body.results.sources.map((s: { source_id: string }) => [s.source_id, s]),
  );
  assert.deepEqual([bySource[a].status, bySource[a].price, bySource[a].currency, bySource[a].via], [
    "ok",
    "100.00",
    "EUR",
    "json-ld",
  ]);
  assert.deepEqual([bySource[b].status, bySource[b].price, bySource[b].currency, bySource[b].via], [
    "ok",
    "1234.50",
    "EUR",
    "selector",
  ]);
  assert.equal(bySource[c].status, "failed");
  assert.match(bySource[c].error, /10\.1\.2\.3.*private/);
  assert.equal(await balance(p, t.member.id), before - 1);

  // The competitor lowers its price.
  prices["/oak"] = "95.50";
  const second = await monitor(p, t.member.accessToken, { action: "check_now", productId: oak });
  assert.equal(second.status, 200);
  assert.equal(second.body.results.priceChanges, 1);
  assert.deepEqual(second.body.results.changes, [{
    source_id: a,
    competitor_name: "Timber Co",
    previous_price: "100",
    price: "95.5",
    currency: "EUR",
    change_percent: -4.5,
  }]);
  assert.equal(await balance(p, t.member.id), before - 2);

  const history = await p.db.query<Record<string, string | null>>(
    `select source_id::text, price::text, currency, previous_price::text, price_change::text,
            change_percent::text, job_id::text
       from public.price_history where product_id = $1 order by checked_at, competitor_name`,
    [oak],
  );
  assert.deepEqual(
    history.rows.map((r) => [r.source_id, r.price, r.previous_price, r.price_change, r.change_percent]),
    [
      [b, "1234.5000", null, null, null],
      [a, "100.0000", null, null, null],
      [b, "1234.5000", "1234.5000", "0.0000", "0.00"],
      [a, "95.5000", "100.0000", "-4.5000", "-4.50"],
    ],
  );
  assert.equal(history.rows[3].job_id, second.body.jobId);

  // Every member of the product's workspace is notified once; the outsider is not.
  const notes = await p.db.query<
    { user_id: string; title: string; message: string; data: Record<string, string> }
  >(
    `select user_id::text, title, message, data from public.notifications where type = 'price_change'
      and data->>'product_id' = $1`,
    [oak],
  );
  assert.deepEqual(
    notes.rows.map((n) => n.user_id).sort(),
    [t.owner.id, t.admin.id, t.member.id, t.viewer.id].sort(),
  );
  assert.equal(notes.rows[0].title, "Price change: Oak parquet at Timber Co");
  assert.equal(
    notes.rows[0].message,
    "Timber Co changed the price of Oak parquet from 100 to 95.5 EUR (-4.50%)",
  );
  assert.equal(notes.rows[0].data.price, "95.5");
  // Members read their notification and the history through /rest/v1; the outsider reads nothing.
  const mine = await t.viewer.client.from("notifications").select("title").eq("type", "price_change");
  assert.equal(mine.data!.length, 1);
  const seen = await t.viewer.client.from("price_history").select("id").eq("product_id", oak);
  assert.equal(seen.data!.length, 4);
  const hidden = await t.outsider.client.from("price_history").select("id").eq("product_id", oak);
  assert.deepEqual(hidden.data, []);

  // get_status: the spec's members, prices exact.
  const status = await monitor(p, t.viewer.accessToken, { action: "get_status", productId: oak });
  assert.equal(status.status, 200);
  assert.deepEqual(Object.keys(status.body).sort(), [
    "latestPrices",
    "monitoring",
    "recentJobs",
    "sources",
    "success",
  ]);
  assert.equal(status.body.monitoring, null);
  const latest = Object.fromEntries(
    status.body.latestPrices.map((x: { sourceId: string }) => [x.sourceId, x]),
  );
  assert.deepEqual(Object.keys(latest).sort(), [a, b].sort());
  assert.equal(latest[a].price, "95.5");
  assert.equal(latest[a].previousPrice, "100");
  assert.equal(latest[a].priceChange, "-4.5");
  assert.equal(latest[a].currency, "EUR");
  assert.equal(status.body.recentJobs.length, 2);
  assert.equal(status.body.recentJobs[0].id, second.body.jobId);
  assert.equal(status.body.recentJobs[0].status, "completed");
  assert.equal(status.body.recentJobs[0].trigger, "manual");
  assert.equal(status.body.recentJobs[0].creditsConsumed, "1");
  assert.equal(status.body.recentJobs[0].pricesFound, 2);
  assert.equal(status.body.sources.length, 3);
  const intranet = status.body.sources.find((s: { id: string }) => s.id === c);
  assert.equal(intranet.lastStatus, "failed");
  assert.equal(status.body.sources.find((s: { id: string }) => s.id === a).lastPrice, "95.5");
});

platformTest(
  "a page without a price is charged, an unreadable one refunded; no sources is a 422",
  async (p) => {
    const t = await setup(p);
    const tile = await product(p, t.ws, "Porcelain tile");
    const empty = await monitor(p, t.admin.accessToken, { action: "check_now", productId: tile });
    assert.equal(empty.status, 422);
    assert.equal(empty.body.code, "no_sources");
    await addSources(t, tile, [
      { competitor_name: "Plain shop", url: `${SITE}/plain` },
      { competitor_name: "Gone shop", url: `${SITE}/missing` },
      { competitor_name: "Wrong sku", url: `${SITE}/oak`, sku_hint: "NOT-THERE" },
    ]);
    const before = await balance(p, t.admin.id);
    const r = await monitor(p, t.admin.accessToken, { action: "check_now", productId: tile });
    assert.equal(r.status, 200);
    const outcome = Object.fromEntries(
      r.body.results.sources.map((s: { competitor_name: string; status: string; error: string }) => [
        s.competitor_name,
        [s.status, s.error],
      ]),
    );
    assert.equal(outcome["Plain shop"][0], "no_price");
    assert.match(outcome["Plain shop"][1], /no structured product price/);
    assert.deepEqual(outcome["Gone shop"], ["failed", "the page answered HTTP 404"]);
    assert.deepEqual(outcome["Wrong sku"], ["no_price", "no product with sku NOT-THERE on the page"]);
    assert.equal(r.body.results.pricesFound, 0);
    assert.equal(r.body.results.creditsConsumed, 1);
    assert.equal(r.body.results.creditsRefunded, 0.5);
    assert.equal(await balance(p, t.admin.id), before - 1);
  },
);

platformTest("insufficient credits: 402, nothing stays debited, the job is failed", async (p) => {
  await setup(p);
  const poor = await createUser(p, "mon-poor");
  const ws = await createWorkspace(p, poor.id, {}, "Poor");
  await grant(p, poor.id, 1);
  const item = await product(p, ws, "Gravel");
  const { error } = await poor.client.from("competitor_sources").insert(
    [1, 2, 3].map((i) => ({ product_id: item, competitor_name: `Shop ${i}`, url: `${SITE}/oak` })),
  );
  assert.equal(error, null);
  const r = await monitor(p, poor.accessToken, { action: "check_now", productId: item });
  assert.equal(r.status, 402);
  assert.equal(r.body.code, "insufficient_credits");
  assert.equal(await balance(p, poor.id), 1);
  const jobs = await p.db.query<{ status: string; credits_refunded: string }>(
    `select status, credits_refunded::text from public.price_monitoring_jobs where product_id = $1`,
    [item],
  );
  assert.deepEqual(jobs.rows, [{ status: "failed", credits_refunded: "1.0000" }]);
  assert.equal(
    (await p.db.query(`select 1 from public.price_history where product_id = $1`, [item])).rows.length,
    0,
  );
});

platformTest("tenancy and roles: outsiders 404, viewers read only, anon 401, bad input 400", async (p) => {
  const t = await setup(p);
  const item = await product(p, t.ws, "Cement");
  for (const action of ["get_status", "check_now", "start_monitoring", "stop_monitoring"]) {
    const r = await monitor(p, t.outsider.accessToken, { action, productId: item });
    assert.equal(r.status, 404, `${action}: ${JSON.stringify(r.body)}`);
  }
  for (const action of ["check_now", "start_monitoring", "stop_monitoring"]) {
    const r = await monitor(p, t.viewer.accessToken, { action, productId: item });
    assert.equal(r.status, 403, action);
  }
  assert.equal(
    (await monitor(p, t.viewer.accessToken, { action: "get_status", productId: item })).status,
    200,
  );
  assert.equal((await monitor(p, null, { action: "get_status", productId: item })).status, 401);
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ action: "explode", productId: item }, /action must be one of/],
    [{ action: "get_status", productId: "nope" }, /productId must be a UUID/],
    [
      { action: "start_monitoring", productId: item, monitoringSettings: { frequency: "monthly" } },
      /frequency/,
    ],
  ];
  for (const [body, why] of bad) {
    const r = await monitor(p, t.member.accessToken, body);
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.body), why);
  }
  // The outsider cannot attach a source to another workspace's product, nor read its sources.
  const sneaky = await t.outsider.client.from("competitor_sources")
    .insert({ product_id: item, competitor_name: "x", url: `${SITE}/oak` });
  assert.ok(sneaky.error, "refused");
  const viewerAdd = await t.viewer.client.from("competitor_sources")
    .insert({ product_id: item, competitor_name: "x", url: `${SITE}/oak` });
  assert.ok(viewerAdd.error, "viewers only read");
  await addSources(t, item, [{ competitor_name: "Mine", url: `${SITE}/oak` }]);
  const peek = await t.outsider.client.from("competitor_sources").select("id").eq("product_id", item);
  assert.deepEqual(peek.data, []);
  // The scheduler route is the service role's.
  const user = await fetch(`${p.url}/functions/v1/price-monitoring/scheduled`, {
    method: "POST",
    headers: { apikey: p.config.anonKey, authorization: `Bearer ${t.owner.accessToken}` },
  });
  await user.body?.cancel();
  assert.equal(user.status, 403);
});

platformTest("start, a scheduled check from the cron job's tick through pg_net, stop", async (p) => {
  const t = await setup(p);
  const item = await product(p, t.ws, "Oak parquet, scheduled");
  const [src] = await addSources(t, item, [{ competitor_name: "Timber Co", url: `${SITE}/oak` }]);
  prices["/oak"] = "88.00";

  const start = await monitor(p, t.admin.accessToken, {
    action: "start_monitoring",
    productId: item,
    monitoringSettings: { frequency: "hourly", enabled: true },
  });
  assert.equal(start.status, 200, JSON.stringify(start.body));
  assert.equal(start.body.monitoring.frequency, "hourly");
  assert.equal(start.body.monitoring.enabled, true);
  assert.equal(start.body.monitoring.startedBy, t.admin.id);
  assert.ok(Date.parse(start.body.monitoring.nextCheckAt) <= Date.now(), "due at the next scheduler pass");
  const before = await balance(p, t.admin.id);

  // One tick of the cron job: its command, as pg_cron runs it, queues the pg_net call.
  await p.db.query(
    `select vault.create_secret($1, 'project_url') where not exists (select 1 from vault.secrets where name = 'project_url')`,
    [p.url],
  );
  await p.db.query(
    `select vault.create_secret($1, 'service_role_key')
      where not exists (select 1 from vault.secrets where name = 'service_role_key')`,
    [p.config.serviceRoleKey],
  );
  const job = await p.db.query<{ schedule: string; command: string }>(
    `select schedule, command from cron.job where jobname = 'price-monitoring-scheduler'`,
  );
  assert.equal(job.rows[0].schedule, "*/5 * * * *");
  await p.db.exec(job.rows[0].command);
  const done = await waitFor("the scheduled check", async () => {
    const r = await p.db.query<
      { status: string; trigger: string; requested_by: string; credits_consumed: string }
    >(
      `select status, trigger, requested_by::text, credits_consumed::text from public.price_monitoring_jobs
        where product_id = $1 and status <> 'running'`,
      [item],
    );
    return r.rows[0];
  }, 15_000);
  assert.deepEqual(done, {
    status: "completed",
    trigger: "scheduled",
    requested_by: t.admin.id,
    credits_consumed: "0.5000",
  });
  assert.equal(await balance(p, t.admin.id), before - 0.5);
  const m = await p.db.query<{ next_check_at: Date; last_checked_at: Date }>(
    `select next_check_at, last_checked_at from public.price_monitoring_products where product_id = $1`,
    [item],
  );
  const ahead = m.rows[0].next_check_at.getTime() - Date.now();
  assert.ok(ahead > 55 * 60_000 && ahead <= 60 * 60_000, `next check in ${ahead} ms`);
  assert.ok(m.rows[0].last_checked_at);
  const h = await p.db.query<{ price: string }>(
    `select price::text from public.price_history where source_id = $1`,
    [src],
  );
  assert.deepEqual(h.rows, [{ price: "88.0000" }]);

  // A second pass finds nothing due.
  const again = await fetch(`${p.url}/functions/v1/price-monitoring/scheduled`, {
    method: "POST",
    headers: { apikey: p.config.serviceRoleKey, authorization: `Bearer ${p.config.serviceRoleKey}` },
  }).then((r) => r.json());
  assert.equal(again.claimed, 0);

  const stop = await monitor(p, t.member.accessToken, { action: "stop_monitoring", productId: item });
  assert.equal(stop.status, 200);
  assert.equal(stop.body.monitoring.enabled, false);
  assert.equal(stop.body.monitoring.nextCheckAt, null);
  const status = await monitor(p, t.member.accessToken, { action: "get_status", productId: item });
  assert.equal(status.body.monitoring.enabled, false);
  assert.equal(status.body.recentJobs[0].trigger, "scheduled");
});
