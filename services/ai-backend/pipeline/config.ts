/**
 * The pipeline's settings: the stages in order with their progress ranges, the spec's ai_config
 * (defaults and the four named profiles), the extraction options and the stage limits.
 *
 * Progress ranges: the per-stage table of the spec (classify 10-20, upload 20-30, save 30-50,
 * metadata 50-60, chunks 60-80, relationships 80-100), with PDF reading and product discovery
 * (the `extract` step every later stage depends on) in 0-10. That list gives every one of the
 * six stages a range, in order, adjoining each other; the summary's list skips extract-metadata
 * and leaves 0-50 to stages it does not name, so it cannot describe a monotonic run.
 *
 * Model fields name the platform's model ids (SONNET, HAIKU, OPUS from @shared/llm/mod.ts), which
 * the model layer sends as the configured provider's model; an ai_config a client sends may name
 * any other model id, which is sent unchanged.
 */
import { z } from "zod";
import { HAIKU, OPUS, SONNET } from "@shared/llm/mod.ts";

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

export const aiConfigSchema = z.object({
  visual_embedding_model: z.string(),
  visual_embedding_dimensions: z.literal(768),
  text_embedding_model: z.string(),
  text_embedding_dimensions: z.literal(1024),
  text_embedding_input_type: z.enum(["document", "query"]),
  classification_primary_model: z.string(),
  classification_validation_model: z.string(),
  classification_confidence_threshold: z.number().min(0).max(1),
  discovery_model: z.string(),
  discovery_temperature: z.number().min(0).max(1),
  discovery_max_tokens: z.number().int().min(1).max(64_000),
  classification_temperature: z.number().min(0).max(1),
  classification_max_tokens: z.number().int().min(1).max(64_000),
  metadata_extraction_model: z.string(),
  metadata_temperature: z.number().min(0).max(1),
  metadata_max_tokens: z.number().int().min(1).max(64_000),
  chunking_model: z.string(),
});
export type AiConfig = z.infer<typeof aiConfigSchema>;

export const DEFAULT_AI_CONFIG: AiConfig = {
  visual_embedding_model: "local-pixel-features-768",
  visual_embedding_dimensions: 768,
  text_embedding_model: "configured-text-embedding-provider",
  text_embedding_dimensions: 1024,
  text_embedding_input_type: "document",
  classification_primary_model: SONNET,
  classification_validation_model: OPUS,
  classification_confidence_threshold: 0.7,
  discovery_model: SONNET,
  discovery_temperature: 0.1,
  discovery_max_tokens: 4096,
  classification_temperature: 0.1,
  classification_max_tokens: 512,
  metadata_extraction_model: SONNET,
  metadata_temperature: 0.1,
  metadata_max_tokens: 4096,
  chunking_model: "markdown-blocks",
};

export const AI_CONFIG_PROFILES: Record<string, AiConfig> = {
  DEFAULT_AI_CONFIG,
  FAST_CONFIG: {
    ...DEFAULT_AI_CONFIG,
    classification_primary_model: HAIKU,
    classification_validation_model: SONNET,
    discovery_model: HAIKU,
    metadata_extraction_model: HAIKU,
    discovery_max_tokens: 2048,
    classification_max_tokens: 256,
    metadata_max_tokens: 2048,
  },
  HIGH_ACCURACY_CONFIG: {
    ...DEFAULT_AI_CONFIG,
    classification_primary_model: OPUS,
    discovery_model: OPUS,
    metadata_extraction_model: OPUS,
    classification_confidence_threshold: 0.8,
    discovery_max_tokens: 8192,
    classification_max_tokens: 1024,
    metadata_max_tokens: 8192,
  },
  COST_OPTIMIZED_CONFIG: {
    ...DEFAULT_AI_CONFIG,
    classification_primary_model: HAIKU,
    classification_validation_model: HAIKU,
    discovery_model: HAIKU,
    metadata_extraction_model: HAIKU,
    classification_confidence_threshold: 0.6,
    discovery_max_tokens: 2048,
    classification_max_tokens: 256,
    metadata_max_tokens: 2048,
  },
};

/** An ai_config as a caller may send it: a profile name and/or any fields over the default. */
export const aiConfigInput = aiConfigSchema.partial().extend({
  profile: z.enum(Object.keys(AI_CONFIG_PROFILES) as [string, ...string[]]).optional(),
}).strict();
export type AiConfigInput = z.infer<typeof aiConfigInput>;

export function resolveAiConfig(input: AiConfigInput | null | undefined): AiConfig {
  const { profile, ...fields } = input ?? {};
  return aiConfigSchema.parse({ ...AI_CONFIG_PROFILES[profile ?? "DEFAULT_AI_CONFIG"], ...fields });
}

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

/** Image categories the classifier answers, and which extract category keeps each. */
export const IMAGE_CATEGORIES = ["material", "certificate", "logo", "specification", "other"] as const;
export type ImageCategory = typeof IMAGE_CATEGORIES[number];
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
