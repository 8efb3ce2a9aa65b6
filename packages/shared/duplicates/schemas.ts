/**
 * Request schemas of duplicate detection and merge (spec "Duplicate detection (AI backend)";
 * routes/duplicates.ts in the AI backend), reused for its OpenAPI documents.
 */
import { z } from "zod";
import { paginationSchema } from "../http/pagination.ts";
import { DEFAULT_SIMILARITY_THRESHOLD } from "./scoring.ts";

export const STATUSES = ["pending", "reviewed", "merged", "dismissed"] as const;
export const STRATEGIES = ["manual", "auto", "suggested"] as const;
export const DEFAULT_BATCH_LIMIT = 1000, MAX_BATCH_LIMIT = 10_000;

const uuid = z.uuid();
const threshold = z.number().min(0).max(1).meta({
  description: `Minimum overall similarity, 0 to 1 (default ${DEFAULT_SIMILARITY_THRESHOLD})`,
});
const userId = uuid.optional().meta({
  description: "Optional; must be the caller's own id. The acting user always comes from the JWT",
});

export const detectSchema = z.object({
  product_id: uuid,
  workspace_id: uuid,
  similarity_threshold: threshold.optional(),
}).meta({ id: "DuplicateDetectRequest" });
export type DetectRequest = z.infer<typeof detectSchema>;

export const batchSchema = z.object({
  workspace_id: uuid,
  similarity_threshold: threshold.optional(),
  limit: z.number().int().min(1).max(MAX_BATCH_LIMIT).optional().meta({
    description: `How many of the best pairs to return and store (default ${DEFAULT_BATCH_LIMIT})`,
  }),
}).meta({ id: "DuplicateBatchDetectRequest" });
export type BatchRequest = z.infer<typeof batchSchema>;

export const cachedQuery = z.object({
  workspace_id: uuid,
  status: z.enum(STATUSES).optional(),
  min_similarity: z.coerce.number().min(0).max(1).optional().meta({
    description: "Only detections whose overall_similarity_score is at least this",
  }),
  ...paginationSchema(50).shape,
}).meta({ id: "DuplicateCachedQuery" });
export type CachedQuery = z.infer<typeof cachedQuery>;

export const statusSchema = z.object({
  cache_id: uuid,
  status: z.enum(STATUSES),
  user_id: userId,
}).meta({ id: "DuplicateUpdateStatusRequest" });
export type StatusRequest = z.infer<typeof statusSchema>;

export const mergeSchema = z.object({
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
export type MergeRequest = z.infer<typeof mergeSchema>;

export const undoSchema = z.object({ history_id: uuid, user_id: userId }).meta({
  id: "DuplicateUndoMergeRequest",
});
export type UndoRequest = z.infer<typeof undoSchema>;

export const historyQuery = z.object({ workspace_id: uuid, ...paginationSchema(50).shape })
  .meta({ id: "DuplicateMergeHistoryQuery" });
export type HistoryQuery = z.infer<typeof historyQuery>;
