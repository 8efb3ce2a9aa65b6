/**
 * What the vision models say about an image: the analysis (material type, colours, textures,
 * style, description, confidence: `analyzeImage`) and the pipeline's two-stage classification
 * (`classifyTwoStage`: the primary vision model, then the validation model when the first
 * confidence is under the threshold), with the pipeline's own prompts (ai_prompts, admin-editable,
 * handed in as `prompts`).
 */
import { z } from "zod";
import { type AiConfig, IMAGE_CATEGORIES } from "../ai_services/config.ts";
import type { ModelRun } from "../ai_services/models.ts";
import { imageBlock, type LoadedImage } from "./source.ts";

/** The classification prompts' keys in public.ai_prompts. */
export type ClassificationPromptKey =
  | "classify-images/image_classification"
  | "classify-images/image_validation";
/** Reads a prompt (the pipeline's promptReader over ai_prompts). */
export type PromptReader = (key: ClassificationPromptKey) => Promise<string>;

// ---- Analysis ---------------------------------------------------------------------------------

export const imageAnalysis = z.object({
  material_type: z.string().trim().min(1).max(200),
  colors: z.array(z.string().trim().min(1).max(100)).max(20),
  textures: z.array(z.string().trim().min(1).max(100)).max(20),
  style: z.string().trim().min(1).max(200),
  description: z.string().trim().min(1).max(4000),
  confidence: z.number().min(0).max(1),
});
export type ImageAnalysis = z.infer<typeof imageAnalysis>;

const ANALYSIS_SYSTEM = "You analyse images of building materials and surfaces for a catalogue. Call " +
  "analyze_image with the material type (e.g. ceramic tile, oak wood, marble, concrete), its colours, " +
  "textures and style, a description, and how sure you are of the material type (0..1).";

export async function analyzeImage(
  run: ModelRun,
  ai: AiConfig,
  img: LoadedImage,
  context?: string,
): Promise<ImageAnalysis> {
  return await run.ask({
    model: ai.classification_primary_model,
    system: ANALYSIS_SYSTEM,
    maxTokens: Math.max(ai.classification_max_tokens, 1024),
    purpose: "Image analysis",
    taskType: "image_analysis",
    tool: "analyze_image",
    description: "Report what the image shows: material type, colours, textures, style, description.",
    content: [
      imageBlock(img),
      { type: "text", text: context ? `Context from the caller: ${context}` : "Analyse this image." },
    ],
  }, imageAnalysis);
}

// ---- Two-stage classification ------------------------------------------------------------------

export const classificationVerdict = z.object({
  category: z.enum(IMAGE_CATEGORIES),
  confidence: z.number().min(0).max(1),
});

export interface TwoStageResult {
  category: (typeof IMAGE_CATEGORIES)[number];
  confidence: number;
  /** The validation model was asked (the first confidence was under the threshold); its answer is final. */
  validated: boolean;
  threshold: number;
  primary: { model: string; category: string; confidence: number };
  validation: { model: string; category: string; confidence: number } | null;
  /** Whether the final answer is a material image at or above the threshold (the pipeline's keep rule). */
  is_material: boolean;
}

/**
 * The pipeline's classify-images step for one image (a classify_image call): the primary vision model, then - when its
 * confidence is under ai.classification_confidence_threshold - the validation model (recorded as
 * an escalation), whose answer is final. Prompts are the pipeline's (ai_prompts), read with `prompt`.
 */
export async function classifyTwoStage(
  run: ModelRun,
  prompt: PromptReader,
  ai: AiConfig,
  img: LoadedImage,
  label: string,
): Promise<TwoStageResult> {
  const threshold = ai.classification_confidence_threshold;
  const ask = async (model: string, system: string, note: string, escalate: boolean) =>
    await run.ask({
      model,
      system,
      maxTokens: ai.classification_max_tokens,
      purpose: `Image classification of ${label}`,
      taskType: "image_classification",
      tool: "classify_image",
      description: "Report the image's category and how sure you are of it (0..1).",
      escalation: escalate ? "low_confidence" : undefined,
      content: [imageBlock(img), { type: "text", text: `Image ${label}.${note}` }],
    }, classificationVerdict);
  const first = await ask(
    ai.classification_primary_model,
    await prompt("classify-images/image_classification"),
    "",
    false,
  );
  let final = first;
  let validation: TwoStageResult["validation"] = null;
  if (first.confidence < threshold) {
    final = await ask(
      ai.classification_validation_model,
      await prompt("classify-images/image_validation"),
      ` A first model said ${first.category} with confidence ${first.confidence}; check it.`,
      true,
    );
    validation = { model: ai.classification_validation_model, ...final };
  }
  return {
    category: final.category,
    confidence: final.confidence,
    validated: validation !== null,
    threshold,
    primary: { model: ai.classification_primary_model, ...first },
    validation,
    is_material: final.category === "material" && final.confidence >= threshold,
  };
}
