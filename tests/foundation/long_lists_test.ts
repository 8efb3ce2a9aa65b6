/**
 * Long lists against PostgREST's limits: the max rows per response (1,000, cut without an error)
 * and the length of a request line (an `in` filter puts every value in the URL; hosted gateways
 * refuse long ones with 414). Each case seeds more rows than one request can carry by SQL and
 * checks the answer through the function a client calls, and where the code splits an `in` list,
 * that no request to the table had a URL longer than a hosted gateway accepts (the local stack
 * runs the functions in this process, so a fetch spy sees their requests).
 *
 * - scraping session status: per-status page counts with 1,200 pages;
 * - the flow scheduler: 200 due flows claimed, run and advanced in one tick;
 * - social best times from 1,200 published posts (the last 1,000 count);
 * - a KB document's attachments: 1,200 products attached.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { pauseCronJobsInModule, platformTest } from "../helpers/platform.ts";
import { createTeam } from "../helpers/team.ts";
import { gateway as scrapingGateway } from "../scraping/helpers.ts";
import { call } from "../quotes/helpers.ts";
import { connectAccount, post } from "../social/helpers.ts";
import { ok } from "../ai/helpers.ts";

// This module drives flow-scheduler-cron by hand: the real per-minute tick must not claim its work.
pauseCronJobsInModule("flow-scheduler-cron", "flow-run-worker");

/** A conservative gateway limit for a request URL (nginx's default large header buffer is 8 kB). */
const GATEWAY_URL_LIMIT = 8_000;

/** The URLs of /rest/v1 requests to `table` made while `fn` runs. */
async function restUrls<T>(table: string, fn: () => Promise<T>): Promise<{ result: T; urls: string[] }> {
  const original = globalThis.fetch;
  const urls: string[] = [];
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes(`/rest/v1/${table}?`)) urls.push(url);
    return original(input, init);
  };
  try {
    return { result: await fn(), urls };
  } finally {
    globalThis.fetch = original;
  }
}

function assertShortUrls(urls: string[], what: string) {
  assert.ok(urls.length > 1, `${what}: the list was split over several reads (${urls.length})`);
  for (const u of urls) {
    assert.ok(u.length <= GATEWAY_URL_LIMIT, `${what}: a ${u.length}-character URL`);
  }
}

async function q<T>(p: Platform, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await p.db.query<T>(sql, params)).rows;
}

