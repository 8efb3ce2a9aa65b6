/**
 * Unknown body keys are refused (issue 31, docs/request-bodies.md): for each function, a valid
 * body passes validation (the handler answers, whatever it decides), and the same body with one
 * made-up key `bogus` (at the top, or inside a nested parameter object) is a 400
 * validation_failed whose message names the key; nothing is written. Through HTTP, as a client.
 *
 * Valid bodies are chosen so the handler stops early and cheaply: ids nobody has (404), a URL off
 * the public internet (400 unsafe_url), or a caller without credits (402).
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createUser, createWorkspace, platformTest, setPlatformRole } from "../helpers/platform.ts";
import { planInput } from "../../fixtures/seo.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function call(
  p: Platform,
  token: string,
  fn: string,
  body: unknown,
  method = "POST",
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${p.url}/functions/v1/${fn}`, {
    method,
    headers: {
      apikey: p.config.anonKey,
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const nobody = () => crypto.randomUUID();

interface Case {
  /** function name plus path */
  fn: string;
  method?: string;
  body: Json;
  /** What the handler answers the valid body with (never a validation_failed 400). */
  status: number;
  /** Where `bogus` goes besides the top level: a nested parameter object's path, e.g. ["items", 0]. */
  nested?: (string | number)[];
}

function withKey(body: Json, path: (string | number)[]): Json {
  const copy = structuredClone(body);
  let at = copy;
  for (const k of path) at = at[k];
  at.bogus = 1;
  return copy;
}

async function cases(p: Platform) {
  const user = await createUser(p, "unknown-keys");
  await setPlatformRole(p, user.id, "admin"); // the CRM functions and crm-users-api
  const ws = await createWorkspace(p, user.id, {}, "Unknown keys");
  const plan = { ...planInput("oak flooring"), target_keyword: "oak flooring" };
  const list: Case[] = [
    { fn: "batch-update-sessions", body: { sessionIds: [nobody()], updates: { name: "n" } }, status: 200 },
    { fn: "batch-update-sessions", body: { sessionIds: [nobody()], action: "stop" }, status: 200 },
    { fn: `crm-users-api/${nobody()}`, method: "PATCH", body: { status: "active" }, status: 404 },
    {
      fn: "price-monitoring",
      body: { action: "start_monitoring", productId: nobody(), monitoringSettings: { frequency: "daily" } },
      status: 404,
      nested: ["monitoringSettings"],
    },
    {
      fn: "recommendations-api/track-interaction",
      body: { workspace_id: nobody(), material_id: nobody(), interaction_type: "view", metadata: { any: 1 } },
      status: 404,
    },
    {
      fn: "social-analytics",
      body: { action: "get_post_analytics", post_ids: [nobody()], workspace_id: nobody() },
      status: 404,
    },
    {
      fn: "social-analytics",
      body: { action: "get_account_insights", social_account_id: nobody() },
      status: 404,
    },
    {
      fn: "social-analytics",
      body: { action: "get_best_time", social_account_id: nobody(), platform: "instagram" },
      status: 404,
    },
    {
      fn: "social-oauth",
      body: { action: "connect", platform: "instagram", workspace_id: nobody() },
      status: 404,
    },
    { fn: "social-oauth", body: { action: "disconnect", social_account_id: nobody() }, status: 404 },
    {
      fn: "social-publish",
      body: { action: "publish_now", social_account_id: nobody(), workspace_id: nobody(), content: "Hi" },
      status: 404,
    },
    { fn: "crm-companies-api", body: { name: "Unknown keys Co" }, status: 201 },
    { fn: `crm-companies-api/${nobody()}`, method: "PATCH", body: { city: "Lyon" }, status: 404 },
    {
      fn: `crm-companies-api/${nobody()}/contacts`,
      body: { contact_id: nobody(), role: "Buyer" },
      status: 404,
    },
    { fn: "crm-contacts-api", body: { name: "Unknown keys contact" }, status: 201 },
    { fn: `crm-contacts-api/${nobody()}`, method: "PATCH", body: { phone: "+331234" }, status: 404 },
    { fn: `crm-contacts-api/${nobody()}/link-user`, body: { userId: user.id }, status: 404 },
    {
      fn: "crm-contacts-api/bulk-link",
      body: { links: [{ contactId: nobody(), userId: user.id }] },
      status: 200,
    },
    {
      fn: "quotes-api/quote-requests",
      body: { quote_id: nobody(), workspace_id: nobody(), notes: "n" },
      status: 404,
    },
    {
      fn: `quotes-api/quote-requests/${nobody()}`,
      method: "PATCH",
      body: { status: "updated" },
      status: 404,
    },
    { fn: `quotes-api/proposals/${nobody()}`, method: "PATCH", body: { status: "accepted" }, status: 404 },
    { fn: `quotes-api/quote-items/${nobody()}`, method: "PATCH", body: { unit_price: 12.5 }, status: 404 },
    {
      fn: "generate-social-content",
      body: { topic: "Oak", platform: "instagram", product_info: { name: "Oak plank" }, workspace_id: ws },
      status: 402,
      nested: ["product_info"],
    },
    {
      fn: "generate-social-image",
      body: { prompt: "An oak floor", image_type: "interior", aspect_ratio: "4:5", workspace_id: ws },
      status: 402,
    },
    {
      fn: "generate-vr-world",
      body: { source_image_url: "http://127.0.0.1/room.jpg", prompt: "A calm room", workspace_id: ws },
      status: 400,
    },
    {
      fn: "seo-research",
      body: { topic: "Oak floors", target_keyword: "oak flooring", user_id: user.id },
      status: 402,
    },
    {
      fn: "seo-plan",
      body: {
        topic: "Oak floors",
        target_keyword: "oak flooring",
        keyword_research: {},
        content_brief: { toneOfVoice: "friendly" },
      },
      status: 402,
      nested: ["content_brief"],
    },
    { fn: "seo-write", body: { article_plan: plan, keyword_research_summary: "High volume." }, status: 402 },
    {
      fn: "seo-analyze",
      body: { content_markdown: "# Oak flooring\n\nText.", article_plan: plan, auto_fix: false },
      status: 402,
    },
    {
      fn: "seo-pipeline",
      body: {
        topic: "Oak floors",
        target_keyword: "oak flooring",
        content_brief: { toneOfVoice: "friendly" },
      },
      status: 402,
      nested: ["content_brief"],
    },
    { fn: "generate-quote-pdf", body: { quote_id: nobody() }, status: 404 },
    { fn: "parse-sitemap", body: { url: "http://127.0.0.1/sitemap.xml", maxUrls: 10 }, status: 400 },
    { fn: "scrape-preview", body: { url: "http://127.0.0.1/page" }, status: 400 },
    {
      fn: "field-templates",
      body: { workspace_id: ws, name: "Tiles", fields: [{ name: "color", type: "string" }] },
      status: 201,
      nested: ["fields", 0],
    },
    {
      fn: "agent-chat",
      body: {
        messages: [{ role: "user", content: "Hello" }],
        agentId: "main",
        conversation_id: null,
        context: { workspace_id: ws, source: "test" },
      },
      status: 402,
      nested: ["messages", 0],
    },
  ];
  return { user, ws, list };
}

