/**
 * Web scraping end to end against a local 30-page shop (fixtures/scraping_site.ts), allowed through
 * the SSRF check by configuration: sitemap -> session -> runner (batches of 3) -> products;
 * robots.txt; pause/resume keeping the position; a dead runner's session resumed by the cron tick;
 * flaky product inserts retried; the model's malformed answers; SSRF refusals; tenancy.
 */
import assert from "node:assert/strict";
import { createUser, createWorkspace, pauseCronJobsInModule, platformTest } from "../helpers/platform.ts";
import { activeRuns } from "@shared/scraping/sessions.ts";
import { runSession } from "@shared/scraping/runner.ts";
import { runnerDeps } from "@shared/scraping/pages.ts";
import { runWithEnv } from "@shared/env.ts";
import { createClient } from "@supabase/supabase-js";
import { grant } from "../helpers/team.ts";
import { call, createSession, flakyProducts, gateway, type Json, q, siteFor } from "./helpers.ts";

// This module drives scrape-session-manager-tick by hand: the real per-minute tick must not claim its work.
pauseCronJobsInModule("scrape-session-manager-tick");

const llmAnswer = (name: string, price: string) => ({
  toolUse: [{
    name: "submit_materials",
    input: { materials: [{ name, price, currency: "EUR", description: "Solid oak plank" }] },
  }],
});

async function settled(sessionId: string) {
  const run = activeRuns.get(sessionId);
  assert.ok(run, "a runner was launched");
  return await run;
}

