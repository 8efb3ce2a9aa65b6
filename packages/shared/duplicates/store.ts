/**
 * Duplicate detection and merge against the database (routes/duplicates.ts in the AI backend):
 * the catalogue read in pages, detections stored in and read from duplicate_detection_cache, and
 * merges through the SQL functions merge_products / undo_merge (one transaction each, which check
 * the caller's role again from auth.uid()).
 *
 * Everything acts as the caller (`db`: RLS scopes every read and write to their workspaces).
 * A workspace-scoped function takes the WorkspaceScope the HTTP layer built after authorising
 * the caller; product ids must belong to that workspace. A `user_id` in a request is accepted for
 * the spec's sake but never trusted (`checkUserId`): the acting user is the JWT's.
 */
import type { PostgrestError, SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { pageRange } from "../http/pagination.ts";
import { dbError, readInGroups, rows } from "../supabase/postgrest.ts";
import type { Json } from "../supabase/types.ts";
import { batchDetect, detect } from "./batch.ts";
import { DEFAULT_SIMILARITY_THRESHOLD, recommendedAction } from "./scoring.ts";
import { extractFactory } from "./similarity.ts";
import type { Product } from "./types.ts";
import {
  type BatchRequest,
  type CachedQuery,
  DEFAULT_BATCH_LIMIT,
  type DetectRequest,
  type HistoryQuery,
  type MergeRequest,
  type StatusRequest,
  type UndoRequest,
} from "./schemas.ts";

/** PostgREST's max_rows: the catalogue is read in pages of this size. */
const PAGE = 1000;

/** The spec's fields of a merge history record; the undo bookkeeping is summarised as counts. */
const HISTORY_FIELDS = "id, workspace_id, merged_at, merged_by, source_product_ids, source_product_names, " +
  "target_product_id, target_product_name, similarity_score, merge_reason, merge_strategy, is_undone, undone_at, " +
  "undone_by";

type HistoryRow = Record<string, unknown> & {
  similarity_score: number | null;
  moved_relationships?: unknown[];
  removed_rows?: unknown[];
};

function historyView(row: HistoryRow) {
  const { moved_relationships, removed_rows, ...fields } = row;
  return {
    ...fields,
    recommended_action: fields.similarity_score === null ? null : recommendedAction(fields.similarity_score),
    ...(moved_relationships ? { relationships_moved: moved_relationships.length } : {}),
    ...(removed_rows ? { rows_removed: removed_rows.length } : {}),
  };
}

/** The SQL functions' own refusals (PT404, PT409) on top of the common mapping. */
function rpcError(error: PostgrestError, what: string): DomainError {
  if (error.code === "PT404") return DomainError.notFound(error.message);
  if (error.code === "PT409") return DomainError.conflict(error.message);
  return dbError(error, what);
}

/**
 * A `user_id` in a request must be the caller's own (403 otherwise); with the service role
 * (`userId` null) there is no user to compare it with, and nothing is recorded in its name.
 */
export function checkUserId(userId: string | null, claimed: string | undefined): void {
  if (claimed !== undefined && userId !== null && claimed !== userId) {
    throw DomainError.forbidden("user_id must be the caller's own id: the acting user comes from the JWT");
  }
}

/** Every product of the workspace the caller can read, in pages. */
async function loadCatalogue(client: SupabaseClient, workspaceId: string): Promise<Product[]> {
  const products: Product[] = [];
  for (let from = 0;; from += PAGE) {
    const page = rows(
      await client.from("products").select("id, name, description, metadata").eq("workspace_id", workspaceId)
        .order("id").range(from, from + PAGE - 1),
      "Product",
    ) as Product[];
    products.push(...page);
    if (page.length < PAGE) return products;
  }
}

async function productNames(client: SupabaseClient, ids: string[]): Promise<Map<string, string>> {
  // An `in` list goes in the request line: split it (about 150 uuids a read), never by PAGE.
  const found = rows(
    await readInGroups(
      [...new Set(ids)],
      (list) => client.from("products").select("id, name").filter("id", "in", list),
    ),
    "Product",
  ) as { id: string; name: string }[];
  return new Map(found.map((r) => [r.id, r.name]));
}

/** Duplicates of one product in its workspace, best first (none when it has no factory). */
export async function detectForProduct(scope: WorkspaceScope, body: DetectRequest) {
  const product = rows(
    await scope.db.from("products").select("id, name, description, metadata").eq("id", body.product_id)
      .eq("workspace_id", scope.workspaceId).maybeSingle(),
    "Product",
  ) as Product | null;
  if (!product) throw DomainError.notFound("Product not found in the workspace");
  const similarity_threshold = body.similarity_threshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  const factory = extractFactory(product.metadata);
  const matches = factory === null
    ? []
    : detect(product, await loadCatalogue(scope.db, scope.workspaceId), similarity_threshold);
  return { product_id: product.id, workspace_id: scope.workspaceId, factory, similarity_threshold, matches };
}

/** Every duplicate pair of the workspace, stored in the detection cache (status kept on re-runs). */
export async function batchDetectAndStore(scope: WorkspaceScope, body: BatchRequest) {
  const similarity_threshold = body.similarity_threshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  const limit = body.limit ?? DEFAULT_BATCH_LIMIT;
  const { pairs, stats } = batchDetect(
    await loadCatalogue(scope.db, scope.workspaceId),
    similarity_threshold,
    limit,
  );
  // One jsonb array of every stored row (not a set, which max_rows would cut at 1,000).
  const stored = pairs.length
    ? rows(
      await scope.db.rpc("store_duplicate_detections", {
        p_workspace_id: scope.workspaceId,
        // DuplicatePair is an interface of JSON values (no index signature, so not `Json` to TS).
        p_pairs: pairs as unknown as Json,
      }),
      "Storing detections",
    ) as { id: string; product_id_1: string; product_id_2: string; status: string }[]
    : [];
  const cached = new Map(stored.map((r) => [`${r.product_id_1}/${r.product_id_2}`, r]));
  if (cached.size !== pairs.length) {
    throw DomainError.internal("Storing detections answered fewer rows than pairs stored", "db_error");
  }
  return {
    workspace_id: scope.workspaceId,
    similarity_threshold,
    limit,
    duplicates_found: stats.duplicates_found,
    pairs: pairs.map((pair) => {
      const row = cached.get(`${pair.product_id_1}/${pair.product_id_2}`)!;
      return { cache_id: row.id, status: row.status, ...pair };
    }),
    stats,
  };
}

/** Stored detections of the workspace, best first, with both products' names. */
export async function cachedDetections(scope: WorkspaceScope, q: CachedQuery) {
  let query = scope.db.from("duplicate_detection_cache").select("*", { count: "exact" })
    .eq("workspace_id", scope.workspaceId);
  if (q.status) query = query.eq("status", q.status);
  if (q.min_similarity !== undefined) query = query.gte("overall_similarity_score", q.min_similarity);
  const { data, error, count } = await query.order("overall_similarity_score", { ascending: false })
    .order("id").range(...pageRange(q));
  if (error) throw dbError(error, "Duplicate detection");
  const found = data as { product_id_1: string; product_id_2: string; overall_similarity_score: number }[];
  const names = await productNames(scope.db, found.flatMap((r) => [r.product_id_1, r.product_id_2]));
  return {
    detections: found.map((r) => ({
      ...r,
      product_name_1: names.get(r.product_id_1) ?? null,
      product_name_2: names.get(r.product_id_2) ?? null,
      recommended_action: recommendedAction(r.overall_similarity_score),
    })),
    total: count ?? found.length,
    limit: q.limit,
    offset: q.offset,
  };
}

/** Sets a detection's status; the reviewer is the caller (update_duplicate_status checks the role). */
export async function updateStatus(db: SupabaseClient, userId: string | null, body: StatusRequest) {
  checkUserId(userId, body.user_id);
  const { data, error } = await db.rpc("update_duplicate_status", {
    p_cache_id: body.cache_id,
    p_status: body.status,
  });
  if (error) throw rpcError(error, "Updating the detection");
  return { detection: data };
}

/** Merges the sources into the target (one transaction); the merge history record. */
export async function mergeProducts(scope: WorkspaceScope, body: MergeRequest) {
  if (body.source_product_ids.includes(body.target_product_id)) {
    throw DomainError.invalid("source_product_ids must not contain the target");
  }
  const target = rows(
    await scope.db.from("products").select("id").eq("id", body.target_product_id)
      .eq("workspace_id", scope.workspaceId).maybeSingle(),
    "Product",
  );
  if (!target) throw DomainError.notFound("Target product not found in the workspace");
  const { data, error } = await scope.db.rpc("merge_products", {
    p_target: body.target_product_id,
    p_sources: body.source_product_ids,
    p_strategy: body.merge_strategy,
    p_reason: body.merge_reason ?? undefined,
    p_similarity: body.similarity_score ?? undefined,
  });
  if (error) throw rpcError(error, "Merging products");
  return { history: historyView(data as HistoryRow) };
}

/** Undoes a merge (undo_merge checks the caller's role); the updated history record. */
export async function undoMerge(db: SupabaseClient, userId: string | null, body: UndoRequest) {
  checkUserId(userId, body.user_id);
  const { data, error } = await db.rpc("undo_merge", { p_history_id: body.history_id });
  if (error) throw rpcError(error, "Undoing the merge");
  return { history: historyView(data as HistoryRow) };
}

/** Merges of the workspace, newest first. */
export async function mergeHistory(scope: WorkspaceScope, q: HistoryQuery) {
  const { data, error, count } = await scope.db.from("product_merge_history")
    .select(HISTORY_FIELDS, { count: "exact" }).eq("workspace_id", scope.workspaceId)
    .order("merged_at", { ascending: false }).order("id").range(...pageRange(q));
  if (error) throw dbError(error, "Merge");
  const found = data as unknown as HistoryRow[];
  return { history: found.map(historyView), total: count ?? found.length, limit: q.limit, offset: q.offset };
}
