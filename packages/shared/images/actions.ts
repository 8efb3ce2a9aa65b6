/**
 * The image services (gateway group Images; routes/images.ts in the AI backend): vision analysis
 * of one image or a batch, search by image over document_images, upload-and-analyze into the
 * private bucket image-uploads, the pipeline's two-stage classification again on a stored
 * document image, and the services' health. Each function is one route's work after the HTTP
 * layer authorised the workspace the request names.
 *
 * The analysis is the vision model's analyze_image call, zod-validated; a malformed answer is sent
 * back once, then a 502 `model_bad_output`; a provider failure is `model_unavailable`
 * (ai_services/models.ts, packages/shared/llm).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { rows } from "../supabase/postgrest.ts";
import { toPgVector } from "../embeddings/provider.ts";
import {
  IMAGE_EMBEDDING_DIMENSIONS,
  IMAGE_EMBEDDING_KINDS,
  LocalImageEmbeddings,
} from "../embeddings/image.ts";
import { decodeImage, type ImageMediaType, MAX_IMAGE_BYTES, requireImage } from "../embeddings/decode.ts";
import type { ClipProvider } from "../embeddings/clip.ts";
import { type AiConfigInput, aiConfigOf } from "../ai_services/config.ts";
import { type AiDeps, modelRun } from "../ai_services/deps.ts";
import { analyzeImage, classifyTwoStage, type ImageAnalysis, type PromptReader } from "./analysis.ts";
import { asImageInput, type LoadedImage, loadImage } from "./source.ts";
import { type AnalyzeBody, type BatchBody, MAX_BATCH, type SearchBody } from "./schemas.ts";

/** The private bucket of upload-and-analyze: {user_id}/{id}.{ext}. */
export const UPLOAD_BUCKET = "image-uploads";
const EXT: Record<ImageMediaType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

function oneResult(img: LoadedImage, analysis: ImageAnalysis, index?: number) {
  return {
    ...(index === undefined ? {} : { index }),
    analysis,
    media_type: img.mediaType,
    source: img.source === "base64" ? "base64" : img.source,
  };
}

/** images_analyze: one image. */
export async function analyzeOne(deps: AiDeps, body: AnalyzeBody) {
  const started = performance.now();
  const ai = aiConfigOf(body.ai_config);
  const img = await loadImage(body, deps.settings);
  const analysis = await analyzeImage(
    modelRun(deps, "images_analyze", body.workspace_id),
    ai,
    img,
    body.context,
  );
  return {
    ...oneResult(img, analysis),
    model: ai.classification_primary_model,
    processing_time_ms: Math.round(performance.now() - started),
  };
}

/** images_analyze_batch: every image is fetched and checked before any model call; all or nothing. */
export async function analyzeBatch(deps: AiDeps, body: BatchBody) {
  const started = performance.now();
  const ai = aiConfigOf(body.ai_config);
  const sources = body.images ?? body.image_urls!.map((image_url) => ({ image_url }));
  // A bad image costs no model time.
  const loaded: LoadedImage[] = [];
  for (const [i, src] of sources.entries()) loaded.push(await loadImage(src, deps.settings, `images.${i}`));
  const run = modelRun(deps, "images_analyze_batch", body.workspace_id);
  const results = [];
  for (const [i, img] of loaded.entries()) {
    results.push(oneResult(img, await analyzeImage(run, ai, img, body.context), i));
  }
  return {
    results,
    count: results.length,
    model: ai.classification_primary_model,
    processing_time_ms: Math.round(performance.now() - started),
  };
}

/**
 * Search by image over the caller's document images (uploader or workspace member: RLS), in one
 * of document_images' five 768-d spaces or all of them, with the provider the pipeline stores
 * them with.
 */