platformTest("scraping session status counts every page per status past 1,000 pages", async (p) => {
  const t = await createTeam(p, { prefix: "long-scrape" });
  const [session] = await q<{ id: string }>(
    p,
    `insert into public.scraping_sessions (workspace_id, name) values ($1, 'Big shop') returning id`,
    [t.ws],
  );
  const mix: Record<string, number> = {
    pending: 150,
    processing: 10,
    completed: 700,
    failed: 300,
    skipped: 40,
  };
  let offset = 0;
  for (const [status, n] of Object.entries(mix)) {
    await p.db.query(
      `insert into public.scraping_pages (session_id, url, position, status)
       select $1, 'https://shop.example/p/' || ($3::int + g), $3::int + g, $2
       from generate_series(1, $4::int) g`,
      [session.id, status, offset, n],
    );
    offset += n;
  }
  assert.equal(offset, 1200);
  const r = await scrapingGateway(p, t.viewer.accessToken, "get_scraping_session_status", {
    session_id: session.id,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.data.pages, mix);
  // An outsider still sees nothing of it.
  const outsider = await scrapingGateway(p, t.outsider.accessToken, "get_scraping_session_status", {
    session_id: session.id,
  });
  assert.equal(outsider.status, 404, JSON.stringify(outsider.body));
});

platformTest("the flow scheduler claims, queues and advances 200 due flows in one tick", async (p) => {
  const t = await createTeam(p, { prefix: "long-flows" });
  const slot = "2026-03-29T07:00:00.000Z";
  const graph = { nodes: [{ id: "start", type: "cron", config: { cron: "0 9 * * *" } }], edges: [] };
  const flows = await q<{ id: string }>(
    p,
    `insert into public.flows (workspace_id, name, graph, trigger_type, trigger_config, enabled, next_run_at)
     select $1, 'Daily ' || g, $2::jsonb, 'cron', '{"cron": "0 9 * * *", "timezone": "UTC"}', true, $3
     from generate_series(1, 200) g returning id`,
    [t.ws, JSON.stringify(graph), slot],
  );
  const ids = flows.map((f) => f.id);
  const { result: tick, urls } = await restUrls(
    "flows",
    () => call(p, "flow-scheduler-cron", "", { method: "POST", token: p.config.serviceRoleKey, body: {} }),
  );
  assert.equal(tick.status, 200, JSON.stringify(tick.body));
  assert.ok((tick.body.claimed as number) >= 200, `claimed ${tick.body.claimed}`);
  assertShortUrls(urls, "flows read");
  // The tick queued the runs; its worker runs them, a slice per call.
  for (let i = 0; i < 10; i++) {
    const [left] = await q<{ n: number }>(
      p,
      `select count(*)::int as n from public.flow_runs where flow_id = any($1) and status = 'running'`,
      [ids],
    );
    if (left.n === 0) break;
    const w = await call(p, "flow-scheduler-cron", "/worker", {
      method: "POST",
      token: p.config.serviceRoleKey,
      body: {},
    });
    assert.equal(w.status, 200, JSON.stringify(w.body));
  }
  const runs = await q<{ status: string; n: number }>(
    p,
    `select status, count(*)::int as n from public.flow_runs
     where flow_id = any($1) and scheduled_for = $2 group by status`,
    [ids, slot],
  );
  assert.deepEqual(runs, [{ status: "completed", n: 200 }]);
  const [advanced] = await q<{ n: number }>(
    p,
    `select count(*)::int as n from public.flows
     where id = any($1) and next_run_at > now() and next_run_at::time = '09:00' and last_run_at is not null`,
    [ids],
  );
  assert.equal(advanced.n, 200, "every flow moved on to its next slot");
  // Nothing of them is due any more.
  const again = await call(p, "flow-scheduler-cron", "", {
    method: "POST",
    token: p.config.serviceRoleKey,
    body: {},
  });
  assert.equal(again.status, 200);
  const [extra] = await q<{ n: number }>(
    p,
    `select count(*)::int as n from public.flow_runs where flow_id = any($1)`,
    [
      ids,
    ],
  );
  assert.equal(extra.n, 200);
});

platformTest("social best times from 1,200 published posts use the last 1,000 of them", async (p) => {
  const t = await createTeam(p, { prefix: "long-social" });
  p.sandbox!.get("late").autoWebhooks = false;
  const ig = await connectAccount(p, t.owner.accessToken, t.ws, "instagram");
  // 200 old posts (Monday 09:00, 2025) with huge engagement fall outside the last 1,000; of the
  // recent ones, 600 on Wednesdays 18:00 (10 each) and 400 on Fridays 12:00 (20 each).
  const seed = async (n: number, first: string, likes: number) =>
    await p.db.query(
      `with p as (
         insert into public.social_posts (workspace_id, social_account_id, platform, content, status, published_at)
         select $1, $2, 'instagram', 'Post ' || g, 'published', $3::timestamptz - make_interval(days => 7 * g)
         from generate_series(0, $4::int - 1) g returning id)
       insert into public.social_post_analytics (post_id, workspace_id, social_account_id, likes)
       select id, $1, $2, $5 from p`,
      [t.ws, ig.id, first, n, likes],
    );
  await seed(200, "2010-01-04T09:00:00Z", 1000);
  await seed(600, "2026-03-04T18:00:00Z", 10);
  await seed(400, "2026-03-06T12:00:00Z", 20);
  const { result: best, urls } = await restUrls(
    "social_post_analytics",
    () =>
      post(p, "social-analytics", t.viewer.accessToken, {
        action: "get_best_time",
        social_account_id: ig.id,
        platform: "instagram",
      }),
  );
  assert.equal(best.status, 200, JSON.stringify(best.body));
  assertShortUrls(urls, "metrics read");
  assert.equal(best.body.based_on_posts, 1000);
  assert.deepEqual(best.body.best_times, [
    { day: "friday", day_of_week: 5, hour: 12, avg_engagement: 20, post_count: 400 },
    { day: "wednesday", day_of_week: 3, hour: 18, avg_engagement: 10, post_count: 600 },
  ]);
});

platformTest("a KB document's attachments list all 1,200 attached products", async (p) => {
  const t = await createTeam(p, { prefix: "long-kb" });
  const [doc] = await q<{ id: string }>(
    p,
    `insert into public.kb_docs (workspace_id, title, content, content_hash)
     values ($1, 'Price list 2026', 'All prices', repeat('a', 64)) returning id`,
    [t.ws],
  );
  await p.db.query(
    `with pr as (
       insert into public.products (workspace_id, name, sku)
       select $1, 'Tile ' || g, 'SKU-' || lpad(g::text, 4, '0') from generate_series(1, 1200) g returning id)
     insert into public.kb_doc_attachments (workspace_id, doc_id, product_id) select $1, $2, id from pr`,
    [t.ws, doc.id],
  );
  const { result: att, urls } = await restUrls(
    "products",
    () => ok(p, t.viewer.accessToken, "kb_get_doc_attachments", { doc_id: doc.id }),
  );
  assertShortUrls(urls, "products read");
  assert.equal(att.attachments.length, 1200);
  const skus = new Set(att.attachments.map((a: { product: { sku: string } | null }) => a.product?.sku));
  assert.equal(skus.size, 1200, "every attachment has its product");
  assert.ok(!skus.has(undefined));
});
