/**
 * The edge features on the model layer (packages/shared/llm): SEO (seo-pipeline, seo-plan),
 * scraping (suggest-fields, scrape-single-page), generate-social-content and ai-rerank.
 *
 * For each family, with the model stand-in scripted:
 * - unreachable (the provider fails twice: the SDK's retry too) answers 502 model_unavailable;
 * - a malformed answer twice (a forced tool call whose input misses the schema, the retry too)
 *   answers 502 model_bad_output;
 * and in both cases the debit is refunded exactly once (one refund row pointing at the one
 * debit, the balance back) and nothing is half-written (no plan, draft or article field on the
 * failed seo_articles row; no scraped material for the page; re-rank spends no credits and
 * keeps its global budget to one model call per request).
 * With NOTHING scripted, the sandbox model's answers carry each feature through: a whole SEO
 * article, suggested fields and a page's materials, three caption variants, a full ranking.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { balance, createTeam, grant } from "../helpers/team.ts";
import { call, createSession, type Json, q, siteFor } from "../scraping/helpers.ts";
import { post } from "../seo/helpers.ts";

function model(p: Platform) {
  const s = p.sandbox!.get("anthropic");
  s.reset();
  return s;
}

type Stand = ReturnType<typeof model>;

/** The two scripted failures, each with the code it must produce. */
const FAILURES: [string, (s: Stand, tool: string) => void, string][] = [
  ["unreachable", (s) => s.failNext(500, { times: 2 }), "model_unavailable"],
  [
    "malformed twice",
    (s, tool) =>
      s.reply({ toolUse: [{ name: tool, input: { wrong: 1 } }] }, {
        toolUse: [{ name: tool, input: { wrong: 1 } }],
      }),
    "model_bad_output",
  ],
];

/** The user's ledger: every debit of `action` and every refund, with what it refunds. */
async function ledger(p: Platform, userId: string, action: string) {
  const debits = await q(
    p,
    `select id, amount::float8 as amount from public.credit_transactions
      where user_id = $1 and kind = 'debit' and action = $2 order by created_at, id`,
    [userId, action],
  );
  const refunds = await q(
    p,
    `select refund_of, amount::float8 as amount from public.credit_transactions
      where user_id = $1 and kind = 'refund' and refund_of = any($2::uuid[]) order by created_at, id`,
    [userId, debits.map((d: Json) => d.id)],
  );
  return { debits, refunds };
}

/** Each debit refunded exactly once, in full. */
function refundedOnce(l: { debits: Json[]; refunds: Json[] }, label: string): void {
  assert.ok(l.debits.length > 0, `${label}: something was debited`);
  assert.deepEqual(
    l.refunds.map((r: Json) => [r.refund_of, r.amount]).sort(),
    l.debits.map((d: Json) => [d.id, -d.amount]).sort(),
    `${label}: every debit refunded exactly once`,
  );
}

const SEO_BODY = {
  topic: "Choosing oak flooring for a family home",
  target_keyword: "oak flooring",
  content_brief: { contentType: "guide", targetAudience: "home owners", targetWordCount: 400 },
  skip_research: true,
  existing_research: { search_volume: 900, competitors: [], related_keywords: [] },
  auto_fix: false,
};

// ---- SEO -----------------------------------------------------------------------------------------

platformTest(
  "SEO: an unreachable or malformed model fails the run, refunded once, nothing half-written",
  async (p) => {
    const s = model(p);
    const user = await createUser(p, "edge-seo-fail");
    const ws = await createWorkspace(p, user.id);
    await grant(p, user.id, 20);
    for (const [label, script, code] of FAILURES) {
      s.reset();
      script(s, "submit_plan");
      const r = await post(p, "seo-pipeline", user.accessToken, { ...SEO_BODY, workspace_id: ws });
      assert.equal(r.status, 502, `${label}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code, label);
      assert.equal(s.captures.requests().length, 2, `${label}: one call and its one retry`);
      const [row] = await q(p, `select * from public.seo_articles where id = $1`, [
        r.body.details.article_id,
      ]);
      assert.equal(row.status, "failed", label);
      assert.equal(row.error_stage, "plan", label);
      assert.match(row.error, new RegExp(`^${code}: `), label);
      for (const f of ["plan", "draft", "analysis", "title", "content_markdown", "content_html", "slug"]) {
        assert.equal(row[f], null, `${label}: ${f}`);
      }
    }
    refundedOnce(await ledger(p, user.id, "seo_plan"), "seo_plan");
    assert.equal(await balance(p, user.id), 20);

    // The sub-function too: seo-plan debits 1 credit and refunds it once.
    for (const [label, script, code] of FAILURES) {
      s.reset();
      script(s, "submit_plan");
      const r = await post(p, "seo-plan", user.accessToken, {
        topic: "x",
        target_keyword: "oak flooring",
        keyword_research: { competitors: [] },
      });
      assert.equal(r.status, 502, `${label}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code, label);
    }
    const l = await ledger(p, user.id, "seo_plan");
    assert.equal(l.debits.length, 4);
    refundedOnce(l, "seo-plan");
    assert.equal(await balance(p, user.id), 20);
  },
);

