/**
 * Tenancy and role attacks by a caller with a valid account, through HTTP only (/rest/v1,
 * /storage/v1, /functions/v1, /auth/v1 and the AI backend), the way a hostile client would.
 *
 * One victim workspace (owner, admin, member, viewer) is seeded once per module through the
 * platform's own APIs (and a few rows as the superuser), with data in every key table: products,
 * the Pricing category and a price list (with its price_entries), a member-level guide, quotes
 * and their lines, a quote request and proposal, a price_lookup audit row, a product price, a
 * merge history, a duplicate detection, credits and usage logs, a notification, a conversation,
 * an AI job and a quote PDF. The outsider owns another workspace.
 *
 * Every attack asserts the refusal the platform documents, and the write attacks also compare a
 * fingerprint of every public table before and after: a refusal that still wrote is a failure.
 */
import { sketchBits } from "../../packages/shared/embeddings/simhash.ts";
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { platformTest } from "../helpers/platform.ts";
import { balance, createTeam, type Team } from "../helpers/team.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Answer {
  status: number;
  body: Json;
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: Json = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

function headers(p: Platform, token: string | null, extra: Record<string, string> = {}) {
  return {
    apikey: p.config.anonKey,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    "content-type": "application/json",
    ...extra,
  };
}

/** /rest/v1 as `token` (null: the anon key alone). Writes ask for return=representation. */
async function rest(
  p: Platform,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${p.url}/rest/v1/${path}`, {
    method,
    headers: headers(p, token, method === "GET" ? {} : { prefer: "return=representation" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return await answer(res);
}

async function rpc(p: Platform, token: string | null, fn: string, args: Record<string, unknown>) {
  return await rest(p, token, "POST", `rpc/${fn}`, args);
}

async function fn(
  p: Platform,
  token: string | null,
  name: string,
  method: string,
  path = "",
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${p.url}/functions/v1/${name}${path}`, {
    method,
    headers: headers(p, token),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return await answer(res);
}

async function gw(p: Platform, token: string | null, action: string, payload: Record<string, unknown>) {
  return await fn(p, token, "ai-gateway", "POST", "", { action, payload });
}

async function gwOk(p: Platform, token: string, action: string, payload: Record<string, unknown>) {
  const r = await gw(p, token, action, payload);
  assert.ok(r.status >= 200 && r.status < 300 && r.body?.success, `${action}: ${JSON.stringify(r)}`);
  return r.body.data;
}

/** The AI backend directly (platform.env.AI_BACKEND_URL). */
async function backend(
  p: Platform,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${p.env.AI_BACKEND_URL}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return await answer(res);
}

function ok(r: Answer, what: string): Json {
  assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A refusal, or a 2xx that touched no row: what RLS gives a filtered write it hides. */
function nothingDone(r: Answer): boolean {
  return r.status >= 400 || (Array.isArray(r.body) && r.body.length === 0);
}

// ---------------------------------------------------------------------------------------------
// JWTs built by hand (WebCrypto), to forge what an attacker could

function b64url(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function hs256(claims: Record<string, unknown>, secret: string): Promise<string> {
  const head = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = b64url(JSON.stringify(claims));
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${head}.${body}`));
  return `${head}.${body}.${b64url(new Uint8Array(sig))}`;
}

function decodePayload(token: string): Record<string, unknown> {
  const part = token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(atob(part + "=".repeat((4 - part.length % 4) % 4)));
}

// ---------------------------------------------------------------------------------------------
// The victim's world, seeded once per module

const PRICE_LIST = `# Mapei price list 2026
Manufacturer: Mapei
All prices in EUR, valid from 2026-01-01

| Art. No. | Description | Unit | 1-49 | 50+ |
|---|---|---|---|---|
| MP-100 | Keraflex Maxi S1 grey 25 kg | bag | 12,50 | 12,00 |
| MP-200 | Ultracolor Plus grout 5 kg | bag | 9,80 | - |
`;

interface World {
  t: Team;
  /** The victim's user ids and workspace id: no row an outsider sees may mention any of them. */
  victimIds: string[];
  pricingCat: string;
  guideCat: string;
  priceDoc: string;
  guideDoc: string;
  /** Products: a (merge target), c and d (a cached duplicate pair), e (plain). */
  products: Record<"a" | "c" | "d" | "e", string>;
  quote: string;
  item: string;
  request: string;
  proposal: string;
  logId: string;
  historyId: string;
  cacheId: string;
  jobId: string;
  conversationId: string;
  pdfPath: string;
  /** A messaging bulk of the victim's workspace, with one queued recipient. */
  bulkId: string;
  /** A product of the outsider's own workspace. */
  outsiderProduct: string;
}

let world: Promise<World> | null = null;

function getWorld(p: Platform): Promise<World> {
  world ??= seed(p);
  return world;
}

async function seed(p: Platform): Promise<World> {
  const t = await createTeam(p, { prefix: "sec", credits: 100, names: ["Victim tiles", "Attacker shop"] });
  const owner = t.owner.accessToken;

  const pricingCat = (await gwOk(p, owner, "kb_create_category", {
    workspace_id: t.ws,
    name: "Pricing",
    slug: "pricing",
    trigger_keyword: "price",
  })).id;
  const guideCat = (await gwOk(p, owner, "kb_create_category", {
    workspace_id: t.ws,
    name: "Guides",
    slug: "guides",
  })).id;
  const priceDoc = (await gwOk(p, owner, "kb_create_document", {
    workspace_id: t.ws,
    title: "Mapei price list 2026",
    category_id: pricingCat,
    status: "published",
    price_doc_type: "price_list",
    content: PRICE_LIST,
  })).id;
  const guideDoc = (await gwOk(p, owner, "kb_create_document", {
    workspace_id: t.ws,
    title: "Laying Keraflex",
    category_id: guideCat,
    status: "published",
    content: "# Laying Keraflex\n\nUse a notched trowel and back-butter large tiles.",
  })).id;

  const made = ok(
    await rest(p, owner, "POST", "products?select=id,name", [
      {
        workspace_id: t.ws,
        name: "Keraflex Maxi S1 grey 25 kg",
        sku: "MP-100",
        metadata: { factory: "Mapei" },
      },
      { workspace_id: t.ws, name: "Keraflex Maxi S1 grey 25kg", sku: null, metadata: { factory: "Mapei" } },
      {
        workspace_id: t.ws,
        name: "Ultracolor Plus grout 5 kg",
        sku: "MP-200",
        metadata: { factory: "Mapei" },
      },
      { workspace_id: t.ws, name: "Ultracolor Plus grout 5kg", sku: null, metadata: { factory: "Mapei" } },
      { workspace_id: t.ws, name: "Marazzi Grande marble look", sku: null, metadata: { factory: "Marazzi" } },
    ]),
    "products",
  ) as { id: string }[];
  const [a, b, c, d, e] = made.map((r) => r.id);

  const historyId = ok(
    await backend(p, owner, "POST", "/api/duplicates/merge", {
      target_product_id: a,
      source_product_ids: [b],
      workspace_id: t.ws,
      merge_reason: "same adhesive",
    }),
    "merge",
  ).history.id;
  const [p1, p2] = [c, d].sort();
  const cacheId = (await p.db.query<{ id: string }>(
    `insert into public.duplicate_detection_cache (workspace_id, product_id_1, product_id_2,
       overall_similarity_score, name_similarity, description_similarity, metadata_similarity, confidence_level)
     values ($1, $2, $3, 0.9, 0.95, 0.8, 1, 'high') returning id`,
    [t.ws, p1, p2],
  )).rows[0].id;

  const quote = ok(
    await rest(p, owner, "POST", "quotes?select=id", {
      workspace_id: t.ws,
      title: "Villa Rossi",
      customer_name: "Rossi",
    }),
    "quote",
  )[0].id;
  const item = ok(
    await rest(p, owner, "POST", "quote_items?select=id", {
      quote_id: quote,
      product_id: a,
      quantity: 10,
      unit_price: 12.5,
    }),
    "quote item",
  )[0].id;
  const logId = ok(
    await rpc(p, owner, "log_agent_tool_call", {
      p_workspace_id: t.ws,
      p_tool_name: "price_lookup",
      p_tool_args: { product_name: "Keraflex", sku: "MP-100" },
      p_result_summary: { matches: 1 },
      p_zero_result: false,
    }),
    "log",
  ) as string;
  ok(
    await rest(p, owner, "POST", "product_prices", {
      workspace_id: t.ws,
      product_id: a,
      list_price: 12.5,
      discount_percent: 15,
      discount_price: 10.63,
      currency: "EUR",
      unit: "bag",
      source_kb_doc_ids: [priceDoc],
      price_lookup_call_id: logId,
    }),
    "product price",
  );
  ok(
    await rest(p, owner, "POST", "kb_doc_attachments", {
      workspace_id: t.ws,
      doc_id: guideDoc,
      product_id: a,
    }),
    "attachment",
  );
  const request = ok(
    await fn(p, t.member.accessToken, "quotes-api", "POST", "/quote-requests", {
      quote_id: quote,
      workspace_id: t.ws,
      notes: "please hurry",
    }),
    "quote request",
  ).data.id;
  const proposal = ok(
    await rest(p, owner, "POST", "proposals?select=id", {
      quote_request_id: request,
      workspace_id: t.ws,
      message: "Our offer",
      amount: 118,
    }),
    "proposal",
  )[0].id;
  const pdfPath = ok(await fn(p, owner, "generate-quote-pdf", "POST", "", { quote_id: quote }), "pdf")
    .pdf_storage_path;

  // Rows only the system writes.
  await p.db.query(
    `insert into public.notifications (user_id, workspace_id, title, message) values ($1, $2, 'Quote accepted', 'x')`,
    [t.owner.id, t.ws],
  );
  const conversationId = (await p.db.query<{ id: string }>(
    `insert into public.agent_chat_conversations (user_id, workspace_id, agent_id, title)
     values ($1, $2, 'main', 'Prices for Rossi') returning id`,
    [t.owner.id, t.ws],
  )).rows[0].id;
  await p.db.query(
    `insert into public.agent_chat_messages (conversation_id, role, content) values ($1, 'user', 'price of MP-100?')`,
    [conversationId],
  );
  const jobId = (await p.db.query<{ id: string }>(
    `insert into public.ai_jobs (user_id, workspace_id, job_type, filename) values ($1, $2, 'document_upload', 'x.pdf')
     returning id`,
    [t.owner.id, t.ws],
  )).rows[0].id;

  const bulkId = (await p.db.query<{ id: string }>(
    `with b as (
       insert into public.messaging_bulks (workspace_id, user_id, channel_type, message_type, total)
       values ($1, $2, 'sms', 'notification', 1) returning id
     ), r as (
       insert into public.messaging_bulk_recipients (bulk_id, position, to_number, status)
       select id, 0, '+15005550006', 'queued' from b
     )
     select id from b`,
    [t.ws, t.owner.id],
  )).rows[0].id;

  const outsiderProduct = ok(
    await rest(p, t.outsider.accessToken, "POST", "products?select=id", {
      workspace_id: t.otherWs,
      name: "Keraflex Maxi S1 grey 25 kg",
      metadata: { factory: "Mapei" },
    }),
    "outsider product",
  )[0].id;

  return {
    t,
    victimIds: [t.ws, t.owner.id, t.admin.id, t.member.id, t.viewer.id],
    pricingCat,
    guideCat,
    priceDoc,
    guideDoc,
    products: { a, c, d, e },
    quote,
    item,
    request,
    proposal,
    logId,
    historyId,
    cacheId,
    jobId,
    conversationId,
    pdfPath,
    bulkId,
    outsiderProduct,
  };
}

// ---------------------------------------------------------------------------------------------
// The schema, read as the superuser

interface Relation {
  name: string;
  kind: "r" | "v";
  columns: Map<string, string>;
}

async function relations(p: Platform): Promise<Relation[]> {
  const r = await p.db.query<{ name: string; kind: "r" | "v"; columns: [string, string][] }>(
    `select c.relname as name, c.relkind::text as kind,
            json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod)) order by a.attnum) as columns
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = 'public' and c.relkind in ('r', 'v')
      group by c.relname, c.relkind order by c.relname`,
  );
  return r.rows.map((row) => ({ name: row.name, kind: row.kind, columns: new Map(row.columns) }));
}

/** A fingerprint of every public table's content, to prove a refused write wrote nothing. */
async function snapshot(p: Platform, rels: Relation[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of rels.filter((r) => r.kind === "r")) {
    const r = await p.db.query<{ h: string }>(
      `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from public.${rel.name} t`,
    );
    out[rel.name] = r.rows[0].h;
  }
  return out;
}

/** A filter that selects the victim's rows of a relation (or, for global tables, a real row). */
function victimFilter(rel: Relation, w: World): string | null {
  const ids = `(${w.victimIds.slice(1).join(",")})`;
  if (rel.name === "workspaces") return `id=eq.${w.t.ws}`;
  if (rel.columns.has("workspace_id")) return `workspace_id=eq.${w.t.ws}`;
  if (rel.columns.has("user_id")) return `user_id=in.${ids}`;
  if (rel.name === "agent_chat_messages") return `conversation_id=eq.${w.conversationId}`;
  if (rel.columns.has("created_by")) return `created_by=in.${ids}`;
  const global: Record<string, string> = {
    roles: "name=eq.admin",
    gateway_action_costs: "cost_key=eq.default",
    agent_chat_costs: "agent_id=eq.main",
  };
  return global[rel.name] ?? null;
}

/** A PATCH body that is type-valid for the relation: a timestamp or text column. */
function patchBody(rel: Relation): Record<string, unknown> | null {
  for (const [col, type] of rel.columns) {
    if (type.startsWith("timestamp")) return { [col]: new Date().toISOString() };
  }
  for (const [col, type] of rel.columns) if (type === "text") return { [col]: "pwned" };
  return null;
}

const mentionsVictim = (row: unknown, ids: string[]) => {
  const s = JSON.stringify(row);
  return ids.some((id) => s.includes(id));
};

// ---------------------------------------------------------------------------------------------
// Reads across tenants

platformTest("outsider: no table or view in public returns a row of the victim workspace", async (p) => {
  const w = await getWorld(p);
  const rels = await relations(p);
  // Not vacuous: the superuser sees victim rows in every key table.
  const seeded: string[] = [];
  for (const rel of rels) {
    const r = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.${rel.name} t where ${
        w.victimIds.map((_, i) => `t::text like '%' || $${i + 1} || '%'`).join(" or ")
      }`,
      w.victimIds,
    );
    if (r.rows[0].n > 0) seeded.push(rel.name);
  }
  for (
    const key of [
      "products",
      "kb_docs",
      "kb_categories",
      "kb_doc_chunks",
      "kb_doc_attachments",
      "quotes",
      "quote_items",
      "quote_requests",
      "proposals",
      "agent_tool_call_logs",
      "product_prices",
      "price_entries",
      "price_index_versions",
      "duplicate_detection_cache",
      "product_merge_history",
      "credit_transactions",
      "user_credits",
      "ai_usage_logs",
      "notifications",
      "agent_chat_conversations",
      "ai_jobs",
      "workspaces",
      "workspace_members",
      "user_profiles",
      "quote_totals",
      "crm_user_records",
    ]
  ) assert.ok(seeded.includes(key), `seed left no victim row in ${key}`);

  const leaks: string[] = [];
  for (const rel of rels) {
    const r = await rest(p, w.t.outsider.accessToken, "GET", `${rel.name}?select=*`);
    // A relation users have no grant on (service-only tables) cannot leak: PostgREST's 42501.
    if (r.status === 403 && (r.body as { code?: string }).code === "42501") continue;
    assert.equal(r.status, 200, `${rel.name}: ${JSON.stringify(r.body)}`);
    const bad = (r.body as unknown[]).filter((row) => mentionsVictim(row, w.victimIds));
    if (bad.length) leaks.push(`${rel.name}: ${bad.length} row(s)`);
  }
  assert.deepEqual(leaks, [], "outsider read victim rows");
});

