/**
 * Stage 1, classify-images (progress 10-20): every extracted image goes to the vision model
 * (classification_primary_model), which names its category (material, certificate, logo,
 * specification, other) with a confidence. An answer below classification_confidence_threshold
 * goes to the validation model (classification_validation_model), whose answer is final. An
 * image is kept (material_images, the next stage's input) when its category is one the
 * extraction keeps (focused extraction: material only by default) and its final confidence
 * reaches the threshold; `all` or focused_extraction false keeps every image. The two system
 * prompts are ai_prompts' classify-images/image_classification and image_validation
 * (pipeline/prompts.ts: editable by platform admins, the code default as fallback). Each model
 * answers by calling `classify_image` (a forced tool call validated with `verdict`, model layer).
 */
import { z } from "zod";
import { encodeBase64 } from "@shared/embeddings/decode.ts";
import { encodePng } from "@shared/images/png.ts";
import { keptCategories } from "./config.ts";
import { IMAGE_CATEGORIES } from "@shared/ai_services/config.ts";
import type { StageContext } from "./context.ts";
import type { ExtractedImage } from "./extract.ts";

export interface ClassifiedImage extends ExtractedImage {
  category: string;
  confidence: number;
  validated: boolean;
}
export interface ClassifyOutput {
  material_images: ClassifiedImage[];
  non_material_images: ClassifiedImage[];
}

const verdict = z.object({
  category: z.enum(IMAGE_CATEGORIES),
  confidence: z.number().min(0).max(1),
});

export async function classifyImages(
  ctx: StageContext,
  input: { extracted_images: ExtractedImage[] },
): Promise<ClassifyOutput> {
  const pdf = await ctx.pdf();
  const pixels = new Map(pdf.images.map((im) => [im.filename, im]));
  const keep = keptCategories(ctx.options);
  const threshold = ctx.ai.classification_confidence_threshold;
  const out: ClassifyOutput = { material_images: [], non_material_images: [] };
  const primarySystem = await ctx.prompt("classify-images/image_classification");
  const validationSystem = await ctx.prompt("classify-images/image_validation");
  // One image at a time: model calls are ordered, so a run is reproducible.
  for (const image of input.extracted_images) {
    const raster = pixels.get(image.filename);
    if (!raster) throw new Error(`classify-images: ${image.filename} is not in the PDF`);
    const png = encodeBase64(await encodePng(raster));
    const ask = async (model: string, system: string, note: string) =>
      (await ctx.llm.structured(verdict, {
        model,
        system,
        prompt: [
          { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
          { type: "text", text: `Image ${image.filename} from page ${image.page_number}.${note}` },
        ],
        maxTokens: ctx.ai.classification_max_tokens,
        purpose: `Image classification of ${image.filename}`,
        tool: "classify_image",
        description: `Classify the image: its category (${IMAGE_CATEGORIES.join(", ")}) and your ` +
          "confidence in it from 0 to 1.",
        signal: ctx.signal,
      })).value;
    let v = await ask(ctx.ai.classification_primary_model, primarySystem, "");
    let validated = false;
    if (v.confidence < threshold) {
      v = await ask(
        ctx.ai.classification_validation_model,
        validationSystem,
        ` A first model said ${v.category} with confidence ${v.confidence}; check it.`,
      );
      validated = true;
    }
    const classified = { ...image, category: v.category, confidence: v.confidence, validated };
    const kept = keep === null || (keep.has(v.category) && v.confidence >= threshold);
    (kept ? out.material_images : out.non_material_images).push(classified);
  }
  return out;
}