platformTest("SEO: unscripted, the sandbox model writes a whole article", async (p) => {
  model(p);
  const user = await createUser(p, "edge-seo-ok");
  const ws = await createWorkspace(p, user.id);
  await grant(p, user.id, 10);
  const r = await post(p, "seo-pipeline", user.accessToken, { ...SEO_BODY, workspace_id: ws });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const a = r.body.data.article;
  assert.equal(a.status, "completed");
  assert.ok(a.title && a.contentMarkdown && a.contentHtml && a.slug, JSON.stringify(a).slice(0, 300));
  assert.equal(typeof a.optimize.contentScore, "number");
  assert.equal(await balance(p, user.id), 10 - 1 - 3 - 1, "plan, write, analyze");
});

// ---- scraping ------------------------------------------------------------------------------------

platformTest(
  "scraping: an unreachable or malformed model is refunded once; the page keeps no material",
  async (p) => {
    const site = await siteFor(p);
    const s = model(p);
    const u = await createUser(p, "edge-scrape-fail");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 10);
    for (const [label, script, code] of FAILURES) {
      s.reset();
      script(s, "submit_fields");
      const r = await call(p, "suggest-fields", u.accessToken, { url: `${site.origin}/text/1` });
      assert.equal(r.status, 502, `${label}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code, label);
    }
    refundedOnce(await ledger(p, u.id, "suggest_fields"), "suggest_fields");

    // A session's page: the failure is the page's outcome (failed, with the code's message), the
    // credit comes back once, and no material of the page is stored.
    const session = await createSession(u, ws, [`${site.origin}/text/1`, `${site.origin}/text/2`]);
    for (const [i, [label, script, code]] of FAILURES.entries()) {
      s.reset();
      script(s, "submit_materials");
      const page = session.pages[i];
      const r = await call(p, "scrape-single-page", u.accessToken, {
        pageUrl: page.url,
        sessionId: session.id,
        pageId: page.id,
      });
      assert.equal(r.status, 200, `${label}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.success, false, label);
      assert.equal(r.body.materialsFound, 0, label);
      assert.match(
        r.body.error,
        code === "model_unavailable" ? /the model provider answered HTTP 500/ : /answer was unusable 2 times/,
        label,
      );
      const [row] = await q(p, `select status, error from public.scraping_pages where id = $1`, [page.id]);
      assert.equal(row.status, "failed", label);
      const mats = await q(p, `select id from public.scraped_materials_temp where page_id = $1`, [page.id]);
      assert.deepEqual(mats, [], `${label}: no material stored`);
    }
    refundedOnce(await ledger(p, u.id, "scraping_page_extraction"), "scraping_page_extraction");
    assert.equal(await balance(p, u.id), 10);
  },
);