export async function searchByImage(deps: AiDeps, body: SearchBody) {
  const img = await loadImage(body, deps.settings);
  const { raster } = await asImageInput(() => decodeImage(img.bytes, { maxSide: 1024 }));
  const embeddings = new LocalImageEmbeddings();
  const e = await embeddings.embedImage(raster);
  const kinds = body.embedding_type === "all" ? IMAGE_EMBEDDING_KINDS : [body.embedding_type];
  const args: Record<string, unknown> = {
    p_match_count: body.limit,
    p_workspace_id: body.workspace_id ?? null,
    p_document_ids: body.document_ids ?? null,
    p_min_score: body.min_similarity ?? null,
  };
  for (const k of kinds) args[`p_${k}`] = toPgVector(e[k]);
  const found = rows(await deps.db.rpc("rag_search_images", args), "Image search") as Record<
    string,
    unknown
  >[];
  const results = found.map((r) => ({
    image_id: r.image_id,
    document_id: r.document_id,
    workspace_id: r.workspace_id,
    document_filename: r.document_filename,
    filename: r.filename,
    storage_url: r.storage_url,
    page_number: r.page_number,
    category: r.category,
    similarity: r.score,
    scores: Object.fromEntries(kinds.map((k) => [k, r[`${k}_score`]])),
    product: r.product_id ? { id: r.product_id, name: r.product_name } : null,
  }));
  return {
    results,
    count: results.length,
    embedding_type: body.embedding_type,
    embedding_model: embeddings.model,
    dimensions: IMAGE_EMBEDDING_DIMENSIONS,
  };
}

/** An upload as the HTTP layer read it (multipart or JSON). */
export interface UploadInput {
  bytes: Uint8Array;
  filename: string;
  workspace_id?: string;
  context?: string;
}

/**
 * images_upload_analyze: the image is checked and analysed first (a model failure leaves nothing
 * stored), then stored at {user_id}/{id}.{ext} in image-uploads with a public.image_uploads row;
 * a failed record removes the stored file. Answers the row with a one-hour signed URL.
 */
export async function uploadAndAnalyze(deps: AiDeps, userId: string, input: UploadInput) {
  const { mediaType, width, height } = await asImageInput(async () => {
    const mediaType = requireImage(input.bytes, "the upload");
    const { width, height } = await decodeImage(input.bytes, { maxSide: 32 });
    return { mediaType, width, height };
  });
  const ai = aiConfigOf(undefined);
  const img: LoadedImage = { bytes: input.bytes, mediaType, source: "upload" };
  const run = modelRun(deps, "images_upload_analyze", input.workspace_id);
  const analysis = await analyzeImage(run, ai, img, input.context);
  const id = crypto.randomUUID();
  const path = `${userId}/${id}.${EXT[mediaType]}`;
  const bucket = deps.service.storage.from(UPLOAD_BUCKET);
  const up = await bucket.upload(path, input.bytes as Uint8Array<ArrayBuffer>, {
    contentType: mediaType,
    upsert: false,
  });
  if (up.error) {
    throw new DomainError("upstream", "storage_failed", `Storing the image failed: ${up.error.message}`);
  }
  const { data: row, error } = await deps.service.from("image_uploads").insert({
    id,
    user_id: userId,
    workspace_id: input.workspace_id ?? null,
    storage_bucket: UPLOAD_BUCKET,
    storage_path: path,
    filename: input.filename,
    media_type: mediaType,
    size_bytes: input.bytes.byteLength,
    width,
    height,
    material_type: analysis.material_type,
    confidence: analysis.confidence,
    analysis,
    model: ai.classification_primary_model,
  }).select("*").single();
  if (error) {
    await removeOrLog(deps.service, path);
    throw new DomainError("upstream", "record_failed", `Recording the upload failed: ${error.message}`);
  }
  const signed = await bucket.createSignedUrl(path, 3600);
  return {
    image: { ...row, signed_url: signed.data?.signedUrl ?? null },
    analysis,
    model: ai.classification_primary_model,
  };
}

async function removeOrLog(service: SupabaseClient, path: string) {
  const { error } = await service.storage.from(UPLOAD_BUCKET).remove([path]);
  if (error) console.error(`images: removing ${path} after a failed record failed`, error.message);
}

// ---- Reclassify --------------------------------------------------------------------------------

/** A document image to reclassify, and the workspace whose writer role the caller must hold (if any). */
export interface ReclassifyTarget {
  image: {
    id: string;
    document_id: string;
    filename: string;
    category: string | null;
    confidence: number | null;
  };
  workspaceId: string | null;
  /** Set when the caller is not the uploader: the HTTP layer requires a writer role in it. */
  writerOf: string | null;
}

