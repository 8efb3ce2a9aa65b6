/**
 * Shared setup of the SEO tests: the stand-ins (reset), POST helpers for the five functions, and
 * reads of the seo_articles row and the caller's ledger.
 */
import type { Platform } from "../../stack/platform.ts";
import type { AnthropicStandIn } from "../../stack/sandbox/providers/anthropic.ts";
import type { DataForSeoStandIn } from "../../stack/sandbox/providers/dataforseo.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

export { articleInput, planInput, reviewInput, scriptPipeline, tool } from "../../fixtures/seo.ts";
export { balance, grant } from "../helpers/team.ts";

export function standIns(p: Platform): { anthropic: AnthropicStandIn; dataforseo: DataForSeoStandIn } {
  const anthropic = p.sandbox!.get("anthropic");
  const dataforseo = p.sandbox!.get("dataforseo");
  anthropic.reset();
  dataforseo.reset();
  return { anthropic, dataforseo };
}

export async function post(
  p: Platform,
  fn: string,
  token: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${p.url}/functions/v1/${fn}`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export async function row(p: Platform, id: string): Promise<Json> {
  const r = await p.db.query(`select * from public.seo_articles where id = $1`, [id]);
  return r.rows[0];
}

/** Polls the row until it is completed or failed (a few seconds at most with the stand-ins). */
export async function settled(p: Platform, id: string, timeoutMs = 20_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const r = await row(p, id);
    if (r.status === "completed" || r.status === "failed") return r;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`article ${id} did not settle`);
}

/** The caller's SEO ledger rows: debits and refunds by action. */
export async function seoLedger(
  p: Platform,
  userId: string,
): Promise<{ kind: string; action: string; amount: number }[]> {
  const r = await p.db.query<{ kind: string; action: string; amount: string }>(
    `select kind, action, amount from public.credit_transactions
      where user_id = $1 and (action like 'seo_%' or (kind = 'refund' and refund_of in
        (select id from public.credit_transactions where user_id = $1 and action like 'seo_%')))
      order by created_at, id`,
    [userId],
  );
  return r.rows.map((x) => ({ kind: x.kind, action: x.action, amount: Number(x.amount) }));
}

export const KW = "oak flooring";

export function pipelineBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    topic: "Choosing oak flooring for a family home",
    target_keyword: KW,
    content_brief: {
      contentType: "guide",
      targetAudience: "home owners",
      toneOfVoice: "friendly",
      targetWordCount: 400,
    },
    ...extra,
  };
}