platformTest(
  "scraping: unscripted, the sandbox model suggests fields and reads a page's product",
  async (p) => {
    const site = await siteFor(p);
    model(p);
    const u = await createUser(p, "edge-scrape-ok");
    const ws = await createWorkspace(p, u.id);
    await grant(p, u.id, 10);
    const sug = await call(p, "suggest-fields", u.accessToken, { url: `${site.origin}/text/3` });
    assert.equal(sug.status, 200, JSON.stringify(sug.body));
    assert.equal(sug.body.llmUsed, true);
    assert.ok(sug.body.fields.length > 0);
    const session = await createSession(u, ws, [`${site.origin}/text/3`]);
    const page = session.pages[0];
    const r = await call(p, "scrape-single-page", u.accessToken, {
      pageUrl: page.url,
      sessionId: session.id,
      pageId: page.id,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true, JSON.stringify(r.body));
    assert.equal(r.body.method, "llm");
    assert.ok(r.body.materialsFound >= 1, JSON.stringify(r.body));
    // The page: "<h1>Oak Plank 3</h1><p>Solid oak plank, brushed finish. Price: 43.00 EUR ...</p>".
    const mats = await q(
      p,
      `select name, price::text from public.scraped_materials_temp where page_id = $1`,
      [page.id],
    );
    assert.ok(
      mats.some((m: Json) => /oak plank/i.test(m.name) && m.price === "43.0000"),
      JSON.stringify(mats),
    );
    assert.equal(await balance(p, u.id), 8, "one credit per model call");
  },
);

// ---- social content ------------------------------------------------------------------------------

const SOCIAL = {
  topic: "Spring launch of the oak range",
  platform: "instagram",
  tone: "warm",
  product_info: { name: "Rustic Oak 190", category: "flooring" },
  include_hashtags: true,
  hashtag_count: 3,
};

platformTest("generate-social-content: an unreachable or malformed model is refunded once", async (p) => {
  const s = model(p);
  const t = await createTeam(p, { prefix: "edge-soc-fail" });
  await grant(p, t.member.id, 5);
  for (const [label, script, code] of FAILURES) {
    s.reset();
    script(s, "submit_variants");
    const r = await post(p, "generate-social-content", t.member.accessToken, {
      ...SOCIAL,
      workspace_id: t.ws,
    });
    assert.equal(r.status, 502, `${label}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, code, label);
    assert.equal(s.captures.requests().length, 2, label);
  }
  refundedOnce(await ledger(p, t.member.id, "social_content_generation"), "social_content_generation");
  assert.equal(await balance(p, t.member.id), 5);
});

platformTest("generate-social-content: unscripted, the sandbox model gives three variants", async (p) => {
  model(p);
  const t = await createTeam(p, { prefix: "edge-soc-ok" });
  await grant(p, t.member.id, 5);
  const r = await post(p, "generate-social-content", t.member.accessToken, { ...SOCIAL, workspace_id: t.ws });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.variants.length, 3);
  for (const v of r.body.variants as Json[]) {
    assert.equal(v.hashtags.length, 3);
    assert.ok(v.caption.length > 0 && v.character_count <= 2200);
    assert.equal(v.text, `${v.caption}\n\n${v.hashtags.join(" ")}`);
  }
  assert.equal(r.body.credits_used, 2);
  assert.equal(await balance(p, t.member.id), 3);
});

// ---- re-rank -------------------------------------------------------------------------------------

const RESULTS = [
  { id: "p1", name: "Oak parquet 14 mm", description: "Engineered oak flooring", relevanceScore: 0.9 },
  { id: "p2", name: "Porcelain tile 60x60", description: "Matt grey floor tile", relevanceScore: 0.8 },
  { id: "p3", name: "Tile adhesive C2TE", description: "Cement adhesive for porcelain", relevanceScore: 0.7 },
];

platformTest(
  "ai-rerank: an unreachable or malformed model is the layer's 502, one global budget hit each",
  async (p) => {
    const s = model(p);
    await p.db.query(`delete from public.rate_limit_windows where scope = 'ai-rerank:global'`);
    for (const [label, script, code] of FAILURES) {
      s.reset();
      script(s, "submit_ranking");
      const r = await post(p, "ai-rerank", null, { query: "porcelain tile adhesive", results: RESULTS });
      assert.equal(r.status, 502, `${label}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code, label);
      assert.equal(s.captures.requests().length, 2, label);
    }
    // A ranking that is not a permutation twice is bad output too (the check, not the schema).
    s.reset();
    const partial = { toolUse: [{ name: "submit_ranking", input: { ranked_ids: ["p1"] } }] };
    s.reply(partial, partial);
    const r = await post(p, "ai-rerank", null, { query: "tiles", results: RESULTS });
    assert.equal(r.status, 502);
    assert.equal(r.body.code, "model_bad_output");
    assert.match(r.body.error, /2 id\(s\) missing/);
    const [budget] = await q(
      p,
      `select sum(hits)::int as hits from public.rate_limit_windows where scope = 'ai-rerank:global'`,
    );
    assert.equal(budget.hits, 3, "one model-call budget hit per request, whatever its retries");
  },
);

platformTest("ai-rerank: unscripted, the sandbox model ranks every candidate once", async (p) => {
  model(p);
  const r = await post(p, "ai-rerank", null, {
    query: "porcelain tile adhesive",
    results: RESULTS,
    includeExplanations: true,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.rerankedResults.map((x: Json) => x.id).sort(), ["p1", "p2", "p3"]);
  assert.equal(r.body.rerankedResults[0].id, "p3", "the adhesive matches the query best");
  assert.deepEqual(r.body.warnings, []);
  assert.ok(r.body.usage.inputTokens > 0 && r.body.cost > 0);
});
