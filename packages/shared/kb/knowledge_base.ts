/**
 * search_knowledge_base over every search type of the spec (products, entities, chunks,
 * kb_docs), and the KB's hybrid search both KB search routes share.
 *
 * | type     | what is searched                                                         | relevance_score                          |
 * |----------|--------------------------------------------------------------------------|------------------------------------------|
 * | kb_docs  | KB chunks (kb_hybrid_search: HNSW + GIN, RLS as the caller)              | 0.7 x vector + 0.3 x text                |
 * | chunks   | processed-document chunks (rag_search_chunks, hybrid candidates)         | 0.7 x vector_score + 0.3 x text_score    |
 * | products | the workspace's catalog products (public.products)                       | pg_trgm word_similarity(query, record)   |
 * | entities | products the PDF pipeline discovered (pipeline_products + metadata)      | pg_trgm word_similarity(query, record)   |
 *
 * Callers (the `caller` field; tenancy always from the JWT: outsiders 404):
 * - `admin`: every KB access level RLS lets the member read (admin-level categories only for
 *   owners and admins: claiming `admin` widens nothing), chunks, entities, catalog products
 *   that are active or draft.
 * - `agent` (default): the same KB levels, chunks and entities; active products only (what an
 *   assistant may offer a customer).
 * - `public`: asking on the public's behalf (e.g. a storefront widget): public-level KB
 *   documents and active products only; chunks and entities are internal, so they are skipped
 *   (listed in skipped_search_types with the reason).
 * Archived products are never returned.
 *
 * The answer's `chunks` (the spec's "chunks as in Resources") each carry the spec's chunk fields
 * (id, document_title, content, category_slug, category_name, price_doc_type, relevance_score)
 * plus `type` and where it comes from. Each
 * type contributes at most top_k results above similarity_threshold (the trigram types at least
 * 0.3, below which unrelated words match); one list, by relevance_score. KB category filters
 * (category_slug, category_id, price_doc_type) concern KB documents only: with one of them only
 * kb_docs is searched. With category_slug pricing it is the quick-pick mode instead: no language
 * model, the Pricing category's KB chunks with exactly the spec's seven fields (`knowledgeBase`).
 *
 * Every function takes the caller's `WorkspaceScope` (the HTTP layer has checked membership:
 * outsiders 404) and the embedding provider; the pricing checks (owners and admins, members
 * 403) are made here, where the filters are known.
 */
import type { z } from "zod";
import {
  type AccessLevel,
  type kbSearchSchema,
  PRICING_SLUG,
  type searchKnowledgeBaseSchema,
} from "./schemas.ts";
import {
  allowedAccessLevels,
  type HybridRow,
  isQuickPick,
  slugify,
  toQuickPick,
  toSearchHit,
} from "./search.ts";
import { type EmbeddingProvider, toPgVector } from "../embeddings/provider.ts";
import { embeddingSketch } from "../embeddings/simhash.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { dbError } from "../supabase/postgrest.ts";
import type { ChunkRow } from "../rag/search.ts";
import { round } from "../rag/search.ts";
import { categoryOf, requirePricingRole } from "./access.ts";

export interface SearchParams {
  query: string;
  limit: number;
  threshold: number;
  category_id?: string;
  category_slug?: string;
  price_doc_type?: string | string[];
  require_published: boolean;
  access_levels: AccessLevel[] | null;
  /** The query's embedding when the caller already has it. */
  vector?: number[];
}

/** Authorises the pricing filters, embeds the query, runs kb_hybrid_search as the caller. */
export async function hybridSearch(
  scope: WorkspaceScope,
  embeddings: EmbeddingProvider,
  p: SearchParams,
): Promise<HybridRow[]> {
  const pricing = p.category_slug === PRICING_SLUG || p.price_doc_type !== undefined ||
    (p.access_levels?.length === 1 && p.access_levels[0] === "admin");
  if (pricing) requirePricingRole(scope);
  else if (p.category_id && (await categoryOf(scope, p.category_id)).access_level === "admin") {
    requirePricingRole(scope);
  }
  const vector = p.vector ?? (await embeddings.embed([p.query], "query"))[0];
  const { data, error } = await scope.db.rpc("kb_hybrid_search", {
    p_workspace_id: scope.workspaceId,
    p_query_text: p.query,
    p_query_embedding: toPgVector(vector),
    p_query_sketch: embeddingSketch(vector),
    p_match_count: p.limit,
    p_match_threshold: p.threshold,
    p_category_id: p.category_id ?? undefined,
    p_category_slug: p.category_slug ?? undefined,
    p_price_doc_types: p.price_doc_type === undefined ? undefined : [p.price_doc_type].flat(),
    p_require_published: p.require_published,
    p_access_levels: p.access_levels ?? undefined,
  });
  if (error) throw dbError(error, "Knowledge-base search");
  return (data ?? []) as HybridRow[];
}

