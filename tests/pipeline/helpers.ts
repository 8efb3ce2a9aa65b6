/**
 * Shared steps of the pipeline tests: the scripted LLM stand-in, the replies of one full run of
 * the sample catalogue (forced tool calls of the stages' tools), backend calls and row counts.
 */
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import type { Platform } from "../../stack/platform.ts";
import type { AnthropicStandIn } from "../../stack/sandbox/providers/anthropic.ts";
import { encodeBase64 } from "../../packages/shared/embeddings/decode.ts";
import { DISCOVERY, metadataOf, sampleCatalogue } from "../helpers/catalogue_pdf.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

export function llm(p: Platform): AnthropicStandIn {
  const s = p.sandbox!.get("anthropic");
  s.reset();
  return s;
}

/** A verdict as JSON text (tests/ai_services scripts it for its own calls). */
export const verdict = (category: string, confidence: number) => JSON.stringify({ category, confidence });

/** The stages' answers as the forced tool calls the pipeline makes (extract.ts, classify_images.ts, extract_metadata.ts). */
export const call = (name: string, input: Record<string, unknown>) => ({ toolUse: [{ name, input }] });
export const discoveryCall = (found: Record<string, unknown> = DISCOVERY) => call("report_products", found);
export const verdictCall = (category: string, confidence: number) =>
  call("classify_image", { category, confidence });
export const metadataCall = (material: string) => call("report_product_metadata", metadataOf(material));

/** The replies of one full run of the sample catalogue, in call order. */
export function scriptFullRun(s: AnthropicStandIn, onCall: () => Promise<void> = () => Promise.resolve()) {
  const r = (reply: ReturnType<typeof call>) => ({ ...reply, beforeReply: onCall });
  s.reply(
    r(discoveryCall()),
    r(verdictCall("material", 0.92)), // page-2-image-1: oak swatch, sure
    r(verdictCall("material", 0.55)), // page-3-image-1: unsure, so the validation model decides
    r(verdictCall("material", 0.88)),
    r(verdictCall("logo", 0.97)), // page-3-image-2: a logo, not kept by focused extraction
    r(metadataCall("oak")),
    r(metadataCall("slate")),
  );
}

export async function post(p: Platform, token: string, path: string, body: unknown = {}) {
  const res = await fetch(`${aiBackendOf(p).url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() as Json };
}

export async function q(p: Platform, sql: string, params: unknown[] = []): Promise<Json[]> {
  return (await p.db.query<Json>(sql, params)).rows;
}

export async function documentCounts(p: Platform, documentId: string) {
  const [row] = await q(
    p,
    `select (select count(*) from public.pipeline_products where document_id = $1)::int as products,
            (select count(*) from public.document_images where document_id = $1)::int as images,
            (select count(*) from public.document_chunks where document_id = $1)::int as chunks,
            (select count(*) from public.document_relationships where document_id = $1)::int as relationships`,
    [documentId],
  );
  return row;
}

export async function get(p: Platform, token: string, path: string) {
  const res = await fetch(`${aiBackendOf(p).url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const type = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    type,
    body: type.includes("json") ? await res.json() as Json : await res.text(),
  };
}

/** Uploads the sample catalogue and runs it to completion; answers the finished job. */
export async function processSample(p: Platform, token: string): Promise<Json> {
  scriptFullRun(llm(p));
  const res = await post(p, token, "/api/rag/documents/upload", {
    pdf_base64: encodeBase64(await sampleCatalogue()),
    filename: "catalogue.pdf",
  });
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
