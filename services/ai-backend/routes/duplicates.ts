/**
 * Duplicate-material detection and merge (spec "Duplicate detection (AI backend)"), API 1.0.
 *
 * Everything acts as the caller, through their JWT: RLS scopes every read and write to the
 * workspaces they belong to, and merge_products / undo_merge check the caller's role again from
 * auth.uid(). workspace_id in a request is only ever a filter the caller must hold a role in
 * (outsiders 404, too low a role 403), and product ids must belong to it.
 *
 *   detect, cached                 any member of the workspace (viewers too)
 *   batch-detect, update-status    owner, admin or member: both write detections
 *   merge, undo-merge, history     owner or admin: a merge deletes products
 *
 * user_id (update-status, merge, undo-merge) is accepted for the spec's sake but never trusted:
 * the acting user is the JWT's. A user_id other than the caller's is a 403; with the
 * service-role key there is no user to compare it with, and nothing is recorded in its name.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import type { PostgrestError, SupabaseClient } from "@supabase/supabase-js";
import { HttpError } from "@shared/http/errors.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";
import {
  batchDetect,
  DEFAULT_SIMILARITY_THRESHOLD,
  detect,
  extractFactory,
  type Product,
  recommendedAction,
} from "@shared/duplicates/mod.ts";
import { caller, db, PRICING_ROLES, requireWorkspaceRole, WRITER_ROLES } from "@shared/auth/context.ts";
import { type Ctx, router } from "../env.ts";
import { dbError, readInGroups, rows } from "@shared/supabase/postgrest.ts";
import type { Json } from "@shared/supabase/types.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";

const tags = ["Duplicate detection"];
const STATUSES = ["pending", "reviewed", "merged", "dismissed"] as const;
const STRATEGIES = ["manual", "auto", "suggested"] as const;
/** PostgREST's max_rows: the catalogue is read in pages of this size. */
const PAGE = 1000;
const DEFAULT_BATCH_LIMIT = 1000, MAX_BATCH_LIMIT = 10_000;

const uuid = z.uuid();
const threshold = z.number().min(0).max(1).meta({
  description: `Minimum overall similarity, 0 to 1 (default ${DEFAULT_SIMILARITY_THRESHOLD})`,
});
const userId = uuid.optional().meta({
  description: "Optional; must be the caller's own id. The acting user always comes from the JWT",
});

const detectSchema = z.object({
  product_id: uuid,
  workspace_id: uuid,
  similarity_threshold: threshold.optional(),
}).meta({ id: "DuplicateDetectRequest" });

const batchSchema = z.object({
  workspace_id: uuid,
  similarity_threshold: threshold.optional(),
  limit: z.number().int().min(1).max(MAX_BATCH_LIMIT).optional().meta({
    description: `How many of the best pairs to return and store (default ${DEFAULT_BATCH_LIMIT})`,
  }),
}).meta({ id: "DuplicateBatchDetectRequest" });

const cachedQuery = z.object({
  workspace_id: uuid,
  status: z.enum(STATUSES).optional(),
  min_similarity: z.coerce.number().min(0).max(1).optional().meta({
    description: "Only detections whose overall_similarity_score is at least this",
  }),
  ...paginationSchema(50).shape,
}).meta({ id: "DuplicateCachedQuery" });

const statusSchema = z.object({
  cache_id: uuid,
  status: z.enum(STATUSES),
  user_id: userId,
}).meta({ id: "DuplicateUpdateStatusRequest" });

const mergeSchema = z.object({
  target_product_id: uuid,
  source_product_ids: z.array(uuid).min(1).max(100)
    .refine((ids) => new Set(ids).size === ids.length, "must not repeat an id"),
  workspace_id: uuid,
  user_id: userId,
  merge_strategy: z.enum(STRATEGIES).default("manual"),
  merge_reason: z.string().max(2000).nullish(),
  similarity_score: z.number().min(0).max(1).nullish().meta({
    description: "The pair's score; defaults to the cached detection of the target and a source",
  }),
}).meta({ id: "DuplicateMergeRequest" });

