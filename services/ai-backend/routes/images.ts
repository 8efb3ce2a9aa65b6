/**
 * Image services (gateway group Images; 1 credit per image analysed, visual search 1, health
 * free; billed by billing.ts and refunded in full on any non-2xx):
 *
 *   POST /api/images/analyze              {image_url | image_base64, context?, workspace_id?, ai_config?}
 *                                         -> {analysis, model, media_type, source, processing_time_ms}
 *   POST /api/images/analyze/batch        {images: [{image_url | image_base64}] | image_urls: [url], ...}
 *                                         (1-20 images, billed per image) -> {results: [...], count}.
 *                                         Every image is fetched and checked before any model call;
 *                                         a model failure on any image fails the batch (refunded).
 *   POST /api/images/search               {image_url | image_base64, embedding_type?, limit?,
 *                                         min_similarity?, workspace_id?, document_ids?}: search by image
 *                                         over document_images' five 768-d embeddings in the
 *                                         caller's documents (uploader or workspace member).
 *   POST /api/images/upload-and-analyze   multipart (file, workspace_id?, context?) or JSON
 *                                         {image_base64, filename?, workspace_id?, context?}: analysed,
 *                                         then stored in the private bucket image-uploads at
 *                                         {user_id}/{id}.{ext} with a public.image_uploads row.
 *   POST /api/images/{image_id}/reclassify {ai_config?}: the pipeline's two-stage classification
 *                                         again on a document_images row; the result is stored on it.
 *   GET  /api/images/health
 *
 * The analysis is the vision model's analyze_image call, zod-validated (material_type, colors,
 * textures, style, description, confidence); a malformed answer is sent back once, then a 502
 * `model_bad_output`; a provider failure is `model_unavailable` (ai/models.ts, packages/shared/llm).
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import type { SupabaseClient } from "@supabase/supabase-js";
import {
  caller,
  db,
  requireUser,
  requireWorkspaceRole,
  serviceDb,
  type WorkspaceRoleName,
  WRITER_ROLES,
} from "@shared/auth/context.ts";
import { DomainError } from "@shared/errors.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { parseJson } from "@shared/http/validate.ts";
import { rows } from "@shared/supabase/postgrest.ts";
import { toPgVector } from "@shared/embeddings/provider.ts";
import {
  IMAGE_EMBEDDING_DIMENSIONS,
  IMAGE_EMBEDDING_KINDS,
  LocalImageEmbeddings,
} from "@shared/embeddings/image.ts";
import {
  decodeBase64Image,
  decodeImage,
  ImageInputError,
  type ImageMediaType,
  MAX_IMAGE_BYTES,
  requireImage,
} from "@shared/embeddings/decode.ts";
import { type Ctx, router } from "../env.ts";
import { aiConfigInput } from "../pipeline/config.ts";
import { IMAGE_BUCKET } from "../pipeline/upload_images.ts";
import {
  analyzeImage,
  classifyTwoStage,
  imageAnalysis,
  imageSource,
  type LoadedImage,
  loadImage,
  oneImage,
} from "../ai/images.ts";
import { aiConfigOf, backendLlm, ModelRun, settings } from "../ai/models.ts";
import { clipOf } from "./clip.ts";

const tags = ["Images"];
export const UPLOAD_BUCKET = "image-uploads";
const MAX_BATCH = 20;
const EXT: Record<ImageMediaType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

const workspaceId = z.uuid().optional().meta({
  description: "Workspace the work is for (the caller must be a member; recorded with the usage)",
});
const context = z.string().trim().max(2000).optional().meta({
  description: "Free text given to the vision model with the image (what the caller knows about it)",
});

const analyzeBody = imageSource.extend({
  workspace_id: workspaceId,
  context,
  ai_config: aiConfigInput.optional(),
})
  .superRefine((v, ctx) => oneImage(v, ctx)).meta({ id: "ImageAnalyzeRequest" });

const batchBody = z.strictObject({
  images: z.array(imageSource.superRefine((v, ctx) => oneImage(v, ctx))).min(1).max(MAX_BATCH).optional(),
  image_urls: z.array(z.string().trim().min(1).max(2048)).min(1).max(MAX_BATCH).optional(),
  workspace_id: workspaceId,
  context,
  ai_config: aiConfigInput.optional(),
}).superRefine((v, ctx) => {
  if ((v.images === undefined) === (v.image_urls === undefined)) {
    ctx.addIssue({ code: "custom", message: "exactly one of images or image_urls is required" });
  }
}).meta({ id: "ImageAnalyzeBatchRequest" });

const EMBEDDING_TYPES = [...IMAGE_EMBEDDING_KINDS, "all"] as const;
const searchBody = imageSource.extend({
  workspace_id: workspaceId,
  embedding_type: z.enum(EMBEDDING_TYPES).default("visual").meta({
    description: "Which of document_images' embedding spaces to compare in; `all` averages the five",
  }),
  limit: z.number().int().min(1).max(50).default(10),
  min_similarity: z.number().min(-1).max(1).optional(),
  document_ids: z.array(z.uuid()).min(1).max(100).optional(),
}).superRefine((v, ctx) => oneImage(v, ctx)).meta({ id: "ImageSearchRequest" });

const uploadJson = z.strictObject({
  image_base64: z.string().min(1),
  filename: z.string().trim().min(1).max(255).optional(),
  workspace_id: workspaceId,
  context,
}).meta({ id: "ImageUploadRequest" });

/** The multipart upload, as an OpenAPI schema object (parsed by uploadInput, not by zod). */
const uploadForm = {
  type: "object" as const,
  required: ["file"],
  properties: {
    file: { type: "string" as const, format: "binary", description: "PNG, JPEG, GIF or WebP, up to 10 MiB" },
    workspace_id: { type: "string" as const, format: "uuid" },
    context: { type: "string" as const, maxLength: 2000 },
  },
};

