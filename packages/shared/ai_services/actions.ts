/**
 * The AI services' actions (gateway group AI services), one function per route of
 * routes/ai_services.ts: each resolves the request's ai_config, reads what the request names as
 * the caller (RLS: others' documents and products are 404), runs the model tasks of tasks.ts in
 * a ModelRun recorded against the request's workspace, and returns the answer's body.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { rows } from "../supabase/postgrest.ts";
import { aiConfigOf } from "./config.ts";
import { type AiDeps, modelRun } from "./deps.ts";
import type {
  BoundariesBody,
  ClassifyBatchBody,
  ClassifyBody,
  ConsensusBody,
  GroupBody,
  StatsQuery,
  ValidateBody,
} from "./schemas.ts";
import {
  checkUniqueIds,
  CLASSIFY_CHARS,
  classifyDocument,
  consensusValidate,
  CRITICAL_TASKS,
  detectBoundaries,
  groupByProduct,
  type PageText,
  type ProductInput,
  validateProduct,
} from "./tasks.ts";

/** The text of a pipeline document the caller may read (its chunks, in order), or 404. */
export async function documentText(
  db: SupabaseClient,
  documentId: string,
): Promise<{ text: string; workspace_id: string | null }> {
  const doc = rows(
    await db.from("pipeline_documents").select("id, workspace_id").eq("id", documentId).maybeSingle(),
    "Document",
  ) as { workspace_id: string | null } | null;
  if (!doc) throw DomainError.notFound("Document not found");
  const chunks = rows(
    await db.from("document_chunks").select("content").eq("document_id", documentId).order("chunk_index")
      .limit(200),
    "Document chunks",
  ) as { content: string }[];
  let text = "";
  for (const ch of chunks) {
    if (text.length >= CLASSIFY_CHARS) break;
    text += (text ? "\n\n" : "") + ch.content;
  }
  if (!text.trim()) throw DomainError.invalid("The document has no text to classify", undefined, "no_text");
  return { text, workspace_id: doc.workspace_id };
}

/** A product record the caller may read (RLS), as a model reads it, with its workspace; or 404. */
export async function productRecord(
  db: SupabaseClient,
  productId: string,
): Promise<{ product: ProductInput; workspace_id: string }> {
  const row = rows(
    await db.from("products").select("workspace_id, name, description, sku, category, metadata")
      .eq("id", productId).maybeSingle(),
    "Product",
  ) as (ProductInput & { workspace_id: string }) | null;
  if (!row) throw DomainError.notFound("Product not found");
  const { workspace_id, ...product } = row;
  return { product, workspace_id };
}

/** ai_classify_document: a text, or a stored document's text. */
export async function classifyDocumentAction(deps: AiDeps, body: ClassifyBody) {
  const ai = aiConfigOf(body.ai_config);
  const doc = body.document_id ? await documentText(deps.db, body.document_id) : null;
  const run = modelRun(deps, "ai_classify_document", body.workspace_id ?? doc?.workspace_id);
  const result = await classifyDocument(run, ai, doc?.text ?? body.content!);
  return {
    ...(body.document_id ? { document_id: body.document_id } : {}),
    ...result,
    model: ai.classification_primary_model,
  };
}

/** ai_classify_batch: 1-20 texts, all or nothing. */
export async function classifyBatch(deps: AiDeps, body: ClassifyBatchBody) {
  const ai = aiConfigOf(body.ai_config);
  const run = modelRun(deps, "ai_classify_batch", body.workspace_id);
  const results = [];
  for (const [index, d] of body.documents.entries()) {
    results.push({ index, id: d.id ?? null, ...await classifyDocument(run, ai, d.content) });
  }
  return { results, count: results.length, model: ai.classification_primary_model };
}

/** ai_detect_boundaries over the request's pages (`pages`: the HTTP layer reads a PDF's). */
export async function detectBoundariesAction(
  deps: AiDeps,
  body: BoundariesBody,
  pages: () => Promise<PageText[]>,
) {
  const ai = aiConfigOf(body.ai_config);
  const read = await pages();
  const run = modelRun(deps, "ai_detect_boundaries", body.workspace_id);
  return { ...await detectBoundaries(run, ai, read), model: ai.discovery_model };
}

/** ai_group_by_product: by page ranges when given, else by the model. */
export async function groupAction(deps: AiDeps, body: GroupBody) {
  checkUniqueIds(body.items);
  const ai = aiConfigOf(body.ai_config);
  const run = modelRun(deps, "ai_group_by_product", body.workspace_id);
  const result = await groupByProduct(run, ai, body.items, body.products);
  return { ...result, model: result.method === "model" ? ai.discovery_model : null };
}