const undoSchema = z.object({ history_id: uuid, user_id: userId }).meta({ id: "DuplicateUndoMergeRequest" });

const historyQuery = z.object({ workspace_id: uuid, ...paginationSchema(50).shape })
  .meta({ id: "DuplicateMergeHistoryQuery" });

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
function rpcError(error: PostgrestError, what: string): HttpError {
  if (error.code === "PT404") return HttpError.notFound(error.message);
  if (error.code === "PT409") return HttpError.conflict(error.message);
  return dbError(error, what);
}

function checkUserId(c: Ctx, claimed: string | undefined): void {
  const who = caller(c);
  if (claimed !== undefined && who.kind === "user" && claimed !== who.userId) {
    throw HttpError.forbidden("user_id must be the caller's own id: the acting user comes from the JWT");
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

export function duplicateRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/detect",
      tags,
      summary: "Duplicates of one product in its workspace, best first (empty when it has no factory)",
      request: jsonBody(detectSchema),
      responses: {
        ...okJson("{product_id, factory, similarity_threshold, matches: [...]}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await requireWorkspaceRole(c, body.workspace_id, null);
      const client = db(c);
      const product = rows(
        await client.from("products").select("id, name, description, metadata").eq("id", body.product_id)
          .eq("workspace_id", body.workspace_id).maybeSingle(),
        "Product",
      ) as Product | null;
      if (!product) throw HttpError.notFound("Product not found in the workspace");
      const similarity_threshold = body.similarity_threshold ?? DEFAULT_SIMILARITY_THRESHOLD;
      const factory = extractFactory(product.metadata);
      const matches = factory === null
        ? []
        : detect(product, await loadCatalogue(client, body.workspace_id), similarity_threshold);
      return c.json({
        product_id: product.id,
        workspace_id: body.workspace_id,
        factory,
        similarity_threshold,
        matches,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/batch-detect",
      tags,
      summary:
        "Every duplicate pair of the workspace, stored in the detection cache (status kept on re-runs)",
      request: jsonBody(batchSchema),
      responses: { ...okJson("{pairs: [...], duplicates_found, stats}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await requireWorkspaceRole(c, body.workspace_id, WRITER_ROLES, "Detecting and storing duplicates");
      const client = db(c);
      const similarity_threshold = body.similarity_threshold ?? DEFAULT_SIMILARITY_THRESHOLD;
      const limit = body.limit ?? DEFAULT_BATCH_LIMIT;
      const { pairs, stats } = batchDetect(
        await loadCatalogue(client, body.workspace_id),
        similarity_threshold,
        limit,
      );
      // One jsonb array of every stored row (not a set, which max_rows would cut at 1,000).
      const stored = pairs.length
        ? rows(
          await client.rpc("store_duplicate_detections", {
            p_workspace_id: body.workspace_id,
            // DuplicatePair is an interface of JSON values (no index signature, so not `Json` to TS).
            p_pairs: pairs as unknown as Json,
          }),
          "Storing detections",
        ) as { id: string; product_id_1: string; product_id_2: string; status: string }[]
        : [];
      const cached = new Map(stored.map((r) => [`${r.product_id_1}/${r.product_id_2}`, r]));
      if (cached.size !== pairs.length) {
        throw new HttpError(500, "db_error", "Storing detections answered fewer rows than pairs stored");
      }
      return c.json({
        workspace_id: body.workspace_id,
        similarity_threshold,
        limit,
        duplicates_found: stats.duplicates_found,
        pairs: pairs.map((pair) => {
          const row = cached.get(`${pair.product_id_1}/${pair.product_id_2}`)!;
          return { cache_id: row.id, status: row.status, ...pair };
        }),
        stats,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/duplicates/cached",
      tags,
      summary: "Stored detections of a workspace, best first; filter by status and minimum similarity",
      request: { query: cachedQuery },
      responses: { ...okJson("{detections: [...], total, limit, offset}"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      await requireWorkspaceRole(c, q.workspace_id, null);
      const client = db(c);
      let query = client.from("duplicate_detection_cache").select("*", { count: "exact" })
        .eq("workspace_id", q.workspace_id);
      if (q.status) query = query.eq("status", q.status);
      if (q.min_similarity !== undefined) query = query.gte("overall_similarity_score", q.min_similarity);
      const { data, error, count } = await query.order("overall_similarity_score", { ascending: false })
        .order("id").range(...pageRange(q));
      if (error) throw dbError(error, "Duplicate detection");
      const rows = data as { product_id_1: string; product_id_2: string; overall_similarity_score: number }[];
      const names = await productNames(client, rows.flatMap((r) => [r.product_id_1, r.product_id_2]));
      return c.json({
        detections: rows.map((r) => ({
          ...r,
          product_name_1: names.get(r.product_id_1) ?? null,
          product_name_2: names.get(r.product_id_2) ?? null,
          recommended_action: recommendedAction(r.overall_similarity_score),
        })),
        total: count ?? rows.length,
        limit: q.limit,
        offset: q.offset,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/update-status",
      tags,
      summary: "Set a detection's status (pending, reviewed, merged, dismissed); the reviewer is the caller",
      request: jsonBody(statusSchema),
      responses: { ...okJson("{detection}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      checkUserId(c, body.user_id);
      const { data, error } = await db(c).rpc("update_duplicate_status", {
        p_cache_id: body.cache_id,
        p_status: body.status,
      });
      if (error) throw rpcError(error, "Updating the detection");
      return c.json({ detection: data }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/merge",
      tags,
      summary: "Merge source products into a target (one transaction); returns the merge history record",
      request: jsonBody(mergeSchema),
      responses: {
        ...okJson("{history}"),
        ...errorResponses,
        409: { description: "A row cannot be moved to the target (see the message)" },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      checkUserId(c, body.user_id);
      await requireWorkspaceRole(c, body.workspace_id, PRICING_ROLES, "Merging products");
      if (body.source_product_ids.includes(body.target_product_id)) {
        throw HttpError.badRequest("source_product_ids must not contain the target");
      }
      const client = db(c);
      const target = rows(
        await client.from("products").select("id").eq("id", body.target_product_id)
          .eq("workspace_id", body.workspace_id).maybeSingle(),
        "Product",
      );
      if (!target) throw HttpError.notFound("Target product not found in the workspace");
      const { data, error } = await client.rpc("merge_products", {
        p_target: body.target_product_id,
        p_sources: body.source_product_ids,
        p_strategy: body.merge_strategy,
        p_reason: body.merge_reason ?? undefined,
        p_similarity: body.similarity_score ?? undefined,
      });
      if (error) throw rpcError(error, "Merging products");
      return c.json({ history: historyView(data as HistoryRow) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/undo-merge",
      tags,
      summary: "Undo a merge: sources restored with their ids, relationships moved back, target reverted",
      request: jsonBody(undoSchema),
      responses: {
        ...okJson("{history}"),
        ...errorResponses,
        409: { description: "Already undone, or the products changed so that it cannot be undone" },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      checkUserId(c, body.user_id);
      const { data, error } = await db(c).rpc("undo_merge", { p_history_id: body.history_id });
      if (error) throw rpcError(error, "Undoing the merge");
      return c.json({ history: historyView(data as HistoryRow) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/duplicates/merge-history",
      tags,
      summary: "Merges of a workspace, newest first (owners and admins)",
      request: { query: historyQuery },
      responses: { ...okJson("{history: [...], total, limit, offset}"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      await requireWorkspaceRole(c, q.workspace_id, PRICING_ROLES, "Reading the merge history");
      const { data, error, count } = await db(c).from("product_merge_history")
        .select(HISTORY_FIELDS, { count: "exact" }).eq("workspace_id", q.workspace_id)
        .order("merged_at", { ascending: false }).order("id").range(...pageRange(q));
      if (error) throw dbError(error, "Merge");
      const rows = data as unknown as HistoryRow[];
      return c.json({
        history: rows.map(historyView),
        total: count ?? rows.length,
        limit: q.limit,
        offset: q.offset,
      }, 200);
    },
  );

  return app;
}
