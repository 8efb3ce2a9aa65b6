/**
 * Images for the AI services: getting the bytes of an image a caller names (image_url through the
 * SSRF-safe fetch, or image_base64), the vision analysis (material type, colours, textures,
 * style, description, confidence) and the pipeline's two-stage classification (primary vision
 * model, then the validation model when the first confidence is under the threshold), with the
 * pipeline's own prompts (ai_prompts, admin-editable).
 *
 * image_url: http(s) only, resolved and refused when it leads to a loopback, private, link-local
 * (cloud metadata) or otherwise non-public address, at every redirect (packages/shared/net/
 * safe_fetch.ts), 10 MiB and 15 s at most. IMAGE_FETCH_ALLOWED_HOSTS (comma-separated `host` or
 * `host:port`) exempts hosts a deployment trusts on purpose (tests use it for a local server).
 */
import { z } from "zod";
import { DomainError } from "@shared/errors.ts";
import { safeFetch, UnsafeUrlError } from "@shared/net/safe_fetch.ts";
import {
  decodeBase64Image,
  encodeBase64,
  ImageInputError,
  type ImageMediaType,
  MAX_IMAGE_BYTES,
  requireImage,
} from "@shared/embeddings/decode.ts";
import type { SupabaseClient } from "@supabase/supabase-js";
import type { LlmContent } from "@shared/llm/mod.ts";
import type { AiConfig } from "../pipeline/config.ts";
import { IMAGE_CATEGORIES } from "../pipeline/config.ts";
import { promptReader } from "../pipeline/prompts.ts";
import type { ModelRun } from "./models.ts";

export const IMAGE_FETCH_TIMEOUT_MS = 15_000;

/** An image named by URL or given inline (exactly one). */
export const imageSource = z.strictObject({
  image_url: z.string().trim().min(1).max(2048).optional().meta({
    description: "http(s) URL of a PNG, JPEG, GIF or WebP image on the public internet",
  }),
  image_base64: z.string().min(1).optional().meta({
    description: "The image itself, base64 (a data: URL prefix is accepted), up to 10 MiB decoded",
  }),
});
export type ImageSource = z.infer<typeof imageSource>;

/** The refinement every request with an imageSource applies: exactly one of the two. */
export function oneImage(v: ImageSource, ctx: z.RefinementCtx, path: (string | number)[] = []): void {
  if ((v.image_url === undefined) === (v.image_base64 === undefined)) {
    ctx.addIssue({
      code: "custom",
      path,
      message: "exactly one of image_url or image_base64 is required",
    });
  }
}

export interface LoadedImage {
  bytes: Uint8Array;
  mediaType: ImageMediaType;
  /** Where it came from: the final URL, or "base64". */
  source: string;
}

/** The bytes of a named image; 400 for an unsafe URL, an unreachable one, or bytes that are not an image. */
export async function loadImage(
  src: ImageSource,
  settings: (n: string) => string | undefined,
  what = "image",
): Promise<LoadedImage> {
  try {
    if (src.image_base64 !== undefined) {
      const bytes = decodeBase64Image(src.image_base64);
      return { bytes, mediaType: requireImage(bytes, `${what}: image_base64`), source: "base64" };
    }
    const allowHosts = (settings("IMAGE_FETCH_ALLOWED_HOSTS") ?? "").split(",").map((s) => s.trim())
      .filter(Boolean);
    const res = await safeFetch(src.image_url!, {
      responseType: "bytes",
      maxBytes: MAX_IMAGE_BYTES,
      timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
      headers: { accept: "image/png, image/jpeg, image/gif, image/webp" },
      allowHosts,
    });
    if (res.status < 200 || res.status > 299) {
      throw DomainError.invalid(
        `${what}: image_url answered HTTP ${res.status}`,
        { status: res.status },
        "image_fetch_failed",
      );
    }
    const bytes = res.bytes ?? new Uint8Array(0);
    return { bytes, mediaType: requireImage(bytes, `${what}: the image at image_url`), source: res.url };
  } catch (err) {
    if (err instanceof UnsafeUrlError) {
      throw DomainError.invalid(`${what}: image_url refused: ${err.message}`, undefined, "unsafe_url");
    }
    if (err instanceof ImageInputError) {
      throw DomainError.invalid(`${what}: ${err.message}`, undefined, "invalid_image");
    }
    if (err instanceof DomainError) throw err;
    throw DomainError.invalid(
      `${what}: image_url could not be fetched: ${(err as Error).message}`,
      undefined,
      "image_fetch_failed",
    );
  }
}

/** The vision model's content block for an image. */
export function imageBlock(img: { bytes: Uint8Array; mediaType: ImageMediaType }): LlmContent {
  return {
    type: "image",
    source: { type: "base64", media_type: img.mediaType, data: encodeBase64(img.bytes) },
  };
}

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
 * an escalation), whose answer is final. Prompts are the pipeline's (ai_prompts).
 */
export async function classifyTwoStage(
  run: ModelRun,
  service: SupabaseClient,
  ai: AiConfig,
  img: LoadedImage,
  label: string,
): Promise<TwoStageResult> {
  const prompt = promptReader(service);
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