/** ai_validate_product: a given record, or a product the caller may read by id. */
export async function validateProductAction(deps: AiDeps, body: ValidateBody) {
  const ai = aiConfigOf(body.ai_config);
  const stored = body.product_id ? await productRecord(deps.db, body.product_id) : null;
  const run = modelRun(deps, "ai_validate_product", stored?.workspace_id ?? body.workspace_id);
  return {
    ...(body.product_id ? { product_id: body.product_id } : {}),
    ...await validateProduct(run, ai, stored?.product ?? body.product!),
  };
}

/** ai_consensus_validate. */
export async function consensusAction(deps: AiDeps, body: ConsensusBody) {
  const ai = aiConfigOf(body.ai_config);
  return await consensusValidate(modelRun(deps, "ai_consensus_validate", body.workspace_id), ai, body);
}

// ---- Escalation statistics ---------------------------------------------------------------------

interface CallRow {
  task_type: string;
  model: string;
  ok: boolean;
  attempt: number;
  escalated: boolean;
  escalation_reason: string | null;
}

/** The most call rows a statistic reads. */
const MAX_STAT_ROWS = 50_000;

/**
 * ai_escalation_stats: the caller's model calls (or a workspace's, the caller authorised for it
 * by the HTTP layer; every call for the service role) over the last `days`.
 */
export async function escalationStats(db: SupabaseClient, userId: string | null, q: StatsQuery) {
  const since = new Date(Date.now() - q.days * 86_400_000).toISOString();
  const all: CallRow[] = [];
  for (let from = 0;; from += 1000) {
    let query = db.from("ai_service_calls")
      .select("task_type, model, ok, attempt, escalated, escalation_reason")
      .gte("created_at", since).order("created_at").order("id").range(from, from + 999);
    if (q.workspace_id) query = query.eq("workspace_id", q.workspace_id);
    else if (userId) query = query.eq("user_id", userId);
    const page = rows(await query, "Model calls") as CallRow[];
    all.push(...page);
    if (page.length < 1000 || all.length >= MAX_STAT_ROWS) break;
  }
  return {
    scope: q.workspace_id ? { workspace_id: q.workspace_id } : userId ? { user_id: userId } : "all",
    period_days: q.days,
    since,
    ...summarise(all),
    by_task_type: groupBy(all, "task_type"),
    by_model: groupBy(all, "model"),
  };
}

function summarise(list: CallRow[]) {
  const escalations = list.filter((x) => x.escalated).length;
  return {
    total_calls: list.length,
    failed_calls: list.filter((x) => !x.ok).length,
    retried_calls: list.filter((x) => x.attempt > 1).length,
    escalations,
    escalation_rate: list.length ? Math.round((escalations / list.length) * 10_000) / 10_000 : 0,
    by_reason: {
      low_confidence: list.filter((x) => x.escalation_reason === "low_confidence").length,
      disagreement: list.filter((x) => x.escalation_reason === "disagreement").length,
    },
  };
}

function groupBy(list: CallRow[], key: "task_type" | "model") {
  return Object.fromEntries(
    [...new Set(list.map((x) => x[key]))].sort().map((k) => [k, summarise(list.filter((x) => x[key] === k))]),
  );
}

// ---- Health ------------------------------------------------------------------------------------

/** The AI services' model configuration and whether the call log is reachable. */
export async function aiServicesHealth(deps: Pick<AiDeps, "service" | "llm">) {
  const ai = aiConfigOf(undefined);
  const llm = deps.llm();
  const configured = llm.configured;
  const t0 = performance.now();
  const { error } = await deps.service.from("ai_service_calls").select("id", { head: true, count: "exact" })
    .limit(1);
  return {
    status: configured && !error ? "healthy" : "degraded",
    llm: {
      provider: llm.provider,
      configured,
      primary_model: ai.classification_primary_model,
      validation_model: ai.classification_validation_model,
      discovery_model: ai.discovery_model,
      confidence_threshold: ai.classification_confidence_threshold,
    },
    database: error
      ? { reachable: false, error: error.message }
      : { reachable: true, latency_ms: Math.round(performance.now() - t0) },
    critical_task_types: Object.keys(CRITICAL_TASKS).filter((k) => CRITICAL_TASKS[k].critical),
  };
}