platformTest(
  "every function refuses an unknown body key with a 400 naming it; valid bodies pass",
  async (p) => {
    const { user, list } = await cases(p);
    const companiesBefore = (await p.db.query(`select id from public.crm_companies`)).rows.length;
    for (const c of list) {
      const where = `${c.method ?? "POST"} ${c.fn}`;
      for (const path of [[], ...(c.nested ? [c.nested] : [])]) {
        const bad = await call(p, user.accessToken, c.fn, withKey(c.body, path), c.method);
        const name = [...path, "bogus"].join(".");
        assert.equal(bad.status, 400, `${where} with ${name}: ${JSON.stringify(bad.body)}`);
        assert.equal(bad.body.code, "validation_failed", where);
        assert.match(bad.body.error, new RegExp(`unknown field "${name.replaceAll(".", "\\.")}"`), where);
      }
      // Every create above was refused: the valid calls below are the only writes.
      if (c.fn === "crm-companies-api") {
        assert.equal((await p.db.query(`select id from public.crm_companies`)).rows.length, companiesBefore);
      }
      const ok = await call(p, user.accessToken, c.fn, c.body, c.method);
      assert.notEqual(ok.body?.code, "validation_failed", `${where}: ${JSON.stringify(ok.body)}`);
      assert.equal(ok.status, c.status, `${where}: ${JSON.stringify(ok.body)}`);
    }
  },
);

platformTest("another action's key is unknown too (social actions take only their own keys)", async (p) => {
  const { user } = await cases(p);
  const r = await call(p, user.accessToken, "social-oauth", {
    action: "disconnect",
    social_account_id: nobody(),
    workspace_id: nobody(),
  });
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'Invalid request body: unknown field "workspace_id"');
});

platformTest("a misspelled key is named first, before the field it misses", async (p) => {
  const { user } = await cases(p);
  const r = await call(p, user.accessToken, "price-monitoring", {
    action: "get_status",
    product_id: nobody(),
  });
  assert.equal(r.status, 400);
  assert.match(r.body.error, /^Invalid request body: unknown field "product_id"; productId: /);
});

platformTest("field-templates: workspace_id, or its first spelling workspaceId; never both", async (p) => {
  const { user, ws } = await cases(p);
  const fields = [{ name: "size", type: "string" }];
  const a = await call(p, user.accessToken, "field-templates", { workspace_id: ws, name: "A", fields });
  assert.equal(a.status, 201, JSON.stringify(a.body));
  assert.equal(a.body.template.workspace_id, ws);
  const b = await call(p, user.accessToken, "field-templates", { workspaceId: ws, name: "B", fields });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  assert.equal(b.body.template.workspace_id, ws);
  const both = await call(p, user.accessToken, "field-templates", {
    workspace_id: ws,
    workspaceId: ws,
    name: "C",
    fields,
  });
  assert.equal(both.status, 400);
  assert.equal(
    both.body.error,
    'Invalid request body: "workspaceId" and "workspace_id" are the same field: send only "workspace_id"',
  );
  for (const q of ["workspace_id", "workspaceId"]) {
    const res = await fetch(`${p.url}/functions/v1/field-templates?${q}=${ws}`, {
      headers: { apikey: p.config.anonKey, authorization: `Bearer ${user.accessToken}` },
    });
    const listed = await res.json();
    assert.equal(res.status, 200, q);
    assert.deepEqual(listed.templates.map((t: Json) => t.name).sort(), ["A", "B"], q);
  }
  const rows = await p.db.query(`select name from public.scraping_field_templates where workspace_id = $1`, [
    ws,
  ]);
  assert.deepEqual(rows.rows.map((r: Json) => r.name).sort(), ["A", "B"]);
});
