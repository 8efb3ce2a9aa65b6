/**
 * The spec's ai_config: which models the AI services and the PDF pipeline call and with what
 * limits, its defaults and the four named profiles, how a caller's ai_config resolves over them
 * (`aiConfigOf`: 400 `invalid_ai_config` when it does not), and the image categories the
 * classifiers answer.
 *
 * Model fields name the platform's model ids (SONNET, HAIKU, OPUS from @shared/llm/mod.ts), which
 * the model layer sends as the configured provider's model; an ai_config a client sends may name
 * any other model id, which is sent unchanged.
 */
import { z } from "zod";
import { HAIKU, OPUS, SONNET } from "../llm/mod.ts";
import { DomainError } from "../errors.ts";

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

/** Image categories the classifiers answer (the pipeline keeps some of them: keptCategories). */
export const IMAGE_CATEGORIES = ["material", "certificate", "logo", "specification", "other"] as const;
export type ImageCategory = typeof IMAGE_CATEGORIES[number];

/** The ai_config of a request: a profile and/or fields over DEFAULT_AI_CONFIG (400 when invalid). */
export function aiConfigOf(input: AiConfigInput | undefined): AiConfig {
  try {
    return resolveAiConfig(input);
  } catch (err) {
    throw DomainError.invalid(`ai_config: ${(err as Error).message}`, undefined, "invalid_ai_config");
  }
}