platformTest("anon key alone: every relation reads empty or 401, and every write is refused", async (p) => {
  const w = await getWorld(p);
  const rels = await relations(p);
  const before = await snapshot(p, rels);
  for (const rel of rels) {
    const read = await rest(p, null, "GET", `${rel.name}?select=*`);
    assert.ok(
      read.status === 401 || (read.status === 200 && read.body.length === 0),
      `anon GET ${rel.name}: ${read.status} ${JSON.stringify(read.body).slice(0, 200)}`,
    );
    const ins = await rest(
      p,
      null,
      "POST",
      rel.name,
      rel.columns.has("workspace_id") ? { workspace_id: w.t.ws } : {},
    );
    // Tables: no grant (42501 -> 401). The views are not auto-updatable: Postgres refuses at
    // rewrite time, before any privilege check (55000, which PostgREST answers 500).
    const expected = rel.kind === "r" ? [401, "42501"] : [500, "55000"];
    assert.deepEqual(
      [ins.status, ins.body?.code],
      expected,
      `anon POST ${rel.name}: ${JSON.stringify(ins.body)}`,
    );
    const filter = victimFilter(rel, w);
    const body = patchBody(rel);
    if (filter && body) {
      const upd = await rest(p, null, "PATCH", `${rel.name}?${filter}`, body);
      assert.ok(nothingDone(upd), `anon PATCH ${rel.name}: ${upd.status} ${JSON.stringify(upd.body)}`);
    }
    if (filter) {
      const del = await rest(p, null, "DELETE", `${rel.name}?${filter}`);
      assert.ok(nothingDone(del), `anon DELETE ${rel.name}: ${del.status} ${JSON.stringify(del.body)}`);
    }
  }
  assert.deepEqual(await snapshot(p, rels), before, "an anonymous write changed a table");
});