const reclassifyBody = z.strictObject({ ai_config: aiConfigInput.optional() }).meta({
  id: "ImageReclassifyRequest",
});

/** A workspace given in a request must be one the caller belongs to (outsiders 404). */
async function checkWorkspace(
  c: Ctx,
  ws: string | undefined,
  roles: readonly WorkspaceRoleName[] | null = null,
) {
  if (ws) await requireWorkspaceRole(c, ws, roles);
}

function oneResult(img: LoadedImage, analysis: z.infer<typeof imageAnalysis>, index?: number) {
  return {
    ...(index === undefined ? {} : { index }),
    analysis,
    media_type: img.mediaType,
    source: img.source === "base64" ? "base64" : img.source,
  };
}

export function imageRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/images/analyze",
      tags,
      summary: "Vision analysis of one image: material type, colours, textures, style, description",
      request: jsonBody(analyzeBody),
      responses: {
        ...okJson("{analysis, model, media_type, source, processing_time_ms}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const started = performance.now();
      const body = c.req.valid("json");
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      const img = await loadImage(body, settings(c));
      const run = new ModelRun(c, "images_analyze", body.workspace_id ?? null);
      const analysis = await analyzeImage(run, ai, img, body.context);
      return c.json({
        ...oneResult(img, analysis),
        model: ai.classification_primary_model,
        processing_time_ms: Math.round(performance.now() - started),
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/images/analyze/batch",
      tags,
      summary: `Vision analysis of 1-${MAX_BATCH} images (billed per image; all or nothing)`,
      request: jsonBody(batchBody),
      responses: {
        ...okJson("{results: [{index, analysis, media_type, source}], count, model}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const started = performance.now();
      const body = c.req.valid("json");
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      const sources = body.images ?? body.image_urls!.map((image_url) => ({ image_url }));
      // Every image is fetched and checked before any model call: a bad one costs no model time.
      const loaded: LoadedImage[] = [];
      for (const [i, src] of sources.entries()) loaded.push(await loadImage(src, settings(c), `images.${i}`));
      const run = new ModelRun(c, "images_analyze_batch", body.workspace_id ?? null);
      const results = [];
      for (const [i, img] of loaded.entries()) {
        results.push(oneResult(img, await analyzeImage(run, ai, img, body.context), i));
      }
      return c.json({
        results,
        count: results.length,
        model: ai.classification_primary_model,
        processing_time_ms: Math.round(performance.now() - started),
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/images/search",
      tags,
      summary: "Search by image over the caller's document images (five 768-d embedding spaces)",
      request: jsonBody(searchBody),
      responses: {
        ...okJson("{results: [{image_id, similarity, ...}], count, embedding_type}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await checkWorkspace(c, body.workspace_id);
      const img = await loadImage(body, settings(c));
      let raster;
      try {
        raster = (await decodeImage(img.bytes, { maxSide: 1024 })).raster;
      } catch (err) {
        if (err instanceof ImageInputError) {
          throw DomainError.invalid(err.message, undefined, "invalid_image");
        }
        throw err;
      }
      // The same provider the pipeline stores document_images' embeddings with.
      const e = await new LocalImageEmbeddings().embedImage(raster);
      const kinds = body.embedding_type === "all" ? IMAGE_EMBEDDING_KINDS : [body.embedding_type];
      const args: Record<string, unknown> = {
        p_match_count: body.limit,
        p_workspace_id: body.workspace_id ?? null,
        p_document_ids: body.document_ids ?? null,
        p_min_score: body.min_similarity ?? null,
      };
      for (const k of kinds) args[`p_${k}`] = toPgVector(e[k]);
      const found = rows(
        await db(c).rpc("rag_search_images", args),
        "Image search",
      ) as Record<string, unknown>[];
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
      return c.json({
        results,
        count: results.length,
        embedding_type: body.embedding_type,
        embedding_model: new LocalImageEmbeddings().model,
        dimensions: IMAGE_EMBEDDING_DIMENSIONS,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/images/upload-and-analyze",
      tags,
      summary: "Upload an image (multipart `file`, or JSON image_base64), analyse it and keep both",
      // Parsed by the handler (uploadInput). The JSON body (ImageUploadRequest) is validated when
      // it is the one sent; the form is described as a plain schema, so no validator parses a
      // JSON request as a form (or refuses a form as unsupported).
      description: "Body: multipart/form-data with `file` (PNG, JPEG, GIF or WebP, up to 10 MiB), optional " +
        "`workspace_id` and `context`; or JSON {image_base64, filename?, workspace_id?, context?}.",
      request: {
        body: {
          content: {
            "application/json": { schema: uploadJson },
            "multipart/form-data": { schema: uploadForm },
          },
          required: false,
        },
      },
      responses: {
        ...okJson("{image: {id, storage_path, signed_url, ...}, analysis, model}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const who = requireUser(c);
      const input = await uploadInput(c);
      await checkWorkspace(c, input.workspace_id, WRITER_ROLES);
      let mediaType: ImageMediaType, width: number, height: number;
      try {
        mediaType = requireImage(input.bytes, "the upload");
        ({ width, height } = await decodeImage(input.bytes, { maxSide: 32 }));
      } catch (err) {
        if (err instanceof ImageInputError) {
          throw DomainError.invalid(err.message, undefined, "invalid_image");
        }
        throw err;
      }
      const ai = aiConfigOf(undefined);
      const img: LoadedImage = { bytes: input.bytes, mediaType, source: "upload" };
      // Analysed first: a model failure leaves nothing stored.
      const run = new ModelRun(c, "images_upload_analyze", input.workspace_id ?? null);
      const analysis = await analyzeImage(run, ai, img, input.context);
      const id = crypto.randomUUID();
      const path = `${who.userId}/${id}.${EXT[mediaType]}`;
      const service = serviceDb(c);
      const up = await service.storage.from(UPLOAD_BUCKET).upload(
        path,
        input.bytes as Uint8Array<ArrayBuffer>,
        {
          contentType: mediaType,
          upsert: false,
        },
      );
      if (up.error) {
        throw new DomainError("upstream", "storage_failed", `Storing the image failed: ${up.error.message}`);
      }
      const { data: row, error } = await service.from("image_uploads").insert({
        id,
        user_id: who.userId,
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
        await removeOrLog(service, path);
        throw new DomainError("upstream", "record_failed", `Recording the upload failed: ${error.message}`);
      }
      const signed = await service.storage.from(UPLOAD_BUCKET).createSignedUrl(path, 3600);
      return c.json({
        image: { ...row, signed_url: signed.data?.signedUrl ?? null },
        analysis,
        model: ai.classification_primary_model,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/images/{image_id}/reclassify",
      tags,
      summary: "Re-run the two-stage classification (vision, then validation model) on a document image",
      request: { params: idParam("image_id"), ...jsonBodyOptional() },
      responses: {
        ...okJson("{image_id, previous, category, confidence, validated, primary, validation, ...}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { image_id } = c.req.valid("param");
      const body = await optionalBody(c);
      const image = rows(
        await db(c).from("document_images").select("id, document_id, filename, category, confidence")
          .eq("id", image_id).maybeSingle(),
        "Image",
      ) as {
        id: string;
        document_id: string;
        filename: string;
        category: string | null;
        confidence: number | null;
      } | null;
      if (!image) throw HttpError.notFound("Image not found");
      const doc = rows(
        await db(c).from("pipeline_documents").select("id, user_id, workspace_id").eq("id", image.document_id)
          .single(),
        "Document",
      ) as { user_id: string; workspace_id: string | null };
      const who = caller(c);
      // Readers may look; changing the stored classification takes the uploader or a writer.
      if (who.kind === "user" && doc.user_id !== who.userId) {
        if (!doc.workspace_id) throw HttpError.forbidden("Only the uploader may reclassify this image");
        await requireWorkspaceRole(c, doc.workspace_id, WRITER_ROLES, "Reclassifying an image");
      }
      const service = serviceDb(c);
      const file = await service.storage.from(IMAGE_BUCKET).download(
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
      let mediaType: ImageMediaType;
      try {
        mediaType = requireImage(bytes, "the stored image");
      } catch (err) {
        throw new DomainError("unprocessable", "invalid_image", (err as Error).message);
      }
      const ai = aiConfigOf(body.ai_config);
      const run = new ModelRun(c, "images_reclassify", doc.workspace_id);
      const result = await classifyTwoStage(
        run,
        service,
        ai,
        { bytes, mediaType, source: "storage" },
        image.filename,
      );
      const classifiedAt = new Date().toISOString();
      const classification = {
        primary: result.primary,
        validation: result.validation,
        validated: result.validated,
        threshold: result.threshold,
        previous: { category: image.category, confidence: image.confidence },
      };
      const { error } = await service.from("document_images").update({
        category: result.category,
        confidence: result.confidence,
        classified_at: classifiedAt,
        classification,
      }).eq("id", image.id);
      if (error) {
        throw new DomainError(
          "upstream",
          "record_failed",
          `Storing the classification failed: ${error.message}`,
        );
      }
      return c.json({
        image_id: image.id,
        document_id: image.document_id,
        previous: classification.previous,
        ...result,
        classified_at: classifiedAt,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/images/health",
      tags,
      summary: "The vision model's configuration, the CLIP provider and the image embedding model",
      responses: { ...okJson("Health report"), ...errorResponses },
    }),
    async (c) => {
      const ai = aiConfigOf(undefined);
      const llm = backendLlm(c);
      const llmConfigured = llm.configured;
      const clip = await clipOf(c).health();
      const image = new LocalImageEmbeddings();
      return c.json({
        status: llmConfigured && clip.status === "healthy" ? "healthy" : "degraded",
        vision: {
          provider: llm.provider,
          configured: llmConfigured,
          primary_model: ai.classification_primary_model,
          validation_model: ai.classification_validation_model,
          confidence_threshold: ai.classification_confidence_threshold,
        },
        clip,
        image_embeddings: { model: image.model, dimensions: image.dimensions, kinds: IMAGE_EMBEDDING_KINDS },
        storage: { upload_bucket: UPLOAD_BUCKET, max_image_bytes: MAX_IMAGE_BYTES },
        batch_limit: MAX_BATCH,
      }, 200);
    },
  );

  return app;
}

async function removeOrLog(service: SupabaseClient, path: string) {
  const { error } = await service.storage.from(UPLOAD_BUCKET).remove([path]);
  if (error) console.error(`images: removing ${path} after a failed record failed`, error.message);
}

/** An optional JSON body (reclassify): none, or {ai_config}. */
function jsonBodyOptional() {
  return { body: { content: { "application/json": { schema: reclassifyBody } }, required: false } };
}

async function optionalBody(c: Ctx): Promise<z.infer<typeof reclassifyBody>> {
  const type = c.req.header("content-type") ?? "";
  const length = c.req.header("content-length");
  if (!type.includes("json") || length === "0") return {};
  return await parseJson(c, reclassifyBody);
}

interface UploadInput {
  bytes: Uint8Array;
  filename: string;
  workspace_id?: string;
  context?: string;
}

/** The upload as multipart (file, workspace_id?, context?) or JSON (image_base64, ...). */
async function uploadInput(c: Ctx): Promise<UploadInput> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    let form: FormData;
    try {
      form = await c.req.formData();
    } catch {
      throw HttpError.badRequest("The body must be valid multipart/form-data");
    }
    const file = form.get("file") ?? form.get("image");
    if (!(file instanceof File)) throw HttpError.badRequest("file: a file field named `file` is required");
    if (file.size === 0) throw HttpError.badRequest("file: the file is empty");
    if (file.size > MAX_IMAGE_BYTES) {
      throw new HttpError(413, "payload_too_large", `file: larger than ${MAX_IMAGE_BYTES} bytes`);
    }
    const ws = form.get("workspace_id");
    if (ws !== null && (typeof ws !== "string" || !z.uuid().safeParse(ws).success)) {
      throw HttpError.badRequest("workspace_id: must be a uuid");
    }
    const ctxText = form.get("context");
    if (ctxText !== null && (typeof ctxText !== "string" || ctxText.length > 2000)) {
      throw HttpError.badRequest("context: must be text of at most 2000 characters");
    }
    return {
      bytes: new Uint8Array(await file.arrayBuffer()),
      filename: (file.name || "image").slice(0, 255),
      workspace_id: (ws as string | null) ?? undefined,
      context: (ctxText as string | null) ?? undefined,
    };
  }
  const body = await parseJson(c, uploadJson);
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64Image(body.image_base64);
  } catch (err) {
    throw DomainError.invalid((err as Error).message, undefined, "invalid_image");
  }
  return {
    bytes,
    filename: body.filename ?? "image",
    workspace_id: body.workspace_id,
    context: body.context,
  };
}