platformTest(
  "a session over the sitemap extracts the right products; robots.txt and 404s are failures",
  async (p) => {
    const site = await siteFor(p);
    const owner = await createUser(p, "scrape-owner");
    await grant(p, owner.id, 10); // the model pages cost 1 credit each (billing_test.ts)
    const ws = await createWorkspace(p, owner.id);

    const map = await call(p, "parse-sitemap", owner.accessToken, { url: `${site.origin}/sitemap.xml` });
    assert.equal(map.status, 200, JSON.stringify(map.body));
    assert.equal(map.body.success, true);
    assert.equal(map.body.totalUrls, 30);
    assert.equal(map.body.truncated, false);
    assert.deepEqual(map.body.sitemaps.map((s: string) => new URL(s).pathname), [
      "/sitemap.xml",
      "/sitemap-products.xml",
      "/sitemap-more.xml.gz",
    ]);
    assert.deepEqual(map.body.urls.map((u: Json) => new URL(u.loc).pathname), site.pages);
    assert.equal(map.body.urls[0].lastmod, "2026-01-01");

    const session = await createSession(owner, ws, map.body.urls.map((u: Json) => u.loc), {
      category: "tiles",
    });
    const llm = p.sandbox!.get("anthropic");
    llm.reset();
    for (const prod of site.products.filter((x) => x.kind === "llm")) {
      llm.reply(
        llmAnswer(prod.name, prod.price),
      );
    }

    const started = await call(p, "scrape-session-manager", owner.accessToken, {
      sessionId: session.id,
      action: "start",
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.deepEqual(started.body, {
      success: true,
      action: "start",
      sessionId: session.id,
      status: "running",
    });
    assert.equal(await settled(session.id), "completed");
    assert.equal(llm.pendingReplies, 0, "one model call per page without structured data");

    const status = await gateway(p, owner.accessToken, "get_scraping_session_status", {
      session_id: session.id,
    });
    assert.equal(status.status, 200, JSON.stringify(status.body));
    const s = status.body.data;
    assert.equal(s.status, "completed");
    assert.equal(s.total_pages, 30);
    assert.equal(s.processed_pages, 30);
    assert.equal(s.failed_pages, 3);
    assert.equal(s.materials_found, 27);
    assert.equal(s.products_created, 27);
    assert.equal(s.progress, 100);
    assert.deepEqual(s.pages, { pending: 0, processing: 0, completed: 27, failed: 3, skipped: 0 });

    // The products, as the owner reads them through /rest/v1.
    const { data: products, error } = await owner.client.from("products").select(
      "name, sku, category, metadata, status",
    )
      .eq("workspace_id", ws);
    assert.equal(error, null);
    assert.deepEqual(products!.map((x) => x.name).sort(), site.products.map((x) => x.name).sort());
    // Structured pages map one to one; the model's answers may reach the text pages in any order.
    for (const expected of site.products.filter((x) => x.kind !== "llm")) {
      const got: Json = products!.find((x: Json) => x.name === expected.name);
      assert.equal(Number(got.metadata.price), Number(expected.price), `${expected.name} price`);
      assert.equal(got.metadata.currency, "EUR");
      assert.equal(got.metadata.extraction, expected.kind, `${expected.name} extraction`);
      assert.equal(got.metadata.source_url, `${site.origin}${expected.path}`);
      assert.equal(got.category, "tiles");
      assert.equal(got.status, "draft");
    }
    const viaLlm = products!.filter((x: Json) => x.metadata.extraction === "llm");
    assert.deepEqual(
      viaLlm.map((x: Json) => x.metadata.source_url).sort(),
      site.products.filter((x) => x.kind === "llm").map((x) => `${site.origin}${x.path}`).sort(),
    );
    assert.equal(products!.find((x) => x.name === "Ceramic Tile 3")!.sku, "TILE-3");

    // robots.txt: fetched once for the host, its Disallow obeyed (the private pages never requested).
    assert.equal(site.hits.get("/robots.txt"), 1);
    assert.equal(site.hits.get("/private/1") ?? 0, 0);
    const failed = await q(
      p,
      `select url, error, http_status from public.scraping_pages where session_id = $1
    and status = 'failed' order by url`,
      [session.id],
    );
    assert.deepEqual(failed.map((f) => new URL(f.url).pathname), ["/gone", "/private/1", "/private/2"]);
    assert.equal(failed[0].error, "HTTP 404");
    assert.match(failed[1].error, /robots\.txt .* disallows/);

    // Each page fetched exactly once (pages in batches of 3, each claimed once).
    for (const path of site.pages.filter((x) => !x.startsWith("/private/"))) {
      assert.equal(
        site.hits.get(path),
        1,
        path,
      );
    }

    // A finished session cannot be started again; a retry re-runs only the failed pages.
    const again = await call(p, "scrape-session-manager", owner.accessToken, {
      sessionId: session.id,
      action: "start",
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "invalid_transition");
    const retry = await gateway(p, owner.accessToken, "retry_scraping_session", { session_id: session.id });
    assert.equal(retry.status, 202, JSON.stringify(retry.body));
    assert.equal(retry.body.data.status, "running");
    assert.equal(await settled(session.id), "completed");
    assert.equal(site.hits.get("/gone"), 2);
    assert.equal(site.hits.get("/tiles/1"), 1);
    const [after] = await q(
      p,
      `select products_created, failed_pages from public.scraping_sessions where id = $1`,
      [session.id],
    );
    assert.deepEqual(after, { products_created: 27, failed_pages: 3 });
  },
);

platformTest("pause keeps the position and resume continues from it; stop skips the rest", async (p) => {
  const site = await siteFor(p);
  const owner = await createUser(p, "scrape-pause");
  const ws = await createWorkspace(p, owner.id);
  const urls = Array.from({ length: 9 }, (_, i) => `${site.origin}/slow/${i + 1}`);
  const session = await createSession(owner, ws, urls);

  const pagesDone = async () =>
    (await q(p, `select url from public.scraping_pages where session_id = $1 and status = 'completed'`, [
      session.id,
    ]))
      .map((r) => Number(r.url.split("/").pop())).sort((a, b) => a - b);

  assert.equal(
    (await call(p, "scrape-session-manager", owner.accessToken, { sessionId: session.id, action: "start" }))
      .status,
    200,
  );
  await site.requested("/slow/4"); // the second batch (4, 5, 6) is in flight
  const paused = await call(p, "scrape-session-manager", owner.accessToken, {
    sessionId: session.id,
    action: "pause",
  });
  assert.deepEqual(paused.body, { success: true, action: "pause", sessionId: session.id, status: "paused" });
  site.release();
  assert.equal(await settled(session.id), "paused");
  assert.deepEqual(await pagesDone(), [1, 2, 3, 4, 5, 6], "the batch in flight finishes, no new one starts");
  assert.equal(site.hits.get("/slow/7") ?? 0, 0);

  // Pausing twice is refused; resume continues at page 7 and fetches nothing twice.
  assert.equal(
    (await call(p, "scrape-session-manager", owner.accessToken, { sessionId: session.id, action: "pause" }))
      .status,
    409,
  );
  const resumed = await call(p, "scrape-session-manager", owner.accessToken, {
    sessionId: session.id,
    action: "resume",
  });
  assert.equal(resumed.body.status, "running");
  await site.requested("/slow/7");
  site.release();
  assert.equal(await settled(session.id), "completed");
  assert.deepEqual(await pagesDone(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  for (let i = 1; i <= 9; i++) assert.equal(site.hits.get(`/slow/${i}`), 1, `/slow/${i} fetched once`);
  const names = (await q(p, `select name from public.products where workspace_id = $1 order by name`, [ws]))
    .map((r) => r.name);
  assert.equal(names.length, 9);

  // stop: pending pages are skipped, and a stopped session stays stopped.
  const other = await createSession(owner, ws, [`${site.origin}/tiles/1`, `${site.origin}/tiles/2`]);
  const stopped = await call(p, "scrape-session-manager", owner.accessToken, {
    sessionId: other.id,
    action: "stop",
  });
  assert.equal(stopped.body.status, "stopped");
  const skipped = await q(p, `select status from public.scraping_pages where session_id = $1`, [other.id]);
  assert.deepEqual(skipped.map((r) => r.status), ["skipped", "skipped"]);
  const restart = await call(p, "scrape-session-manager", owner.accessToken, {
    sessionId: other.id,
    action: "start",
  });
  assert.equal(restart.status, 409);
  // The state machine holds in SQL too, whoever writes.
  await assert.rejects(
    p.db.query(`update public.scraping_sessions set status = 'running' where id = $1`, [other.id]),
    /cannot move from stopped to running/,
  );
});

platformTest(
  "a session whose runner died is resumed by the cron tick; two runners never share a page",
  async (p) => {
    const site = await siteFor(p);
    const owner = await createUser(p, "scrape-restart");
    const ws = await createWorkspace(p, owner.id);
    const session = await createSession(owner, ws, [1, 2, 3, 4, 5].map((i) => `${site.origin}/tiles/${i}`));
    const before = site.hits.get("/tiles/2") ?? 0;
    // As a platform restart leaves it: running, held by a runner that is gone, one page mid-processing.
    await p.db.query(`select public.scraping_session_action($1, 'start', now())`, [session.id]);
    await p.db.query(
      `update public.scraping_sessions set worker_id = 'dead', heartbeat_at = now() - interval '10 minutes' where id = $1`,
      [session.id],
    );
    await p.db.query(
      `update public.scraping_pages set status = 'processing', claimed_by = 'dead', claimed_at = now() - interval '10 minutes',
       attempts = 1 where id = $1`,
      [session.pages[0].id],
    );
    const denied = await call(p, "scrape-session-manager/tick", owner.accessToken, {});
    assert.equal(denied.status, 403, "only the scheduler (service role) ticks");
    // What pg_cron runs every minute (the migration's job, through pg_net and Vault), run now.
    await p.db.query(
      `select vault.create_secret($1, 'project_url') where not exists (select 1 from vault.secrets where name = 'project_url')`,
      [p.url],
    );
    await p.db.query(
      `select vault.create_secret($1, 'service_role_key')
      where not exists (select 1 from vault.secrets where name = 'service_role_key')`,
      [p.config.serviceRoleKey],
    );
    const [job] = await q(
      p,
      `select command, schedule from cron.job where jobname = 'scrape-session-manager-tick'`,
    );
    assert.equal(job.schedule, "* * * * *");
    await p.db.query(job.command);
    for (let i = 0; i < 300 && !activeRuns.has(session.id); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await settled(session.id), "completed");
    const pages = await q(
      p,
      `select status, attempts from public.scraping_pages where session_id = $1 order by position`,
      [session.id],
    );
    assert.deepEqual(pages.map((r) => r.status), Array(5).fill("completed"));
    assert.equal(pages[0].attempts, 2, "the dead runner's page was claimed again");
    assert.equal(site.hits.get("/tiles/2"), before + 1);
    const idle = await call(p, "scrape-session-manager/tick", p.config.serviceRoleKey, {});
    assert.deepEqual(idle.body, { success: true, resumed: [] }, "nothing left to resume");

    // Two runners started at once on one session: one holds it, the other gets nothing.
    const twice = await createSession(owner, ws, [6, 7, 8, 9].map((i) => `${site.origin}/tiles/${i}`));
    await p.db.query(`select public.scraping_session_action($1, 'start', now())`, [twice.id]);
    const hitsBefore = [6, 7, 8, 9].map((i) => site.hits.get(`/tiles/${i}`) ?? 0);
    const service = createClient(p.url, p.config.serviceRoleKey, {
      auth: { persistSession: false, autoRefreshToken: false },
    });
    const ends = await runWithEnv(p.env, () => {
      const deps = runnerDeps(service);
      return Promise.all([runSession(deps, twice.id, "w1"), runSession(deps, twice.id, "w2")]);
    });
    assert.deepEqual([...ends].sort(), ["completed", "not_claimed"]);
    [6, 7, 8, 9].forEach((i, k) => assert.equal(site.hits.get(`/tiles/${i}`), hitsBefore[k] + 1));
  },
);

platformTest(
  "product creation is retried with backoff; a page's model answer is validated and retried once",
  async (p) => {
    const site = await siteFor(p);
    const owner = await createUser(p, "scrape-flaky");
    await grant(p, owner.id, 10);
    const ws = await createWorkspace(p, owner.id);
    const session = await createSession(owner, ws, [
      `${site.origin}/tiles/5`,
      `${site.origin}/text/1`,
      `${site.origin}/text/2`,
    ]);
    await flakyProducts(p, ws, 2);

    const one = await call(p, "scrape-single-page", owner.accessToken, {
      pageUrl: `${site.origin}/tiles/5`,
      sessionId: session.id,
      pageId: session.pages[0].id,
      options: {},
    });
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.equal(one.body.success, true);
    assert.equal(one.body.pageId, session.pages[0].id);
    assert.equal(one.body.materialsFound, 1);
    assert.equal(one.body.productsCreated, 1);
    assert.equal(one.body.error, null);
    assert.equal(typeof one.body.processingTimeMs, "number");
    const [mat] = await q(
      p,
      `select status, import_attempts, product_id from public.scraped_materials_temp where page_id = $1`,
      [
        session.pages[0].id,
      ],
    );
    assert.equal(mat.status, "imported");
    assert.equal(mat.import_attempts, 3, "two failures, then the third attempt");

    // The model: first answer malformed, the corrective retry valid (the caller's schema is checked).
    const llm = p.sandbox!.get("anthropic");
    llm.reset();
    llm.reply(
      "Sure! Here are the products: none",
      {
        toolUse: [{
          name: "submit_materials",
          input: { materials: [{ name: "Oak Plank 1", price: 41, finish: "brushed" }] },
        }],
      },
    );
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, price: { type: "number" }, finish: { type: "string" } },
      required: ["name", "finish"],
    };
    const viaLlm = await call(p, "scrape-single-page", owner.accessToken, {
      pageUrl: `${site.origin}/text/1`,
      sessionId: session.id,
      pageId: session.pages[1].id,
      options: { prompt: "Extract oak planks", systemPrompt: "You are precise.", schema, timeout: 5000 },
    });
    assert.equal(viaLlm.body.success, true, JSON.stringify(viaLlm.body));
    assert.equal(viaLlm.body.method, "llm");
    assert.equal(viaLlm.body.materialsFound, 1);
    const sent = llm.captures.requests().filter((r) => r.path === "/v1/messages");
    assert.equal(sent.length, 2);
    const second = sent[1].body as Json;
    assert.equal(second.system, "You are precise.");
    assert.match(second.messages[0].content, /Extract oak planks/);
    assert.deepEqual(second.tool_choice, { type: "tool", name: "submit_materials" });
    assert.match(second.messages[2].content, /rejected: the model did not call submit_materials/);
    const [m] = await q(
      p,
      `select name, price::text, data from public.scraped_materials_temp where page_id = $1`,
      [session.pages[1].id],
    );
    assert.equal(m.name, "Oak Plank 1");
    assert.equal(m.price, "41.0000");
    assert.equal(m.data.finish, "brushed");

    // Twice malformed (the second misses a required field of the schema): the page fails, reported.
    llm.reset();
    llm.reply("not json", {
      toolUse: [{ name: "submit_materials", input: { materials: [{ name: "Oak Plank 2" }] } }],
    });
    const bad = await call(p, "scrape-single-page", owner.accessToken, {
      pageUrl: `${site.origin}/text/2`,
      sessionId: session.id,
      pageId: session.pages[2].id,
      options: { schema },
    });
    assert.equal(bad.status, 200);
    assert.equal(bad.body.success, false);
    assert.match(bad.body.error, /answer was unusable 2 times \(materials\.0\.finish/);
    const [page] = await q(p, `select status, error from public.scraping_pages where id = $1`, [
      session.pages[2].id,
    ]);
    assert.equal(page.status, "failed");

    // A database failing every time: after 1 + 3 attempts the material is marked failed with the error.
    const ws2 = await createWorkspace(p, owner.id, {}, "Always failing");
    await flakyProducts(p, ws2, 100);
    const s2 = await createSession(owner, ws2, [`${site.origin}/tiles/6`]);
    const failing = await call(p, "scrape-single-page", owner.accessToken, {
      pageUrl: `${site.origin}/tiles/6`,
      sessionId: s2.id,
      pageId: s2.pages[0].id,
    });
    assert.equal(failing.body.productsCreated, 0);
    const [lost] = await q(
      p,
      `select status, import_attempts, error from public.scraped_materials_temp where session_id = $1`,
      [s2.id],
    );
    assert.equal(lost.status, "failed");
    assert.equal(lost.import_attempts, 4);
    assert.match(lost.error, /flaky product insert \(test\)/);

    // Bad input: an unusable schema, a page of another session, a URL that is not the page's.
    const badSchema = await call(p, "scrape-single-page", owner.accessToken, {
      pageUrl: `${site.origin}/tiles/6`,
      sessionId: s2.id,
      pageId: s2.pages[0].id,
      options: { schema: { type: "no-such-type" } },
    });
    assert.equal(badSchema.status, 400);
    const wrongPage = await call(p, "scrape-single-page", owner.accessToken, {
      pageUrl: `${site.origin}/tiles/5`,
      sessionId: s2.id,
      pageId: session.pages[0].id,
    });
    assert.equal(wrongPage.status, 404);
    const wrongUrl = await call(p, "scrape-single-page", owner.accessToken, {
      pageUrl: `${site.origin}/tiles/7`,
      sessionId: s2.id,
      pageId: s2.pages[0].id,
    });
    assert.equal(wrongUrl.status, 400);
    assert.match(wrongUrl.body.error, /pageUrl/);
  },
);

platformTest(
  "SSRF: loopback, metadata and private targets are refused unless configuration allows the host",
  async (p) => {
    const site = await siteFor(p);
    const u = await createUser(p, "scrape-ssrf");
    const port = Number(site.host.split(":")[1]);
    for (
      const url of [
        `http://127.0.0.1:${port + 1}/`, // loopback on another port: not the allowed host:port
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.7/admin",
        "http://localhost:8080/",
        "http://[::1]/",
        `${site.origin}/redirect-metadata`, // the allowed host redirecting to the metadata address
      ]
    ) {
      const res = await call(p, "scrape-preview", u.accessToken, { url });
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "unsafe_url", url);
    }
    const sitemap = await call(p, "parse-sitemap", u.accessToken, { url: "http://10.1.2.3/sitemap.xml" });
    assert.equal(sitemap.status, 400);
    assert.equal((await call(p, "scrape-preview", u.accessToken, { url: "file:///etc/passwd" })).status, 400);

    // The allowed host itself works; robots.txt still applies there.
    const ok = await call(p, "scrape-preview", u.accessToken, { url: `${site.origin}/tiles/2` });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.title, "Ceramic Tile 2 | Example Materials");
    assert.deepEqual(ok.body.products.map((x: Json) => [x.name, x.price, x.currency, x.source]), [
      ["Ceramic Tile 2", "12.50", "EUR", "json-ld"],
    ]);
    assert.deepEqual(ok.body.structuredData, { jsonLd: 1, microdata: 0, openGraph: 0 });
    const robots = await call(p, "scrape-preview", u.accessToken, { url: `${site.origin}/private/1` });
    assert.equal(robots.status, 422);
    assert.equal(robots.body.code, "robots_disallowed");

    // A session page on a private address fails with the refusal; nothing is fetched from it.
    const ws = await createWorkspace(p, u.id);
    const session = await createSession(u, ws, ["http://10.0.0.9/product", `${site.origin}/stone/1`]);
    await call(p, "scrape-session-manager", u.accessToken, { sessionId: session.id, action: "start" });
    assert.equal(await settled(session.id), "completed");
    const [refused] = await q(p, `select status, error from public.scraping_pages where id = $1`, [
      session.pages[0].id,
    ]);
    assert.equal(refused.status, "failed");
    assert.match(refused.error, /Refused 10\.0\.0\.9/);
    const direct = await call(p, "scrape-single-page", u.accessToken, {
      pageUrl: "http://10.0.0.9/product",
      sessionId: session.id,
      pageId: session.pages[0].id,
    });
    assert.equal(direct.status, 400);
    assert.equal(direct.body.code, "unsafe_url");
  },
);

platformTest(
  "tenancy: outsiders cannot see or drive another workspace's sessions; viewers cannot drive",
  async (p) => {
    const site = await siteFor(p);
    const owner = await createUser(p, "scrape-t-owner");
    const viewer = await createUser(p, "scrape-t-viewer");
    const outsider = await createUser(p, "scrape-t-outsider");
    const ws = await createWorkspace(p, owner.id, { [viewer.id]: "viewer" });
    await createWorkspace(p, outsider.id);
    const session = await createSession(owner, ws, [`${site.origin}/tiles/8`]);

    for (const action of ["start", "pause", "resume", "stop"]) {
      const res = await call(p, "scrape-session-manager", outsider.accessToken, {
        sessionId: session.id,
        action,
      });
      assert.equal(res.status, 404, `${action}: ${JSON.stringify(res.body)}`);
    }
    const byViewer = await call(p, "scrape-session-manager", viewer.accessToken, {
      sessionId: session.id,
      action: "start",
    });
    assert.equal(byViewer.status, 403);
    assert.equal(
      (await call(p, "scrape-single-page", outsider.accessToken, {
        pageUrl: `${site.origin}/tiles/8`,
        sessionId: session.id,
        pageId: session.pages[0].id,
      })).status,
      404,
    );
    for (
      const action of ["process_scraping_session", "retry_scraping_session", "get_scraping_session_status"]
    ) {
      const res = await gateway(p, outsider.accessToken, action, { session_id: session.id });
      assert.equal(res.status, 404, `${action}: ${JSON.stringify(res.body)}`);
    }
    assert.equal(
      (await gateway(p, viewer.accessToken, "process_scraping_session", { session_id: session.id })).status,
      403,
    );
    assert.equal(
      (await gateway(p, viewer.accessToken, "get_scraping_session_status", { session_id: session.id }))
        .status,
      200,
    );
    const batch = await call(p, "batch-update-sessions", outsider.accessToken, {
      sessionIds: [session.id],
      action: "stop",
    });
    assert.equal(batch.status, 200);
    assert.deepEqual(batch.body, {
      success: false,
      results: [{ sessionId: session.id, success: false, error: "Scraping session not found" }],
      succeeded: 0,
      failed: 1,
    });
    // Through /rest/v1: nothing to read, no page can be slipped into the session, no status write.
    const read = await outsider.client.from("scraping_sessions").select("id").eq("id", session.id);
    assert.deepEqual(read.data, []);
    const slip = await outsider.client.from("scraping_pages").insert({
      session_id: session.id,
      url: `${site.origin}/x`,
    });
    assert.ok(slip.error, "an outsider cannot add pages");
    const status = await owner.client.from("scraping_sessions").update({ status: "completed" }).eq(
      "id",
      session.id,
    );
    assert.ok(status.error, "status is not a column users write");
    const [row] = await q(p, `select status from public.scraping_sessions where id = $1`, [session.id]);
    assert.equal(row.status, "pending");
    // A workspace id in the body is no key: creating a template in a foreign workspace is refused.
    const tpl = await call(p, "field-templates", outsider.accessToken, {
      workspaceId: ws,
      name: "Stolen",
      fields: [{ name: "price", type: "number" }],
    });
    assert.equal(tpl.status, 404);
  },
);

platformTest("batch updates, field templates, suggest-fields and the process action", async (p) => {
  const site = await siteFor(p);
  const owner = await createUser(p, "scrape-misc");
  await grant(p, owner.id, 10);
  const ws = await createWorkspace(p, owner.id);
  const a = await createSession(owner, ws, [`${site.origin}/brick/1`]);
  const b = await createSession(owner, ws, [`${site.origin}/brick/2`]);

  const renamed = await call(p, "batch-update-sessions", owner.accessToken, {
    sessionIds: [a.id, b.id],
    updates: { name: "Bricks", options: { prompt: "bricks only" } },
  });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  assert.deepEqual(renamed.body, {
    success: true,
    results: [{ sessionId: a.id, success: true, status: "pending" }, {
      sessionId: b.id,
      success: true,
      status: "pending",
    }],
    succeeded: 2,
    failed: 0,
  });
  const both = await call(p, "batch-update-sessions", owner.accessToken, {
    sessionIds: [a.id],
    action: "start",
    updates: { name: "x" },
  });
  assert.equal(both.status, 400);
  const started = await call(p, "batch-update-sessions", owner.accessToken, {
    sessionIds: [a.id],
    action: "start",
  });
  assert.equal(started.body.results[0].status, "running");
  assert.equal(await settled(a.id), "completed");

  // process_scraping_session starts a pending session through the gateway.
  const processed = await gateway(p, owner.accessToken, "process_scraping_session", { session_id: b.id });
  assert.equal(processed.status, 202, JSON.stringify(processed.body));
  assert.equal(processed.body.data.status, "running");
  assert.equal(await settled(b.id), "completed");
  const names = (await q(p, `select name from public.products where workspace_id = $1 order by name`, [ws]))
    .map((r) => r.name);
  assert.deepEqual(names, ["Clay Brick 1", "Clay Brick 2"]);

  // Field templates: create, list, duplicate name, bad fields.
  const body = {
    workspaceId: ws,
    name: "Tiles",
    fields: [{ name: "price", type: "number", required: true }, { name: "finish", type: "string" }],
    prompt: "Tile data",
  };
  const created = await call(p, "field-templates", owner.accessToken, body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.template.name, "Tiles");
  assert.deepEqual(created.body.template.schema.required, ["name", "price"]);
  assert.equal((await call(p, "field-templates", owner.accessToken, body)).status, 409);
  assert.equal(
    (await call(p, "field-templates", owner.accessToken, { ...body, name: "B", fields: [] })).status,
    400,
  );
  const listed = await fetch(`${p.url}/functions/v1/field-templates?workspaceId=${ws}`, {
    headers: { authorization: `Bearer ${owner.accessToken}` },
  });
  const list = await listed.json();
  assert.equal(listed.status, 200);
  assert.deepEqual(list.templates.map((t: Json) => t.name), ["Tiles"]);

  // suggest-fields: structured fields first, then the model's.
  const llm = p.sandbox!.get("anthropic");
  llm.reset();
  llm.reply({
    toolUse: [{
      name: "submit_fields",
      input: { fields: [{ name: "glaze", type: "string", description: "Glaze type", example: "matt" }] },
    }],
  });
  const sug = await call(p, "suggest-fields", owner.accessToken, {
    url: `${site.origin}/tiles/4`,
    context: "wall tiles",
  });
  assert.equal(sug.status, 200, JSON.stringify(sug.body));
  assert.equal(sug.body.llmUsed, true);
  const byName = Object.fromEntries(sug.body.fields.map((f: Json) => [f.name, f]));
  assert.equal(byName.price.source, "structured");
  assert.equal(byName.price.example, "14.50");
  assert.equal(byName.glaze.source, "llm");
});