/**
 * The image as the caller reads it (RLS: 404 for others'), and who may change it: the uploader,
 * a writer of the document's workspace (`writerOf`, checked by the HTTP layer), or the service
 * role (`userId` null). An image of a personal document is the uploader's only (403).
 */
export async function imageToReclassify(
  db: SupabaseClient,
  imageId: string,
  userId: string | null,
): Promise<ReclassifyTarget> {
  const image = rows(
    await db.from("document_images").select("id, document_id, filename, category, confidence")
      .eq("id", imageId).maybeSingle(),
    "Image",
  ) as ReclassifyTarget["image"] | null;
  if (!image) throw DomainError.notFound("Image not found");
  const doc = rows(
    await db.from("pipeline_documents").select("id, user_id, workspace_id").eq("id", image.document_id)
      .single(),
    "Document",
  ) as { user_id: string; workspace_id: string | null };
  const uploader = userId === null || doc.user_id === userId;
  if (!uploader && !doc.workspace_id) {
    throw DomainError.forbidden("Only the uploader may reclassify this image");
  }
  return { image, workspaceId: doc.workspace_id, writerOf: uploader ? null : doc.workspace_id };
}

/** Where the pipeline keeps document images, and its prompts. */
export interface PipelineImages {
  bucket: string;
  prompts: PromptReader;
}

/** images_reclassify: the two-stage classification again on the stored image; stored on its row. */
export async function reclassifyImage(
  deps: AiDeps,
  pipeline: PipelineImages,
  target: ReclassifyTarget,
  aiConfig: AiConfigInput | undefined,
) {
  const { image } = target;
  const file = await deps.service.storage.from(pipeline.bucket).download(
    `${image.document_id}/${image.filename}`,
  );
  if (file.error) {
    throw new DomainError(
      "upstream",
      "storage_failed",
      `Reading the stored image failed: ${file.error.message}`,
    );
  }
  const bytes = new Uint8Array(await file.data.arrayBuffer());
  const mediaType = await asImageInput(() => requireImage(bytes, "the stored image"), "unprocessable");
  const ai = aiConfigOf(aiConfig);
  const run = modelRun(deps, "images_reclassify", target.workspaceId);
  const img = { bytes, mediaType, source: "storage" };
  const result = await classifyTwoStage(run, pipeline.prompts, ai, img, image.filename);
  const classifiedAt = new Date().toISOString();
  const classification = {
    primary: result.primary,
    validation: result.validation,
    validated: result.validated,
    threshold: result.threshold,
    previous: { category: image.category, confidence: image.confidence },
  };
  const { error } = await deps.service.from("document_images").update({
    category: result.category,
    confidence: result.confidence,
    classified_at: classifiedAt,
    classification,
  }).eq("id", image.id);
  if (error) {
    throw new DomainError("upstream", "record_failed", `Storing the classification failed: ${error.message}`);
  }
  return {
    image_id: image.id,
    document_id: image.document_id,
    previous: classification.previous,
    ...result,
    classified_at: classifiedAt,
  };
}

// ---- Health ------------------------------------------------------------------------------------

/** The vision model's configuration, the CLIP provider's state and the image embedding model. */
export async function imagesHealth(deps: Pick<AiDeps, "llm">, clip: ClipProvider) {
  const ai = aiConfigOf(undefined);
  const llm = deps.llm();
  const clipHealth = await clip.health();
  const image = new LocalImageEmbeddings();
  return {
    status: llm.configured && clipHealth.status === "healthy" ? "healthy" : "degraded",
    vision: {
      provider: llm.provider,
      configured: llm.configured,
      primary_model: ai.classification_primary_model,
      validation_model: ai.classification_validation_model,
      confidence_threshold: ai.classification_confidence_threshold,
    },
    clip: clipHealth,
    image_embeddings: { model: image.model, dimensions: image.dimensions, kinds: IMAGE_EMBEDDING_KINDS },
    storage: { upload_bucket: UPLOAD_BUCKET, max_image_bytes: MAX_IMAGE_BYTES },
    batch_limit: MAX_BATCH,
  };
}