// ---------------------------------------------------------------------------------------------
// Writes across tenants

platformTest("outsider: PATCH and DELETE filtered on the victim's rows change nothing", async (p) => {
  const w = await getWorld(p);
  const rels = await relations(p);
  const before = await snapshot(p, rels);
  const token = w.t.outsider.accessToken;
  for (const rel of rels) {
    const filter = victimFilter(rel, w);
    if (!filter) continue;
    const body = patchBody(rel);
    if (body) {
      const upd = await rest(p, token, "PATCH", `${rel.name}?${filter}`, body);
      assert.ok(nothingDone(upd), `PATCH ${rel.name}?${filter}: ${upd.status} ${JSON.stringify(upd.body)}`);
    }
    const del = await rest(p, token, "DELETE", `${rel.name}?${filter}`);
    assert.ok(nothingDone(del), `DELETE ${rel.name}?${filter}: ${del.status} ${JSON.stringify(del.body)}`);
  }
  // By primary key too, for the records the attacker learnt the ids of.
  for (
    const [table, id, body] of [
      ["products", w.products.a, { name: "pwned" }],
      ["kb_docs", w.guideDoc, { title: "pwned" }],
      ["kb_categories", w.pricingCat, { access_level: "member" }],
      ["quotes", w.quote, { title: "pwned" }],
      ["quote_items", w.item, { unit_price: 0 }],
      ["quote_requests", w.request, { status: "approved" }],
      ["proposals", w.proposal, { status: "accepted" }],
      ["duplicate_detection_cache", w.cacheId, { status: "dismissed" }],
      ["ai_jobs", w.jobId, { message: "pwned" }],
      ["agent_chat_conversations", w.conversationId, { title: "pwned" }],
    ] as const
  ) {
    const upd = await rest(p, token, "PATCH", `${table}?id=eq.${id}`, body);
    assert.ok(nothingDone(upd), `PATCH ${table} ${id}: ${upd.status} ${JSON.stringify(upd.body)}`);
  }
  assert.deepEqual(await snapshot(p, rels), before, "an outsider's write changed a table");
});

