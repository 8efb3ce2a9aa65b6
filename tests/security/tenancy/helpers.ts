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
 *
 * This module holds what the topic files of tests/security/tenancy/ share: the HTTP helpers,
 * forged JWTs, the victim's world (seeded once per test module: each topic file seeds its own)
 * and the schema read as the superuser. Each topic file is one test module with one platform,
 * so there are few of them.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../../stack/platform.ts";
import { createTeam, type Team } from "../../helpers/team.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

export interface Answer {
  status: number;
  body: Json;
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers

export async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: Json = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

export function headers(p: Platform, token: string | null, extra: Record<string, string> = {}) {
  return {
    apikey: p.config.anonKey,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    "content-type": "application/json",
    ...extra,
  };
}

/** /rest/v1 as `token` (null: the anon key alone). Writes ask for return=representation. */
export async function rest(
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

export async function rpc(p: Platform, token: string | null, fn: string, args: Record<string, unknown>) {
  return await rest(p, token, "POST", `rpc/${fn}`, args);
}

export async function fn(
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

export async function gw(
  p: Platform,
  token: string | null,
  action: string,
  payload: Record<string, unknown>,
) {
  return await fn(p, token, "ai-gateway", "POST", "", { action, payload });
}

export async function gwOk(p: Platform, token: string, action: string, payload: Record<string, unknown>) {
  const r = await gw(p, token, action, payload);
  assert.ok(r.status >= 200 && r.status < 300 && r.body?.success, `${action}: ${JSON.stringify(r)}`);
  return r.body.data;
}

/** The AI backend directly (platform.env.AI_BACKEND_URL). */
export async function backend(
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

export function ok(r: Answer, what: string): Json {
  assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A refusal, or a 2xx that touched no row: what RLS gives a filtered write it hides. */
export function nothingDone(r: Answer): boolean {
  return r.status >= 400 || (Array.isArray(r.body) && r.body.length === 0);
}

// ---------------------------------------------------------------------------------------------
// JWTs built by hand (WebCrypto), to forge what an attacker could

export function b64url(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export async function hs256(claims: Record<string, unknown>, secret: string): Promise<string> {
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

export function decodePayload(token: string): Record<string, unknown> {
  const part = token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(atob(part + "=".repeat((4 - part.length % 4) % 4)));
}

// ---------------------------------------------------------------------------------------------
// The victim's world, seeded once per module

export const PRICE_LIST = `# Mapei price list 2026
Manufacturer: Mapei
All prices in EUR, valid from 2026-01-01

| Art. No. | Description | Unit | 1-49 | 50+ |
|---|---|---|---|---|
| MP-100 | Keraflex Maxi S1 grey 25 kg | bag | 12,50 | 12,00 |
| MP-200 | Ultracolor Plus grout 5 kg | bag | 9,80 | - |
`;

export interface World {
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

/** One world per platform (the files that share these helpers may run in one module: shards.ts). */
const worlds = new WeakMap<Platform, Promise<World>>();

export function getWorld(p: Platform): Promise<World> {
  let world = worlds.get(p);
  if (!world) worlds.set(p, world = seed(p));
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

export interface Relation {
  name: string;
  kind: "r" | "v";
  columns: Map<string, string>;
}

export async function relations(p: Platform): Promise<Relation[]> {
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
export async function snapshot(p: Platform, rels: Relation[]): Promise<Record<string, string>> {
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
export function victimFilter(rel: Relation, w: World): string | null {
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
export function patchBody(rel: Relation): Record<string, unknown> | null {
  for (const [col, type] of rel.columns) {
    if (type.startsWith("timestamp")) return { [col]: new Date().toISOString() };
  }
  for (const [col, type] of rel.columns) if (type === "text") return { [col]: "pwned" };
  return null;
}

export const mentionsVictim = (row: unknown, ids: string[]) => {
  const s = JSON.stringify(row);
  return ids.some((id) => s.includes(id));
};
