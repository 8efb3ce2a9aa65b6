/**
 * The pipeline's prompts: every system prompt a stage sends to the language model, keyed by
 * (stage, category), stored in public.ai_prompts (seeded with the texts below by
 * 20260208000100_admin_prompts.sql) and editable by platform admins (@shared/admin/prompts.ts),
 * each edit keeping the previous version in public.ai_prompt_history.
 *
 * A run reads the table once, lazily, the first time a stage asks for a prompt (a run that only
 * re-does chunking never reads it); a prompt with no row uses the code default below. A read
 * that fails fails the stage (which is retried) rather than silently sending another prompt.
 *
 * The defaults here are the seeds (20260208000100_admin_prompts.sql, updated to say what to fill
 * rather than "answer with JSON" by 20260221006100_pipeline_prompts_tool_calls.sql once stages
 * answer through forced tool calls): tests/pipeline/admin_prompts_test.ts checks that the seeded
 * rows equal them, so the two cannot drift apart.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import type { PromptCatalog } from "@shared/admin/prompts.ts";
import { DEFAULT_AI_CONFIG, IMAGE_CATEGORIES } from "@shared/ai_services/config.ts";

export interface PromptDefault {
  stage: string;
  category: string;
  name: string;
  description: string;
  prompt_text: string;
  /** The ai_config field naming the model the stage sends this prompt to. */
  model_field:
    | "discovery_model"
    | "classification_primary_model"
    | "classification_validation_model"
    | "metadata_extraction_model";
  /** The ai_config field with the stage's max_tokens. */
  max_tokens_field: "discovery_max_tokens" | "classification_max_tokens" | "metadata_max_tokens";
}

const CLASSIFY = "You classify images from building-materials catalogues: give the image's category " +
  `(${IMAGE_CATEGORIES.join(", ")}) and your confidence in it from 0 to 1. ` +
  "`material` is a photo or swatch of a product's material or surface.";

export const PROMPT_DEFAULTS = [
  {
    stage: "extract",
    category: "product_discovery",
    name: "Product discovery",
    description: "Finds each product's name and page range, and the index pages, from the PDF's text.",
    prompt_text: "You find the products in a building-materials catalogue: every product with its name and " +
      "the first and last page it is described on, and the pages that are only a table of contents or an index.",
    model_field: "discovery_model",
    max_tokens_field: "discovery_max_tokens",
  },
  {
    stage: "classify-images",
    category: "image_classification",
    name: "Image classification (primary model)",
    description: "Names each extracted image's category with a confidence (vision model).",
    prompt_text: CLASSIFY,
    model_field: "classification_primary_model",
    max_tokens_field: "classification_max_tokens",
  },
  {
    stage: "classify-images",
    category: "image_validation",
    name: "Image classification (validation model)",
    description:
      "Asked when the primary model's confidence is below the threshold; the first answer is quoted in the message and this model's answer is final.",
    prompt_text: CLASSIFY,
    model_field: "classification_validation_model",
    max_tokens_field: "classification_max_tokens",
  },
  {
    stage: "extract-metadata",
    category: "product_metadata",
    name: "Product metadata extraction",
    description: "Reads a product's pages and answers its attributes as lists.",
    prompt_text:
      "You extract product attributes from a building-materials catalogue: the lists dimensions, " +
      "colors, patterns, materials, finishes, applications and certifications (strings; empty when absent), " +
      "and any other attribute you find under its own name.",
    model_field: "metadata_extraction_model",
    max_tokens_field: "metadata_max_tokens",
  },
  {
    stage: "ocr",
    category: "image_text",
    name: "Image text (OCR)",
    description: "admin_process_ocr: transcribes the text in a document image (vision model).",
    prompt_text: "You read the text in an image from a building-materials catalogue. Answer with the text " +
      "exactly as printed, line by line, and nothing else; answer an empty reply when there is no text.",
    model_field: "classification_primary_model",
    max_tokens_field: "metadata_max_tokens",
  },
] as const satisfies readonly PromptDefault[];

export type PromptKey = `${(typeof PROMPT_DEFAULTS)[number]["stage"]}/${(typeof PROMPT_DEFAULTS)[number][
  "category"
]}`;

export function promptDefault(stage: string, category: string): PromptDefault | undefined {
  return PROMPT_DEFAULTS.find((p) => p.stage === stage && p.category === category);
}

/** The prompts a run sends: read once from ai_prompts, falling back to the defaults. */
export function promptReader(db: SupabaseClient): (key: PromptKey) => Promise<string> {
  let loaded: Promise<Map<string, string>> | null = null;
  const load = async () => {
    const { data, error } = await db.from("ai_prompts").select("stage, category, prompt_text");
    if (error) throw new Error(`Reading the pipeline's prompts failed: ${error.message}`);
    return new Map((data as { stage: string; category: string; prompt_text: string }[])
      .map((r) => [`${r.stage}/${r.category}`, r.prompt_text]));
  };
  return async (key) => {
    // A failed read is not cached: the stage's retry reads again.
    const map = await (loaded ??= load().catch((err) => {
      loaded = null;
      throw err;
    }));
    const stored = map.get(key);
    if (stored !== undefined) return stored;
    const [stage, category] = key.split("/");
    return promptDefault(stage, category)!.prompt_text;
  };
}

/**
 * The pipeline's prompts as the admin prompt module (@shared/admin/prompts.ts) sees them: each
 * (stage, category)'s code default, and the model and max_tokens a test sends it with (those of
 * its stage in DEFAULT_AI_CONFIG; a draft with no stored prompt goes to the discovery model).
 */
export const PROMPT_CATALOG: PromptCatalog = {
  defaultText: (stage, category) => promptDefault(stage, category)?.prompt_text,
  testModel: (stored) => {
    const d = stored ? promptDefault(stored.stage, stored.category) : undefined;
    return d
      ? { model: DEFAULT_AI_CONFIG[d.model_field], maxTokens: DEFAULT_AI_CONFIG[d.max_tokens_field] }
      : { model: DEFAULT_AI_CONFIG.discovery_model, maxTokens: 1024 };
  },
};