platformTest("outsider: POSTing rows into the victim workspace is refused with 403", async (p) => {
  const w = await getWorld(p);
  const rels = await relations(p);
  const before = await snapshot(p, rels);
  const ws = w.t.ws;
  const vec = `[${Array(1024).fill(0.01).join(",")}]`;
  const [p1, p2] = [w.products.a, w.products.e].sort();
  const cases: [string, Record<string, unknown>][] = [
    ["products", { workspace_id: ws, name: "Planted product" }],
    ["kb_categories", { workspace_id: ws, name: "Planted", slug: "planted" }],
    ["kb_docs", { workspace_id: ws, title: "Planted", content: "x", content_hash: "0".repeat(64) }],
    ["kb_doc_chunks", {
      doc_id: w.guideDoc,
      chunk_index: 99,
      content: "planted",
      char_start: 0,
      char_end: 7,
      embedding: vec,
    }],
    ["kb_doc_attachments", { workspace_id: ws, doc_id: w.guideDoc, product_id: w.products.e }],
    ["quotes", { workspace_id: ws, title: "Planted quote" }],
    ["quote_items", { quote_id: w.quote, description: "planted line", unit_price: 1 }],
    ["quote_requests", { quote_id: w.quote, workspace_id: ws, notes: "planted" }],
    ["proposals", { quote_request_id: w.request, workspace_id: ws, amount: 1 }],
    ["product_prices", { workspace_id: ws, product_id: w.products.e, list_price: 1 }],
    ["price_entries", {
      workspace_id: ws,
      kb_doc_id: w.priceDoc,
      price_doc_type: "price_list",
      content_hash: "0".repeat(64),
      parser_version: "x",
      entries: [],
    }],
    ["duplicate_detection_cache", {
      workspace_id: ws,
      product_id_1: p1,
      product_id_2: p2,
      overall_similarity_score: 1,
      name_similarity: 1,
      description_similarity: 1,
      metadata_similarity: 1,
      confidence_level: "high",
    }],
    ["ai_jobs", { workspace_id: ws, job_type: "document_upload" }],
    ["agent_chat_conversations", { workspace_id: ws, agent_id: "main" }],
    ["agent_chat_messages", { conversation_id: w.conversationId, role: "user", content: "planted" }],
    ["workspace_members", { workspace_id: ws, user_id: w.t.outsider.id, role: "owner" }],
    ["workspaces", { name: "Owned by the victim", owner_id: w.t.owner.id }],
    ["agent_tool_call_logs", { workspace_id: ws, tool_name: "price_lookup" }],
    ["product_merge_history", {
      workspace_id: ws,
      source_product_ids: [w.products.e],
      source_product_names: ["x"],
      target_product_id: w.products.a,
      target_product_name: "x",
      source_products_snapshot: [],
      target_product_before_merge: {},
      target_product_after_merge: {},
    }],
    ["notifications", { user_id: w.t.owner.id, workspace_id: ws, title: "Phish" }],
    ["credit_transactions", {
      user_id: w.t.outsider.id,
      amount: 1000,
      balance_after: 1000,
      kind: "grant",
      action: "x",
    }],
    ["user_credits", { user_id: w.t.outsider.id, balance: 1000 }],
    ["ai_usage_logs", { user_id: w.t.owner.id, workspace_id: ws, action: "x" }],
    ["price_index_versions", { workspace_id: ws }],
    ["user_profiles", { user_id: w.t.outsider.id }],
  ];
  const wrong: string[] = [];
  for (const [table, body] of cases) {
    const r = await rest(p, w.t.outsider.accessToken, "POST", table, body);
    if (r.status !== 403) wrong.push(`POST ${table}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  assert.deepEqual(wrong, []);
  assert.deepEqual(await snapshot(p, rels), before, "a refused insert still wrote");
});

// ---------------------------------------------------------------------------------------------
// Roles inside the victim workspace

platformTest("members and viewers read no Pricing data through /rest/v1; owners and admins do", async (p) => {
  const w = await getWorld(p);
  const ws = w.t.ws;
  const reads = [
    `kb_categories?select=id&slug=eq.pricing&workspace_id=eq.${ws}`,
    `kb_docs?select=id&category_id=eq.${w.pricingCat}`,
    `kb_docs?select=id&price_doc_type=not.is.null`,
    `kb_doc_chunks?select=id&category_id=eq.${w.pricingCat}`,
    `kb_doc_chunks?select=id&price_doc_type=not.is.null`,
    `price_entries?select=id&workspace_id=eq.${ws}`,
    `price_index_versions?select=version&workspace_id=eq.${ws}`,
    `product_prices?select=id&workspace_id=eq.${ws}`,
    `agent_tool_call_logs?select=id&workspace_id=eq.${ws}`,
    `product_merge_history?select=id&workspace_id=eq.${ws}`,
  ];
  for (const path of reads) {
    for (const who of [w.t.owner, w.t.admin]) {
      const r = await rest(p, who.accessToken, "GET", path);
      assert.ok(r.status === 200 && r.body.length > 0, `control: ${path} is empty for an owner/admin`);
    }
    for (const who of [w.t.member, w.t.viewer]) {
      const r = await rest(p, who.accessToken, "GET", path);
      assert.equal(r.status, 200, path);
      assert.deepEqual(r.body, [], `${path} leaked to a member/viewer`);
    }
  }
  for (const who of [w.t.member, w.t.viewer]) {
    const tok = who.accessToken;
    for (
      const [f, args] of [
        ["price_index_entries", { p_workspace_id: ws, p_parser_version: "1" }],
        ["price_index_state", { p_workspace_id: ws, p_parser_version: "1" }],
        ["price_index_version", { p_workspace_id: ws }],
        ["price_lookup_stats", { p_workspace_id: ws }],
        ["log_agent_tool_call", {
          p_workspace_id: ws,
          p_tool_name: "price_lookup",
          p_tool_args: {},
          p_result_summary: {},
          p_zero_result: false,
        }],
      ] as const
    ) {
      const r = await rpc(p, tok, f, args);
      assert.equal(r.status, 403, `${f}: ${JSON.stringify(r.body)}`);
    }
    // The pricing commit paths.
    const price = await rest(p, tok, "POST", "product_prices", {
      workspace_id: ws,
      product_id: w.products.e,
      list_price: 1,
    });
    assert.equal(price.status, 403, JSON.stringify(price.body));
    const commit = await rest(p, tok, "PATCH", `quote_items?id=eq.${w.item}`, {
      price_source: `kb:ai:${w.logId}`,
      price_lookup_call_id: w.logId,
    });
    assert.ok(nothingDone(commit), `commit by ${who.email}: ${commit.status}`);
    const cat = await rest(p, tok, "PATCH", `kb_categories?id=eq.${w.pricingCat}`, {
      access_level: "member",
    });
    assert.ok(nothingDone(cat), `pricing category opened: ${cat.status}`);
  }
  const row = await p.db.query<{ price_source: string | null }>(
    `select price_source from public.quote_items where id = $1`,
    [w.item],
  );
  assert.equal(row.rows[0].price_source, null);
});

platformTest("members and viewers reach no Pricing data through ai-gateway", async (p) => {
  const w = await getWorld(p);
  const ws = w.t.ws;
  const quick = {
    workspace_id: ws,
    query: "Keraflex MP-100 price",
    search_types: ["kb_docs"],
    category_slug: "pricing",
  };
  // Control: the owner's quick pick finds the price list.
  const control = await gwOk(p, w.t.owner.accessToken, "search_knowledge_base", quick);
  assert.ok(control.chunks.some((r: Json) => r.id === w.priceDoc), JSON.stringify(control));

  for (const who of [w.t.member, w.t.viewer]) {
    const tok = who.accessToken;
    const refused: [string, Record<string, unknown>][] = [
      ["search_knowledge_base", quick],
      ["search_knowledge_base", { ...quick, category_slug: undefined, category_id: w.pricingCat }],
      ["search_knowledge_base", { ...quick, category_slug: undefined, price_doc_type: "price_list" }],
      ["kb_search", { workspace_id: ws, query: "Keraflex", category_id: w.pricingCat }],
      ["kb_search", { workspace_id: ws, query: "Keraflex", category_slug: "pricing" }],
      ["kb_search", { workspace_id: ws, query: "Keraflex", allowed_access_levels: ["admin"] }],
      ["kb_get_document", { doc_id: w.priceDoc }],
      ["kb_update_document", { doc_id: w.priceDoc, title: "renamed" }],
      ["kb_delete_document", { doc_id: w.priceDoc }],
      ["kb_create_document", {
        workspace_id: ws,
        title: "Planted price list",
        category_id: w.pricingCat,
        price_doc_type: "price_list",
        content: PRICE_LIST,
      }],
      ["kb_create_category", {
        workspace_id: ws,
        name: "Pricing 2",
        slug: "pricing-2",
        access_level: "member",
      }],
    ];
    for (const [action, payload] of refused) {
      const r = await gw(p, tok, action, payload);
      assert.equal(
        r.status,
        403,
        `${who.email} ${action} ${JSON.stringify(payload)}: ${JSON.stringify(r.body)}`,
      );
    }
    // Claiming to be an admin caller only widens what RLS already allows: no pricing chunk.
    const wide = await gwOk(p, tok, "search_knowledge_base", {
      workspace_id: ws,
      query: "Keraflex MP-100 price 12,50",
      search_types: ["kb_docs"],
      caller: "admin",
      similarity_threshold: -1,
    });
    assert.ok(
      !wide.chunks.some((r: Json) =>
        r.id === w.priceDoc || r.doc_id === w.priceDoc || /12,50/.test(r.content)
      ),
      `pricing chunk reached a ${who.email}: ${JSON.stringify(wide.chunks)}`,
    );
    const cats = await gwOk(p, tok, "kb_list_categories", { workspace_id: ws });
    assert.ok(!cats.categories.some((c: Json) => c.slug === "pricing"), "the Pricing category is listed");
  }
  const doc = await p.db.query<{ title: string }>(`select title from public.kb_docs where id = $1`, [
    w.priceDoc,
  ]);
  assert.equal(doc.rows[0].title, "Mapei price list 2026");
});

platformTest(
  "in-workspace escalation: roles, workspace settings and deletes stay with their owners",
  async (p) => {
    const w = await getWorld(p);
    const { t } = w;
    const before = await p.db.query(
      `select user_id, role from public.workspace_members where workspace_id = $1
    order by user_id`,
      [t.ws],
    );
    const attempts: [string, string, string, unknown][] = [
      [t.member.accessToken, "PATCH", `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.member.id}`, {
        role: "owner",
      }],
      [t.admin.accessToken, "PATCH", `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.member.id}`, {
        role: "admin",
      }],
      [t.admin.accessToken, "PATCH", `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.admin.id}`, {
        role: "owner",
      }],
      [
        t.admin.accessToken,
        "DELETE",
        `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.owner.id}`,
        undefined,
      ],
      [
        t.owner.accessToken,
        "DELETE",
        `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.owner.id}`,
        undefined,
      ],
      [t.viewer.accessToken, "POST", "workspace_members", {
        workspace_id: t.ws,
        user_id: t.outsider.id,
        role: "viewer",
      }],
      [t.admin.accessToken, "POST", "workspace_members", {
        workspace_id: t.ws,
        user_id: t.outsider.id,
        role: "admin",
      }],
      [t.member.accessToken, "PATCH", `workspaces?id=eq.${t.ws}`, { name: "Renamed by a member" }],
      [t.admin.accessToken, "DELETE", `workspaces?id=eq.${t.ws}`, undefined],
      [t.member.accessToken, "DELETE", `products?id=eq.${w.products.e}`, undefined],
      [t.viewer.accessToken, "POST", "products", { workspace_id: t.ws, name: "Viewer product" }],
      [t.viewer.accessToken, "PATCH", `products?id=eq.${w.products.e}`, { name: "Viewer rename" }],
      [t.member.accessToken, "DELETE", `quotes?id=eq.${w.quote}`, undefined],
      [t.member.accessToken, "DELETE", `duplicate_detection_cache?id=eq.${w.cacheId}`, undefined],
      [t.member.accessToken, "PATCH", `user_profiles?user_id=eq.${t.member.id}`, {
        subscription_tier: "enterprise",
      }],
    ];
    for (const [tok, method, path, body] of attempts) {
      const r = await rest(p, tok, method, path, body);
      assert.ok(nothingDone(r), `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const after = await p.db.query(
      `select user_id, role from public.workspace_members where workspace_id = $1
    order by user_id`,
      [t.ws],
    );
    assert.deepEqual(after.rows, before.rows);
    const left = await p.db.query<{ n: number }>(
      `select (select count(*) from public.products where id = $1)::int +
            (select count(*) from public.quotes where id = $2)::int as n`,
      [w.products.e, w.quote],
    );
    assert.equal(left.rows[0].n, 2);
  },
);

