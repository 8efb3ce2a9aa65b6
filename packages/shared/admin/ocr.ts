/**
 * Image text (POST /api/admin/images/{image_id}/process-ocr): a document image's text, read by
 * the vision model through the model layer and stored on its document_images row.
 */
import { DomainError } from "../errors.ts";
import { encodeBase64, sniffImageType } from "../embeddings/decode.ts";
import type { Llm } from "../llm/mod.ts";
import { type Db, fail, type Json } from "./support.ts";

export interface OcrDeps {
  /** The service-role client. */
  db: Db;
  llm: Llm;
  /** The pipeline's prompt reader (ai_prompts' current text, or the code default). */
  prompt: (key: "ocr/image_text") => Promise<string>;
}

/**
 * Reads the text in one document_images row's picture with the vision model (the prompt is
 * ai_prompts' ocr/image_text) and stores it on the row (ocr_text, ocr_model, ocr_at).
 */
export async function processOcr(
  { db, llm, prompt }: OcrDeps,
  imageId: string,
  model: string,
  maxTokens: number,
): Promise<Json> {
  const img = await db.from("document_images").select("id, document_id, filename").eq("id", imageId)
    .maybeSingle();
  if (img.error) fail("Reading the image", img.error);
  if (!img.data) throw new DomainError("not_found", "not_found", "Image not found");
  const path = `${img.data.document_id}/${img.data.filename}`;
  const file = await db.storage.from("material-images").download(path);
  if (file.error) {
    throw new DomainError("not_found", "image_file_missing", `The image file ${path} is not in storage`);
  }
  const bytes = new Uint8Array(await file.data.arrayBuffer());
  const mediaType = sniffImageType(bytes);
  if (!mediaType) {
    throw new DomainError("unprocessable", "not_an_image", `${path} is not a PNG, JPEG, GIF or WebP image`);
  }
  const system = await prompt("ocr/image_text");
  const t0 = performance.now();
  const out = await llm.text({
    model,
    system,
    prompt: [
      { type: "image", source: { type: "base64", media_type: mediaType, data: encodeBase64(bytes) } },
      { type: "text", text: `Image ${img.data.filename}: transcribe its text.` },
    ],
    maxTokens,
    purpose: "Image text (OCR)",
  });
  const latency_ms = Math.round(performance.now() - t0);
  const text = out.text.trim();
  const ocr_at = new Date().toISOString();
  const up = await db.from("document_images").update({ ocr_text: text, ocr_model: out.model, ocr_at })
    .eq("id", imageId).select("id").single();
  if (up.error) fail("Storing the text", up.error);
  return {
    image_id: imageId,
    document_id: img.data.document_id,
    ocr_text: text,
    model: out.model,
    input_tokens: out.usage.input_tokens,
    output_tokens: out.usage.output_tokens,
    latency_ms,
    ocr_at,
  };
}