type SkbInput = z.infer<typeof searchKnowledgeBaseSchema>;

/** kb_search (POST /api/kb/search): `results`, the hybrid rows as search hits. */
export async function kbSearch(
  scope: WorkspaceScope,
  embeddings: EmbeddingProvider,
  body: z.infer<typeof kbSearchSchema>,
) {
  const rows = await hybridSearch(scope, embeddings, {
    query: body.query,
    limit: body.limit,
    threshold: body.match_threshold,
    category_id: body.category_id,
    category_slug: body.category_slug,
    price_doc_type: body.price_doc_type,
    require_published: body.require_published,
    access_levels: body.allowed_access_levels ?? null,
  });
  return { query: body.query, results: rows.map(toSearchHit), total_results: rows.length };
}

/** search_knowledge_base: the quick-pick mode with category_slug pricing, else every search type. */
export function knowledgeBase(scope: WorkspaceScope, embeddings: EmbeddingProvider, body: SkbInput) {
  return isQuickPick(body.category_slug)
    ? quickPick(scope, embeddings, body)
    : searchKnowledgeBase(scope, embeddings, body);
}

/** Quick pick: the Pricing category's KB chunks only, with exactly the spec's fields. */
async function quickPick(scope: WorkspaceScope, embeddings: EmbeddingProvider, body: SkbInput) {
  const rows = await hybridSearch(scope, embeddings, {
    query: body.query,
    limit: body.top_k,
    threshold: body.similarity_threshold,
    category_slug: body.category_slug,
    category_id: body.category_id,
    price_doc_type: body.price_doc_type,
    require_published: false,
    access_levels: allowedAccessLevels(body.caller, undefined),
  });
  const skipped = body.search_types.filter((t) => t !== "kb_docs");
  return {
    mode: "quick_pick",
    query: body.query,
    chunks: rows.map(toQuickPick),
    total_results: rows.length,
    ...(skipped.length ? { skipped_search_types: skipped } : {}),
  };
}

/** A search_knowledge_base result: the spec's chunk fields, the type, and where it comes from. */
export interface KnowledgeResult {
  type: "kb_doc" | "chunk" | "product" | "entity";
  id: string;
  document_title: string;
  content: string;
  category_slug: string | null;
  category_name: string | null;
  price_doc_type: string | null;
  relevance_score: number;
  [extra: string]: unknown;
}

interface RecordRow {
  type: "product" | "entity";
  id: string;
  title: string;
  content: string;
  category: string | null;
  document_id: string | null;
  page_start: number | null;
  page_end: number | null;
  relevance_score: number;
}

/** The trigram types' floor: below it unrelated words share enough trigrams to match. */
const RECORD_THRESHOLD_FLOOR = 0.3;
/** kb_hybrid_search's weight of the vector score, used for document chunks too. */
const VECTOR_WEIGHT = 0.7;

function chunkHit(r: ChunkRow): KnowledgeResult {
  return {
    type: "chunk",
    id: r.chunk_id,
    document_title: r.document_filename ?? r.document_id,
    content: r.content,
    category_slug: null,
    category_name: null,
    price_doc_type: null,
    relevance_score: round(VECTOR_WEIGHT * r.vector_score + (1 - VECTOR_WEIGHT) * r.text_score)!,
    document_id: r.document_id,
    chunk_index: r.chunk_index,
    page_start: r.page_start,
    page_end: r.page_end,
    products: r.product_id ? [{ id: r.product_id, name: r.product_name }] : [],
    vector_score: round(r.vector_score),
    text_score: round(r.text_score),
  };
}