platformTest("a member cannot move a workspace product into a workspace of their own", async (p) => {
  // products_edit checks the writer role on both sides of an UPDATE, and workspace_id is
  // updatable: a member who owns a private workspace could take products out of the team's
  // catalogue, which a member may not even delete.
  const w = await getWorld(p);
  const { t } = w;
  const own = ok(
    await rest(p, t.member.accessToken, "POST", "workspaces?select=id", {
      name: "Member's private shop",
      owner_id: t.member.id,
    }),
    "member's workspace",
  )[0].id as string;
  const victim = ok(
    await rest(p, t.owner.accessToken, "POST", "products?select=id", {
      workspace_id: t.ws,
      name: "Movable tile",
    }),
    "product",
  )[0].id as string;
  const r = await rest(p, t.member.accessToken, "PATCH", `products?id=eq.${victim}`, { workspace_id: own });
  const row = await p.db.query<{ workspace_id: string }>(
    `select workspace_id from public.products where id = $1`,
    [
      victim,
    ],
  );
  assert.equal(
    row.rows[0].workspace_id,
    t.ws,
    `PATCH /rest/v1/products?id=eq.${victim} {workspace_id: <member's own ws>} answered ${r.status} ` +
      `${JSON.stringify(r.body)} and moved the product out of the team workspace`,
  );
});

platformTest("products.created_by cannot be forged on insert or update", async (p) => {
  // created_by is the audit trail of the catalogue ("who added this"); quotes pin it with a
  // policy and kb_docs leave it out of the grants, products do neither.
  const w = await getWorld(p);
  const { t } = w;
  const problems: string[] = [];
  const ins = await rest(p, t.member.accessToken, "POST", "products?select=id,created_by", {
    workspace_id: t.ws,
    name: "Blame the owner",
    created_by: t.owner.id,
  });
  if (ins.status < 400 && ins.body?.[0]?.created_by !== t.member.id) {
    problems.push(
      `POST /rest/v1/products {created_by: <owner>} as a member: ${ins.status} ${JSON.stringify(ins.body)}`,
    );
  }
  const own = ok(
    await rest(p, t.owner.accessToken, "POST", "products?select=id", {
      workspace_id: t.ws,
      name: "Owner's tile",
    }),
    "product",
  )[0].id as string;
  const upd = await rest(p, t.member.accessToken, "PATCH", `products?id=eq.${own}&select=id,created_by`, {
    created_by: t.viewer.id,
  });
  const row = await p.db.query<{ created_by: string }>(
    `select created_by from public.products where id = $1`,
    [own],
  );
  if (row.rows[0].created_by !== t.owner.id) {
    problems.push(
      `PATCH /rest/v1/products?id=eq.<owner's product> {created_by: <viewer>} as a member: ${upd.status} ` +
        JSON.stringify(upd.body),
    );
  }
  assert.deepEqual(problems, []);
});

// ---------------------------------------------------------------------------------------------
// Body-supplied ids through the functions and the AI backend

platformTest("ai-gateway: an outsider's victim ids in the payload are 404s, and cost nothing", async (p) => {
  const w = await getWorld(p);
  const tok = w.t.outsider.accessToken;
  const ws = w.t.ws;
  const credits = await balance(p, w.t.outsider.id);
  const docs = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_docs where workspace_id = $1`,
    [
      ws,
    ],
  );
  const cases: [string, Record<string, unknown>][] = [
    ["kb_create_document", { workspace_id: ws, title: "Planted", content: "planted" }],
    ["kb_create_document", {
      workspace_id: ws,
      title: "Planted",
      category_id: w.guideCat,
      content: "planted",
    }],
    // Own workspace, the victim's category: the category must belong to the workspace.
    ["kb_create_document", {
      workspace_id: w.t.otherWs,
      title: "Planted",
      category_id: w.guideCat,
      content: "x",
    }],
    ["kb_create_category", { workspace_id: ws, name: "Planted", slug: "planted" }],
    ["kb_list_categories", { workspace_id: ws }],
    ["kb_get_document", { doc_id: w.guideDoc }],
    ["kb_get_document", { doc_id: w.priceDoc }],
    ["kb_update_document", { doc_id: w.guideDoc, title: "pwned" }],
    ["kb_delete_document", { doc_id: w.guideDoc }],
    ["kb_get_doc_attachments", { doc_id: w.guideDoc }],
    ["kb_get_product_docs", { product_id: w.products.a }],
    ["kb_create_attachment", { doc_id: w.guideDoc, product_id: w.outsiderProduct }],
    ["search_knowledge_base", { workspace_id: ws, query: "Keraflex", search_types: ["kb_docs"] }],
    ["search_knowledge_base", {
      workspace_id: ws,
      query: "Keraflex",
      search_types: ["kb_docs"],
      category_slug: "pricing",
    }],
    ["kb_search", { workspace_id: ws, query: "Keraflex" }],
  ];
  const wrong: string[] = [];
  for (const [action, payload] of cases) {
    const r = await gw(p, tok, action, payload);
    if (r.status !== 404) {
      wrong.push(`${action} ${JSON.stringify(payload)}: ${r.status} ${JSON.stringify(r.body)}`);
    }
  }
  assert.deepEqual(wrong, []);
  // kb_health counts only what the caller can see.
  const health = await gwOk(p, tok, "kb_health", { workspace_id: ws });
  assert.deepEqual(
    [health.counts.categories, health.counts.documents, health.counts.chunks],
    [0, 0, 0],
    JSON.stringify(health),
  );
  const job = await fn(p, tok, "ai-gateway", "GET", `/job-status/${w.jobId}`);
  assert.equal(job.status, 404, JSON.stringify(job.body));
  // Platform-admin actions.
  for (const action of ["admin_list_jobs", "monitoring_supabase_status", "monitoring_storage_estimate"]) {
    const r = await gw(p, tok, action, {});
    assert.equal(r.status, 403, `${action}: ${JSON.stringify(r.body)}`);
  }
  assert.equal(await balance(p, w.t.outsider.id), credits, "refused calls must be refunded");
  const after = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_docs where workspace_id = $1`,
    [
      ws,
    ],
  );
  assert.equal(after.rows[0].n, docs.rows[0].n);
});

platformTest("quotes-api and generate-quote-pdf: victim ids in paths and bodies are 404s", async (p) => {
  const w = await getWorld(p);
  const { t } = w;
  const out = t.outsider.accessToken;
  const cases: [string, string, string, unknown, number][] = [
    [out, "POST", "/quote-requests", { quote_id: w.quote, workspace_id: t.ws }, 404],
    [out, "POST", "/quote-requests", { quote_id: w.quote, workspace_id: t.otherWs }, 404],
    [out, "GET", `/quote-requests/${w.request}`, undefined, 404],
    [out, "PATCH", `/quote-requests/${w.request}`, { status: "approved" }, 404],
    [out, "GET", `/proposals/${w.proposal}`, undefined, 404],
    [out, "PATCH", `/proposals/${w.proposal}`, { status: "accepted" }, 404],
    [out, "GET", `/quotes/${w.quote}`, undefined, 404],
    [out, "PATCH", `/quote-items/${w.item}`, { unit_price: 0 }, 404],
    // Inside the workspace: only the requester answers a proposal, even for the owner.
    [t.owner.accessToken, "PATCH", `/proposals/${w.proposal}`, { status: "accepted" }, 404],
    [t.viewer.accessToken, "PATCH", `/proposals/${w.proposal}`, { status: "accepted" }, 404],
    [t.viewer.accessToken, "GET", `/quote-requests/${w.request}`, undefined, 404],
    [t.viewer.accessToken, "PATCH", `/quote-items/${w.item}`, { unit_price: 0 }, 403],
  ];
  for (const [tok, method, path, body, status] of cases) {
    const r = await fn(p, tok, "quotes-api", method, path, body);
    assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
  }
  const list = ok(await fn(p, out, "quotes-api", "GET", "/quote-requests"), "list").data;
  assert.deepEqual(list, []);
  const proposals = ok(await fn(p, out, "quotes-api", "GET", "/proposals"), "list").data;
  assert.deepEqual(proposals, []);
  const pdf = await fn(p, out, "generate-quote-pdf", "POST", "", { quote_id: w.quote, regenerate: true });
  assert.equal(pdf.status, 404, JSON.stringify(pdf.body));

  const state = await p.db.query<{ r: string; pr: string; price: string }>(
    `select (select status from public.quote_requests where id = $1) as r,
            (select status from public.proposals where id = $2) as pr,
            (select unit_price::text from public.quote_items where id = $3) as price`,
    [w.request, w.proposal, w.item],
  );
  assert.deepEqual(state.rows[0], { r: "pending", pr: "pending", price: "12.5000" });
});

