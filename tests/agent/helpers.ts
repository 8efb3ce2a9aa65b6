/**
 * Shared setup of the agent-chat tests: a team (owner, admin, member, viewer of one workspace;
 * an outsider owning another), credits, the Pricing category and documents ingested through the
 * ai-gateway (the KB's own path), and a helper that posts to agent-chat and reads the NDJSON
 * stream back into chunks.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import type { AnthropicStandIn } from "../../stack/sandbox/providers/anthropic.ts";
import { createTeam as makeTeam, type Team } from "../helpers/team.ts";
import { type AgentChunk, decodeChunks } from "../../packages/shared/agent/stream.ts";

/** Parsed JSON of captured requests and rows, read field by field in assertions. */
// deno-lint-ignore no-explicit-any
export type Json = any;

export { balance, grant, type Team } from "../helpers/team.ts";

export function createTeam(p: Platform, credits = 100): Promise<Team> {
  return makeTeam(p, { prefix: "agent", credits, names: ["Tiles & Co", "Other shop"] });
}

/** The scripted LLM stand-in, emptied of earlier scripts and captures. */
export function llm(p: Platform): AnthropicStandIn {
  const standIn = p.sandbox!.get("anthropic");
  standIn.reset();
  return standIn;
}

/** POST /functions/v1/ai-gateway, asserting success; returns data. */
export async function gatewayOk(
  p: Platform,
  token: string,
  action: string,
  payload: Record<string, unknown>,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await fetch(`${p.url}/functions/v1/ai-gateway`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ action, payload }),
  });
  const body = await res.json();
  assert.ok(res.status >= 200 && res.status < 300 && body.success, `${action}: ${JSON.stringify(body)}`);
  return body.data;
}

export async function createPricingCategory(p: Platform, token: string, ws: string): Promise<string> {
  const data = await gatewayOk(p, token, "kb_create_category", {
    workspace_id: ws,
    name: "Pricing",
    slug: "pricing",
    access_level: "admin",
    trigger_keyword: "price",
  });
  return data.id;
}

export async function ingest(
  p: Platform,
  token: string,
  ws: string,
  categoryId: string,
  doc: { title: string; price_doc_type?: string; content: string },
): Promise<string> {
  const data = await gatewayOk(p, token, "kb_create_document", {
    workspace_id: ws,
    category_id: categoryId,
    status: "published",
    ...doc,
  });
  return data.id;
}

/** YYYY-MM-DD, `days` from today (UTC, the engine's clock in agent-chat). */
export function isoDay(days = 0): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export const MAPEI_LIST = {
  title: "Mapei price list 2026",
  price_doc_type: "price_list",
  content: `# Mapei price list 2026
Manufacturer: Mapei
All prices in EUR, valid from 2026-01-01

| Art. No. | Description | Unit | 1-49 | 50+ |
|---|---|---|---|---|
| MP-100 | Keraflex Maxi S1 grey 25 kg | bag | 12,50 | 12,00 |
| MP-200 | Ultracolor Plus grout 5 kg | bag | 9,80 | - |
`,
};

export const MAPEI_DISCOUNT = {
  title: "Mapei dealer discount",
  price_doc_type: "discount_rule",
  content: "# Dealer discounts\n- All Mapei products 15% off",
};

export function groutPromotion() {
  return {
    title: "Grout promotion",
    price_doc_type: "promotion",
    content: `- Promo price for SKU MP-200: 7,90 €/bag, valid ${isoDay(-10)} to ${isoDay(30)}`,
  };
}

export interface ChatAnswer {
  status: number;
  headers: Headers;
  chunks: AgentChunk[];
  // deno-lint-ignore no-explicit-any
  error: any;
  raw: string;
}

/** POST /functions/v1/agent-chat; a 200 body is split into its NDJSON chunks. */
export async function chat(p: Platform, token: string | null, body: unknown): Promise<ChatAnswer> {
  const res = await fetch(`${p.url}/functions/v1/agent-chat`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "content-type": "application/json",
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const raw = await res.text();
  const ok = res.status === 200;
  return {
    status: res.status,
    headers: res.headers,
    chunks: ok ? decodeChunks(raw) : [],
    error: ok ? null : JSON.parse(raw),
    raw,
  };
}

/** The chunk kinds in order, heartbeats and progress left out (they may come anywhere). */
export function kinds(chunks: AgentChunk[]): string[] {
  const out: string[] = [];
  for (const c of chunks) {
    if (c.type === "heartbeat" || c.type === "tool_progress") continue;
    if (c.type === "text" && out[out.length - 1] === "text") continue; // text arrives in deltas
    out.push(c.type);
  }
  return out;
}

export function textOf(chunks: AgentChunk[]): string {
  return chunks.map((c) => (c.type === "text" ? c.text : "")).join("");
}

export function only<T extends AgentChunk["type"]>(chunks: AgentChunk[], type: T) {
  return chunks.filter((c) => c.type === type) as Extract<AgentChunk, { type: T }>[];
}

export const ask = (text: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ role: "user", content: text }],
  ...extra,
});

/**
 * A chat request in workspace `ws` (context.workspace_id). Every user also owns a personal
 * workspace, so a team member belongs to two and names the one meant, as a client does.
 */
export const askIn = (ws: string, text: string, extra: Record<string, unknown> = {}) =>
  ask(text, { ...extra, context: { workspace_id: ws } });

/** A team whose admin set up Pricing: the Mapei list, its discount rule, a grout promotion, one product. */
export async function pricingSetup(p: Platform) {
  const t = await createTeam(p);
  const cat = await createPricingCategory(p, t.admin.accessToken, t.ws);
  const docs = {
    list: await ingest(p, t.admin.accessToken, t.ws, cat, MAPEI_LIST),
    discount: await ingest(p, t.admin.accessToken, t.ws, cat, MAPEI_DISCOUNT),
    promotion: await ingest(p, t.owner.accessToken, t.ws, cat, groutPromotion()),
  };
  const product = await t.admin.client.from("products")
    .insert({ workspace_id: t.ws, name: "Keraflex Maxi S1 grey 25 kg", sku: "MP-100" }).select("id").single();
  assert.equal(product.error, null);
  return { t, cat, docs, productId: product.data!.id as string };
}