function recordHit(r: RecordRow): KnowledgeResult {
  return {
    type: r.type,
    id: r.id,
    document_title: r.title,
    content: r.content,
    category_slug: r.category ? slugify(r.category) : null,
    category_name: r.category,
    price_doc_type: null,
    relevance_score: round(r.relevance_score)!,
    ...(r.type === "entity"
      ? { document_id: r.document_id, page_start: r.page_start, page_end: r.page_end }
      : {}),
  };
}

/** search_knowledge_base outside quick pick (see the module doc). */
export async function searchKnowledgeBase(
  scope: WorkspaceScope,
  embeddings: EmbeddingProvider,
  body: SkbInput,
) {
  const ws = scope.workspaceId;
  const kbFilters = body.category_slug !== undefined || body.category_id !== undefined ||
    body.price_doc_type !== undefined;
  const skipped: { type: string; reason: string }[] = [];
  const wanted = new Set<string>();
  for (const t of new Set(body.search_types)) {
    if (t !== "kb_docs" && kbFilters) {
      skipped.push({
        type: t,
        reason: "KB category filters (category_slug, category_id, price_doc_type) apply to kb_docs only",
      });
    } else if ((t === "chunks" || t === "entities") && body.caller === "public") {
      skipped.push({
        type: t,
        reason: "processed-document chunks and entities are internal, not for public callers",
      });
    } else wanted.add(t);
  }
  const needVector = wanted.has("kb_docs") || wanted.has("chunks");
  const vector = needVector ? (await embeddings.embed([body.query], "query"))[0] : undefined;
  const recordTypes = ["products", "entities"].filter((t) => wanted.has(t));
  const [kb, chunks, records] = await Promise.all([
    wanted.has("kb_docs")
      ? hybridSearch(scope, embeddings, {
        query: body.query,
        limit: body.top_k,
        threshold: body.similarity_threshold,
        category_id: body.category_id,
        category_slug: body.category_slug,
        price_doc_type: body.price_doc_type,
        require_published: false,
        access_levels: allowedAccessLevels(body.caller, undefined),
        vector,
      })
      : Promise.resolve([]),
    wanted.has("chunks")
      ? scope.db.rpc("rag_search_chunks", {
        p_query_text: body.query,
        p_query_embedding: toPgVector(vector!),
        p_mode: "hybrid",
        p_match_count: body.top_k * 2,
        p_workspace_id: ws,
      }).then(({ data, error }) => {
        if (error) throw dbError(error, "Document chunk search");
        return (data ?? []) as ChunkRow[];
      })
      : Promise.resolve([]),
    recordTypes.length
      ? scope.db.rpc("rag_search_records", {
        p_workspace_id: ws,
        p_query_text: body.query,
        p_types: recordTypes,
        p_caller: body.caller,
        p_match_count: body.top_k,
        p_threshold: Math.max(body.similarity_threshold, RECORD_THRESHOLD_FLOOR),
      }).then(({ data, error }) => {
        if (error) throw dbError(error, "Product and entity search");
        return (data ?? []) as RecordRow[];
      })
      : Promise.resolve([]),
  ]);
  const chunkHits = chunks.map(chunkHit).filter((h) => h.relevance_score >= body.similarity_threshold)
    .sort((a, b) => b.relevance_score - a.relevance_score).slice(0, body.top_k);
  const results: KnowledgeResult[] = [
    ...kb.map((r) => ({ type: "kb_doc" as const, ...toSearchHit(r) })),
    ...chunkHits,
    ...records.map(recordHit),
  ].sort((a, b) =>
    b.relevance_score - a.relevance_score || a.type.localeCompare(b.type) || a.id.localeCompare(b.id)
  );
  const counts = Object.fromEntries(["kb_doc", "chunk", "product", "entity"].map((t) => [
    t,
    results.filter((r) => r.type === t).length,
  ]));
  return {
    mode: "hybrid",
    query: body.query,
    caller: body.caller,
    search_types: [...wanted],
    chunks: results,
    counts,
    total_results: results.length,
    ...(skipped.length ? { skipped_search_types: skipped.map((s) => s.type), skipped } : {}),
  };
}