platformTest("storage: the victim's quote PDF is out of an outsider's reach", async (p) => {
  const w = await getWorld(p);
  const out = w.t.outsider.client.storage.from("quote-pdfs");
  const dl = await out.download(w.pdfPath);
  assert.ok(dl.error, "outsider downloaded the victim's PDF");
  const listed = await out.list(w.t.ws);
  assert.deepEqual(listed.data ?? [], []);
  const signed = await out.createSignedUrl(w.pdfPath, 60);
  assert.ok(signed.error, "outsider signed a URL to the victim's PDF");
  const up = await out.upload(`${w.t.ws}/planted.pdf`, new Blob(["%PDF-1.4"], { type: "application/pdf" }));
  assert.ok(up.error, "outsider uploaded into the victim's folder");
  const over = await out.upload(w.pdfPath, new Blob(["%PDF-1.4"], { type: "application/pdf" }), {
    upsert: true,
  });
  assert.ok(over.error, "outsider overwrote the victim's PDF");
  // Control: a member of the workspace can read it.
  const mine = await w.t.viewer.client.storage.from("quote-pdfs").download(w.pdfPath);
  assert.equal(mine.error, null);
});

platformTest(
  "agent-chat: context.workspace_id and conversation_id of the victim are refused, unbilled",
  async (p) => {
    const w = await getWorld(p);
    const tok = w.t.outsider.accessToken;
    const credits = await balance(p, w.t.outsider.id);
    const msg = [{ role: "user", content: "What does MP-100 cost?" }];
    const ctx = await fn(p, tok, "agent-chat", "POST", "", {
      messages: msg,
      context: { workspace_id: w.t.ws },
    });
    assert.equal(ctx.status, 403, JSON.stringify(ctx.body));
    const conv = await fn(p, tok, "agent-chat", "POST", "", {
      messages: msg,
      conversation_id: w.conversationId,
      context: { workspace_id: w.t.otherWs },
    });
    assert.equal(conv.status, 404, JSON.stringify(conv.body));
    const anon = await fn(p, null, "agent-chat", "POST", "", { messages: msg });
    assert.equal(anon.status, 401);
    assert.equal(await balance(p, w.t.outsider.id), credits);
    const msgs = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.agent_chat_messages where conversation_id = $1`,
      [w.conversationId],
    );
    assert.equal(msgs.rows[0].n, 1);
  },
);

platformTest(
  "AI backend duplicates: victim workspace, products, detections and merges are out of reach",
  async (p) => {
    const w = await getWorld(p);
    const { t } = w;
    const out = t.outsider.accessToken;
    const products = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.products where workspace_id = $1`,
      [t.ws],
    );
    const cases: [string, string, string, unknown, number][] = [
      [out, "POST", "/api/duplicates/detect", { product_id: w.products.a, workspace_id: t.ws }, 404],
      [out, "POST", "/api/duplicates/detect", { product_id: w.products.a, workspace_id: t.otherWs }, 404],
      [out, "POST", "/api/duplicates/batch-detect", { workspace_id: t.ws }, 404],
      [out, "GET", `/api/duplicates/cached?workspace_id=${t.ws}`, undefined, 404],
      [out, "POST", "/api/duplicates/update-status", { cache_id: w.cacheId, status: "dismissed" }, 404],
      [out, "POST", "/api/duplicates/merge", {
        target_product_id: w.products.a,
        source_product_ids: [w.products.e],
        workspace_id: t.ws,
      }, 404],
      // The attacker's own workspace and target, the victim's products as sources.
      [out, "POST", "/api/duplicates/merge", {
        target_product_id: w.outsiderProduct,
        source_product_ids: [w.products.c, w.products.d],
        workspace_id: t.otherWs,
      }, 404],
      [out, "POST", "/api/duplicates/undo-merge", { history_id: w.historyId }, 404],
      [out, "GET", `/api/duplicates/merge-history?workspace_id=${t.ws}`, undefined, 404],
      // A member may detect but not merge; nobody acts in another user's name.
      [t.member.accessToken, "POST", "/api/duplicates/merge", {
        target_product_id: w.products.c,
        source_product_ids: [w.products.d],
        workspace_id: t.ws,
      }, 403],
      [t.member.accessToken, "POST", "/api/duplicates/undo-merge", { history_id: w.historyId }, 403],
      [t.member.accessToken, "GET", `/api/duplicates/merge-history?workspace_id=${t.ws}`, undefined, 403],
      [t.viewer.accessToken, "POST", "/api/duplicates/update-status", {
        cache_id: w.cacheId,
        status: "dismissed",
      }, 403],
      [t.owner.accessToken, "POST", "/api/duplicates/merge", {
        target_product_id: w.products.c,
        source_product_ids: [w.products.d],
        workspace_id: t.ws,
        user_id: t.admin.id,
      }, 403],
    ];
    for (const [tok, method, path, body, status] of cases) {
      const r = await backend(p, tok, method, path, body);
      assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }
    const after = await p.db.query<{ n: number; undone: boolean; st: string }>(
      `select (select count(*) from public.products where workspace_id = $1)::int as n,
            (select is_undone from public.product_merge_history where id = $2) as undone,
            (select status from public.duplicate_detection_cache where id = $3) as st`,
      [t.ws, w.historyId, w.cacheId],
    );
    assert.deepEqual(after.rows[0], { n: products.rows[0].n, undone: false, st: "pending" });
  },
);

// ---------------------------------------------------------------------------------------------
// RPCs

/** Every function a signed-in user may call through /rest/v1/rpc, with its attack. */
const RPC_ATTACKS: Record<
  string,
  (w: World) => { args: Record<string, unknown>; status: number; check?: Json }
