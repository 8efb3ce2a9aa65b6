/**
 * The pipeline's settings: the stages in order with their progress ranges, the extraction options
 * and the stage limits. The spec's ai_config (defaults, the four named profiles, the image
 * categories) is packages/shared/ai_services/config.ts.
 *
 * Progress ranges: the per-stage table of the spec (classify 10-20, upload 20-30, save 30-50,
 * metadata 50-60, chunks 60-80, relationships 80-100), with PDF reading and product discovery
 * (the `extract` step every later stage depends on) in 0-10. That list gives every one of the
 * six stages a range, in order, adjoining each other; the summary's list skips extract-metadata
 * and leaves 0-50 to stages it does not name, so it cannot describe a monotonic run.
 */
import { z } from "zod";
import { aiConfigInput, type ImageCategory } from "@shared/ai_services/config.ts";

export const STAGES = [
  "extract",
  "classify-images",
  "upload-images",
  "save-images-db",
  "extract-metadata",
  "create-chunks",
  "create-relationships",
] as const;
export type Stage = typeof STAGES[number];
/** The six stages callable at /api/internal/<stage>/{job_id} (extract runs before any of them). */
export const INTERNAL_STAGES = STAGES.slice(1) as Exclude<Stage, "extract">[];

export const PROGRESS: Record<Stage, [number, number]> = {
  "extract": [0, 10],
  "classify-images": [10, 20],
  "upload-images": [20, 30],
  "save-images-db": [30, 50],
  "extract-metadata": [50, 60],
  "create-chunks": [60, 80],
  "create-relationships": [80, 100],
};

/** Pipeline stage limits (spec, Limits). */
export const STAGE_LIMITS = {
  timeoutMs: 600_000,
  maxAttempts: 3,
  /** Backoff before attempt n+1: 2^n seconds. */
  backoffMs: (attempt: number) => 2 ** attempt * 1000,
  parallelUploads: 5,
  heartbeatMs: 30_000,
};

export const EXTRACT_CATEGORIES = ["products", "certificates", "logos", "specifications", "all"] as const;
export type ExtractCategory = typeof EXTRACT_CATEGORIES[number];

export const pipelineOptionsSchema = z.object({
  focused_extraction: z.boolean().default(true),
  extract_categories: z.array(z.enum(EXTRACT_CATEGORIES)).min(1).default(["products"]),
  chunk_size: z.number().int().min(100).max(10_000).default(512),
  chunk_overlap: z.number().int().min(0).max(1000).default(50),
  similarity_threshold: z.number().min(0).max(1).default(0.5),
  ai_config: aiConfigInput.optional(),
});
export type PipelineOptions = z.infer<typeof pipelineOptionsSchema>;

/** Which extract category keeps each image category. */
const KEPT_BY: Record<Exclude<ExtractCategory, "all">, ImageCategory> = {
  products: "material",
  certificates: "certificate",
  logos: "logo",
  specifications: "specification",
};

/**
 * Which classified images go on to upload: with focused extraction, only those of the chosen
 * categories (default `products`: material images); `all`, or focused_extraction false, keeps
 * every image.
 */
export function keptCategories(o: PipelineOptions): Set<ImageCategory> | null {
  if (!o.focused_extraction || o.extract_categories.includes("all")) return null;
  return new Set(o.extract_categories.map((c) => KEPT_BY[c as Exclude<ExtractCategory, "all">]));
}
