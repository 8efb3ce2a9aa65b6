/**
 * Image services (gateway group Images; 1 credit per image analysed, visual search 1, health
 * free; billed by billing.ts and refunded in full on any non-2xx). The work is
 * packages/shared/images (actions.ts; schemas.ts):
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
 * A workspace_id must be one the caller belongs to (outsiders 404); upload-and-analyze and
 * reclassify (when the caller is not the uploader) take a writer role in it.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { requireUser, WRITER_ROLES } from "@shared/auth/context.ts";
import { workspaceScope } from "@shared/auth/scope.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { parseJson } from "@shared/http/validate.ts";
import { decodeBase64Image, MAX_IMAGE_BYTES } from "@shared/embeddings/decode.ts";
import { asImageInput } from "@shared/images/source.ts";
import {
  analyzeBatch,
  analyzeOne,
  imagesHealth,
  imageToReclassify,
  reclassifyImage,
  searchByImage,
  uploadAndAnalyze,
  type UploadInput,
} from "@shared/images/actions.ts";
import {
  analyzeBody,
  batchBody,
  MAX_BATCH,
  reclassifyBody,
  searchBody,
  uploadForm,
  uploadJson,
} from "@shared/images/schemas.ts";
import { type Ctx, router } from "../env.ts";
import { aiDeps, clipOf } from "../deps.ts";
import { IMAGE_BUCKET } from "../pipeline/upload_images.ts";
import { promptReader } from "../pipeline/prompts.ts";

const tags = ["Images"];

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
      const body = c.req.valid("json");
      return c.json(await analyzeOne(await aiDeps(c, body.workspace_id), body), 200);
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
      const body = c.req.valid("json");
      return c.json(await analyzeBatch(await aiDeps(c, body.workspace_id), body), 200);
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
      return c.json(await searchByImage(await aiDeps(c, body.workspace_id), body), 200);
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
      const deps = await aiDeps(c, input.workspace_id, WRITER_ROLES);
      return c.json(await uploadAndAnalyze(deps, who.userId, input), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/images/{image_id}/reclassify",
      tags,
      summary: "Re-run the two-stage classification (vision, then validation model) on a document image",
      request: {
        params: idParam("image_id"),
        body: { content: { "application/json": { schema: reclassifyBody } }, required: false },
      },
      responses: {
        ...okJson("{image_id, previous, category, confidence, validated, primary, validation, ...}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { image_id } = c.req.valid("param");
      const body = await optionalBody(c);
      const deps = await aiDeps(c);
      const target = await imageToReclassify(deps.db, image_id, deps.userId);
      // Readers may look; changing the stored classification takes the uploader or a writer.
      if (target.writerOf) await workspaceScope(c, target.writerOf, WRITER_ROLES, "Reclassifying an image");
      const pipeline = { bucket: IMAGE_BUCKET, prompts: promptReader(deps.service) };
      return c.json(await reclassifyImage(deps, pipeline, target, body.ai_config), 200);
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
    async (c) => c.json(await imagesHealth(await aiDeps(c), clipOf(c)), 200),
  );

  return app;
}

/** An optional JSON body (reclassify): none, or {ai_config}. */
async function optionalBody(c: Ctx): Promise<z.infer<typeof reclassifyBody>> {
  const type = c.req.header("content-type") ?? "";
  const length = c.req.header("content-length");
  if (!type.includes("json") || length === "0") return {};
  return await parseJson(c, reclassifyBody);
}

/** The upload as multipart (file, workspace_id?, context?) or JSON (image_base64, ...). */
async function uploadInput(c: Ctx): Promise<UploadInput> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (!type.startsWith("multipart/form-data")) {
    const body = await parseJson(c, uploadJson);
    const bytes = await asImageInput(() => decodeBase64Image(body.image_base64));
    return {
      bytes,
      filename: body.filename ?? "image",
      workspace_id: body.workspace_id,
      context: body.context,
    };
  }
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