> = {
  // SECURITY DEFINER
  crm_delete_user_records: (w) => ({ args: { p_user_id: w.t.owner.id }, status: 403 }),
  // Workspace invitations: an outsider neither invites into nor answers for the victim workspace.
  invite_to_workspace: (w) => ({
    args: { p_workspace_id: w.t.ws, p_invitee: w.t.outsider.email, p_role: "admin" },
    status: 404,
  }),
  accept_workspace_invitation: () => ({ args: { p_invitation_id: crypto.randomUUID() }, status: 404 }),
  decline_workspace_invitation: () => ({ args: { p_invitation_id: crypto.randomUUID() }, status: 404 }),
  is_invitee: (w) => ({
    args: { p_email: w.t.owner.email, p_user_id: w.t.owner.id },
    status: 200,
    check: false,
  }),
  crm_may_look_up_accounts: () => ({ args: {}, status: 200, check: false }),
  is_safe_object_path: () => ({ args: { p: "x/../y" }, status: 200, check: false }),
  current_platform_role: () => ({ args: {}, status: 200, check: "user" }),
  get_my_access: () => ({ args: {}, status: 200 }),
  has_platform_role: () => ({ args: { role_names: ["admin"] }, status: 200, check: false }),
  has_workspace_role: (w) => ({
    args: { ws: w.t.ws, roles: ["owner", "admin", "member", "viewer"] },
    status: 200,
    check: false,
  }),
  is_workspace_admin: (w) => ({ args: { ws: w.t.ws }, status: 200, check: false }),
  is_workspace_member: (w) => ({ args: { ws: w.t.ws }, status: 200, check: false }),
  kb_readable_category_ids: () => ({ args: {}, status: 200 }),
  kb_workspace_ids: () => ({ args: { p_roles: null }, status: 200 }),
  log_agent_tool_call: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_tool_name: "product_search",
      p_tool_args: {},
      p_result_summary: {},
      p_zero_result: false,
    },
    status: 403,
  }),
  merge_products: (w) => ({ args: { p_target: w.products.c, p_sources: [w.products.d] }, status: 404 }),
  owns_quote_request: (w) => ({ args: { p_request_id: w.request }, status: 200, check: false }),
  undo_merge: (w) => ({ args: { p_history_id: w.historyId }, status: 404 }),
  // RAG search (SECURITY DEFINER with the pipeline_documents visibility rule; tests/rag/ seeds
  // victim documents and checks results in depth): nothing of the victim's workspace.
  rag_search_chunks: (w) => ({
    args: {
      p_query_text: "Keraflex",
      p_query_embedding: `[${Array(1024).fill(0.01).join(",")}]`,
      p_workspace_id: w.t.ws,
    },
    status: 200,
    check: [],
  }),
  rag_search_images: (w) => ({
    args: { p_visual: `[${Array(768).fill(0.01).join(",")}]`, p_workspace_id: w.t.ws },
    status: 200,
    check: [],
  }),
  rag_search_records: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_query_text: "Keraflex",
      p_types: ["products", "entities"],
      p_threshold: 0,
    },
    status: 200,
    check: [],
  }),
  rag_tsquery: () => ({ args: { p_text: "oak floor" }, status: 200 }),
  rag_tsquery_most: () => ({ args: { p_text: "oak floor plank" }, status: 200 }),
  rag_stop_words: () => ({ args: {}, status: 200 }),
  // SECURITY INVOKER (RLS decides)
  crm_row_visible: (w) => ({ args: { owner: w.t.owner.id }, status: 200, check: false }),
  kb_hybrid_search: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_query_text: "Keraflex",
      p_query_embedding: `[${Array(1024).fill(0.01).join(",")}]`,
      p_match_threshold: -1,
    },
    status: 200,
    check: [],
  }),
  kb_text_candidates: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_category_ids: [w.pricingCat, w.guideCat],
      p_uncategorised: true,
      p_price_doc_types: null,
      p_require_published: false,
      p_match: "keraflex",
      p_exclude: null,
      p_limit: 250,
    },
    status: 200,
    check: [],
  }),
  kb_replace_chunks: (w) => ({
    args: { p_doc_id: w.guideDoc, p_chunks: [], p_embedding_model: "x" },
    status: 200,
    check: 0,
  }),
  kb_stats: (w) => ({
    args: { p_workspace_id: w.t.ws },
    status: 200,
    check: { categories: 0, documents: 0, chunks: 0, content_bytes: 0, embedding_bytes: 0 },
  }),
  kb_update_document: (w) => ({
    args: { p_doc_id: w.guideDoc, p_patch: { title: "pwned" } },
    status: 200,
    check: null,
  }),
  kb_upsert_document: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_title: "Planted",
      p_category_id: null,
      p_content: "x",
      p_content_hash: "0".repeat(64),
      p_chunks: [],
    },
    status: 403,
  }),
  // The batch form writes through kb_upsert_document as the caller: RLS refuses the first entry.
  kb_upsert_documents: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_documents: [{
        title: "Planted",
        category_id: null,
        content: "x",
        content_hash: "0".repeat(64),
        chunks: [],
      }],
    },
    status: 403,
  }),
  // A pure function of its argument (the vector index's sketch): nothing of any workspace.
  kb_embedding_bits: () => ({
    args: { p_embedding: `[${Array(1024).fill(0.01).join(",")}]` },
    status: 200,
    check: Array.from(sketchBits(Array(1024).fill(0.01))).join(""),
  }),
  // Runs as the caller: RLS leaves an outsider none of the victim workspace's logs to count.
  // The outsider is neither the requester nor a handler of the workspace: no status is theirs to set.
  may_set_quote_request_status: (w) => ({
    args: { p_workspace_id: w.t.ws, p_requester: w.t.owner.id, p_status: "approved" },
    status: 200,
    check: false,
  }),
  // Invoker: RLS hides the victim's bulk, so the outsider counts nothing.
  messaging_bulk_progress: (w) => ({ args: { p_bulk_id: w.bulkId }, status: 200, check: [] }),
  messaging_analytics: (w) => ({
    args: { ws: w.t.ws, start_at: "2000-01-01T00:00:00Z", end_at: "2100-01-01T00:00:00Z", only_type: null },
    status: 200,
    check: {
      totalSent: 0,
      totalDelivered: 0,
      totalRead: 0,
      totalFailed: 0,
      totalCost: 0,
      deliveryRate: 0,
      readRate: 0,
      failureRate: 0,
      dailyData: [],
      total: 0,
      byStatus: {},
      byChannel: {},
    },
  }),
  price_index_entries: (w) => ({ args: { p_workspace_id: w.t.ws, p_parser_version: "1" }, status: 403 }),
  price_index_state: (w) => ({ args: { p_workspace_id: w.t.ws, p_parser_version: "1" }, status: 403 }),
  price_index_version: (w) => ({ args: { p_workspace_id: w.t.ws }, status: 403 }),
  price_lookup_stats: (w) => ({ args: { p_workspace_id: w.t.ws }, status: 403 }),
  quote_document: (w) => ({ args: { p_quote_id: w.quote }, status: 200, check: null }),
  quote_pdf_visible: (w) => ({ args: { name: w.pdfPath }, status: 200, check: false }),
  store_duplicate_detections: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_pairs: [{
        product_id_1: [w.products.a, w.products.e].sort()[0],
        product_id_2: [w.products.a, w.products.e].sort()[1],
        overall_similarity: 1,
        name_similarity: 1,
        description_similarity: 1,
        metadata_similarity: 1,
        confidence_level: "high",
      }],
    },
    status: 403,
  }),
  update_duplicate_status: (w) => ({ args: { p_cache_id: w.cacheId, p_status: "dismissed" }, status: 404 }),
  user_ai_usage_summary: (w) => ({ args: { p_user_id: w.t.owner.id }, status: 200 }),
  // SECURITY INVOKER: counts only the jobs RLS shows the caller (not the victim's pending job).
  ai_jobs_status_counts: () => ({ args: {}, status: 200, check: {} }),
};

/** Money moves and system bookkeeping: the service role's only. */
const SERVICE_ONLY: Record<string, (w: World) => Record<string, unknown>> = {
  debit_credits: (w) => ({ p_user_id: w.t.owner.id, p_amount: 50, p_action: "steal" }),
  grant_credits: (w) => ({ p_user_id: w.t.outsider.id, p_amount: 1_000_000 }),
  refund_credits: () => ({ p_debit_id: crypto.randomUUID() }),
  bill_gateway_action: (w) => ({
    p_user_id: w.t.owner.id,
    p_action: "x",
    p_cost_key: "default",
    p_quantity: 50,
  }),
  refund_gateway_action: () => ({ p_transaction_id: crypto.randomUUID(), p_reason: "x" }),
  bill_agent_chat: (w) => ({ p_user_id: w.t.owner.id, p_agent_id: "main", p_model: "x" }),
  settle_agent_chat: () => ({ p_usage_log_id: crypto.randomUUID(), p_input_tokens: 0, p_output_tokens: 0 }),
};

platformTest(
  "RPC: every function a user may call is reviewed here, and none acts on another workspace",
  async (p) => {
    const w = await getWorld(p);
    const callable = await p.db.query<{ proname: string }>(
      `select distinct p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.prorettype <> 'trigger'::regtype
        and has_function_privilege('authenticated', p.oid, 'execute') order by 1`,
    );
    assert.deepEqual(
      callable.rows.map((r) => r.proname),
      Object.keys(RPC_ATTACKS).sort(),
      "a function callable by users is missing from RPC_ATTACKS (review it and add its attack)",
    );
    const rels = await relations(p);
    const before = await snapshot(p, rels);
    const tok = w.t.outsider.accessToken;
    for (const [name, attack] of Object.entries(RPC_ATTACKS)) {
      const { args, status, check } = attack(w);
      const r = await rpc(p, tok, name, args);
      assert.equal(r.status, status, `rpc/${name}: ${JSON.stringify(r.body)}`);
      if (check !== undefined) assert.deepEqual(r.body, check, `rpc/${name}`);
      if (name === "user_ai_usage_summary") assert.equal(r.body.totals.total_calls, 0);
      if (name === "get_my_access") assert.ok(!mentionsVictim(r.body, w.victimIds));
      if (name === "kb_readable_category_ids" || name === "kb_workspace_ids") {
        assert.ok(
          !mentionsVictim(r.body, [w.t.ws, w.pricingCat, w.guideCat]),
          `${name}: ${JSON.stringify(r.body)}`,
        );
      }
    }
    // A member with a valid role in the workspace still cannot merge or undo.
    for (
      const [name, args] of [
        ["merge_products", { p_target: w.products.c, p_sources: [w.products.d] }],
        ["undo_merge", { p_history_id: w.historyId }],
      ] as const
    ) {
      const r = await rpc(p, w.t.member.accessToken, name, args);
      assert.equal(r.status, 403, `member rpc/${name}: ${JSON.stringify(r.body)}`);
    }
    // kb_text_candidates (SECURITY DEFINER) follows the chunk policy: the owner finds the Pricing
    // chunk, a member (Pricing is admin-level) gets nothing, as the outsider above.
    const candidates = (token: string) =>
      rpc(p, token, "kb_text_candidates", {
        p_workspace_id: w.t.ws,
        p_category_ids: [w.pricingCat],
        p_uncategorised: false,
        p_price_doc_types: null,
        p_require_published: false,
        p_match: "keraflex",
        p_exclude: null,
        p_limit: 250,
      });
    const ownerHits = await candidates(w.t.owner.accessToken);
    assert.equal(ownerHits.status, 200);
    assert.ok(Array.isArray(ownerHits.body) && ownerHits.body.length > 0, JSON.stringify(ownerHits.body));
    assert.deepEqual((await candidates(w.t.member.accessToken)).body, []);
    const callerBalance = await balance(p, w.t.outsider.id);
    const ownerBalance = await balance(p, w.t.owner.id);
    for (const [name, args] of Object.entries(SERVICE_ONLY)) {
      for (const token of [tok, w.t.owner.accessToken]) {
        const r = await rpc(p, token, name, args(w));
        assert.equal(r.status, 403, `rpc/${name}: ${JSON.stringify(r.body)}`);
      }
      const anon = await rpc(p, null, name, args(w));
      assert.equal(anon.status, 401, `anon rpc/${name}: ${JSON.stringify(anon.body)}`);
    }
    assert.equal(await balance(p, w.t.outsider.id), callerBalance);
    assert.equal(await balance(p, w.t.owner.id), ownerBalance);
    assert.deepEqual(await snapshot(p, rels), before, "an RPC changed a table");
  },
);

// ---------------------------------------------------------------------------------------------
// Tokens

platformTest(
  "JWT tricks: forged, tampered, alg none, expired and foreign-role tokens get nothing",
  async (p) => {
    const w = await getWorld(p);
    const now = Math.floor(Date.now() / 1000);
    const secret = p.config.jwtSecret;
    const victim = { sub: w.t.owner.id, aud: "authenticated", email: w.t.owner.email };
    const real = decodePayload(w.t.outsider.accessToken);
    const [h, , s] = w.t.outsider.accessToken.split(".");
    const none = `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${
      b64url(JSON.stringify({ ...victim, role: "service_role", exp: now + 600 }))
    }.`;
    const tokens: Record<string, string> = {
      "service_role signed with a near-miss of the well-known local secret": await hs256(
        { ...victim, role: "service_role", exp: now + 600 },
        "super-secret-jwt-token-with-at-least-32-characters-long!",
      ),
      "own token, payload rewritten to the victim as service_role": `${h}.${
        b64url(JSON.stringify({ ...real, ...victim, role: "service_role" }))
      }.${s}`,
      "own token, payload rewritten to the victim's sub": `${h}.${
        b64url(JSON.stringify({ ...real, sub: victim.sub }))
      }.${s}`,
      "alg none": none,
      "expired (project secret)": await hs256({ ...victim, role: "authenticated", exp: now - 30 }, secret),
    };
    const pdfUrl = `${p.url}/storage/v1/object/quote-pdfs/${w.pdfPath}`;
    for (const [label, token] of Object.entries(tokens)) {
      const r = await rest(p, token, "GET", `products?select=id&workspace_id=eq.${w.t.ws}`);
      assert.equal(r.status, 401, `/rest/v1 ${label}: ${JSON.stringify(r.body)}`);
      const st = await answer(await fetch(pdfUrl, { headers: { authorization: `Bearer ${token}` } }));
      assert.equal(st.status, 400, `/storage/v1 ${label}`);
      assert.equal(st.body.statusCode, "403", `/storage/v1 ${label}: ${JSON.stringify(st.body)}`);
      const q = await fn(p, token, "quotes-api", "GET", `/quote-requests/${w.request}`);
      assert.equal(q.status, 401, `quotes-api ${label}: ${JSON.stringify(q.body)}`);
      const g = await gw(p, token, "kb_get_document", { doc_id: w.guideDoc });
      assert.equal(g.status, 401, `ai-gateway ${label}: ${JSON.stringify(g.body)}`);
    }

    // Correctly signed but naming a database role PostgREST may not switch to.
    const pg = await hs256({ ...victim, role: "postgres", exp: now + 600 }, secret);
    assert.equal((await rest(p, pg, "GET", "products?select=id")).status, 403);
    const pgStorage = await answer(await fetch(pdfUrl, { headers: { authorization: `Bearer ${pg}` } }));
    assert.equal(pgStorage.body.statusCode, "403");
    const pgQuotes = await fn(p, pg, "quotes-api", "GET", `/quote-requests/${w.request}`);
    assert.equal(pgQuotes.status, 401, "a postgres-role token is no user");

    // A service-role token that names a user is the service, never that user: quotes-api, which
    // acts for users, does not take it as the owner.
    const svcAsUser = await hs256({ ...victim, role: "service_role", exp: now + 600 }, secret);
    const asOwner = await fn(p, svcAsUser, "quotes-api", "GET", "/quote-requests");
    assert.equal(asOwner.status, 401, JSON.stringify(asOwner.body));
  },
);

platformTest("auth: metadata never grants roles, and admin endpoints refuse user tokens", async (p) => {
  const w = await getWorld(p);
  const out = w.t.outsider;
  const meta = await fetch(`${p.url}/auth/v1/user`, {
    method: "PUT",
    headers: headers(p, out.accessToken),
    body: JSON.stringify({ data: { role: "admin", platform_role: "admin", workspace_role: "owner" } }),
  });
  assert.equal(meta.status, 200);
  await meta.body?.cancel();
  // A fresh token carrying the new metadata.
  const login = await fetch(`${p.url}/auth/v1/token?grant_type=password`, {
    method: "POST",
    headers: headers(p, null),
    body: JSON.stringify({ email: out.email, password: out.password }),
  });
  const session = await login.json();
  const token = session.access_token as string;
  assert.equal(decodePayload(token).role, "authenticated");

  const users = await fn(p, token, "crm-users-api", "GET", "");
  assert.equal(users.status, 403, JSON.stringify(users.body));
  const promote = await rest(p, token, "PATCH", `user_profiles?user_id=eq.${out.id}`, {
    role_id:
      (await p.db.query<{ id: string }>(`select id from public.roles where name = 'admin'`)).rows[0].id,
  });
  assert.ok(nothingDone(promote), JSON.stringify(promote.body));
  const role = await rpc(p, token, "current_platform_role", {});
  assert.equal(role.body, "user");
  const admin = await answer(
    await fetch(`${p.url}/auth/v1/admin/users`, { headers: headers(p, token) }),
  );
  assert.equal(admin.status, 403, JSON.stringify(admin.body));
  const sql = await answer(
    await fetch(`${p.url}/pg/query`, {
      method: "POST",
      headers: headers(p, token),
      body: JSON.stringify({ query: "select 1" }),
    }),
  );
  assert.equal(sql.status, 403, JSON.stringify(sql.body));
  const search = await gw(p, token, "search_knowledge_base", {
    workspace_id: w.t.ws,
    query: "Keraflex",
    search_types: ["kb_docs"],
    category_slug: "pricing",
  });
  assert.equal(search.status, 404);
});
