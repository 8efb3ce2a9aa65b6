/**
 * Request schemas of the image services (routes/images.ts in the AI backend), reused for their
 * OpenAPI documents.
 */
import { z } from "zod";
import { aiConfigInput } from "../ai_services/config.ts";
import { IMAGE_EMBEDDING_KINDS } from "../embeddings/image.ts";
import { imageSource, oneImage } from "./source.ts";

/** The most images of one analyze/batch request. */
export const MAX_BATCH = 20;

const workspaceId = z.uuid().optional().meta({
  description: "Workspace the work is for (the caller must be a member; recorded with the usage)",
});
const context = z.string().trim().max(2000).optional().meta({
  description: "Free text given to the vision model with the image (what the caller knows about it)",
});

export const analyzeBody = imageSource.extend({
  workspace_id: workspaceId,
  context,
  ai_config: aiConfigInput.optional(),
})
  .superRefine((v, ctx) => oneImage(v, ctx)).meta({ id: "ImageAnalyzeRequest" });
export type AnalyzeBody = z.infer<typeof analyzeBody>;

export const batchBody = z.strictObject({
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
export type BatchBody = z.infer<typeof batchBody>;

export const EMBEDDING_TYPES = [...IMAGE_EMBEDDING_KINDS, "all"] as const;
export const searchBody = imageSource.extend({
  workspace_id: workspaceId,
  embedding_type: z.enum(EMBEDDING_TYPES).default("visual").meta({
    description: "Which of document_images' embedding spaces to compare in; `all` averages the five",
  }),
  limit: z.number().int().min(1).max(50).default(10),
  min_similarity: z.number().min(-1).max(1).optional(),
  document_ids: z.array(z.uuid()).min(1).max(100).optional(),
}).superRefine((v, ctx) => oneImage(v, ctx)).meta({ id: "ImageSearchRequest" });
export type SearchBody = z.infer<typeof searchBody>;

export const uploadJson = z.strictObject({
  image_base64: z.string().min(1),
  filename: z.string().trim().min(1).max(255).optional(),
  workspace_id: workspaceId,
  context,
}).meta({ id: "ImageUploadRequest" });

/** The multipart upload, as an OpenAPI schema object (parsed by the route, not by zod). */
export const uploadForm = {
  type: "object" as const,
  required: ["file"],
  properties: {
    file: { type: "string" as const, format: "binary", description: "PNG, JPEG, GIF or WebP, up to 10 MiB" },
    workspace_id: { type: "string" as const, format: "uuid" },
    context: { type: "string" as const, maxLength: 2000 },
  },
};

export const reclassifyBody = z.strictObject({ ai_config: aiConfigInput.optional() }).meta({
  id: "ImageReclassifyRequest",
});
export type ReclassifyBody = z.infer<typeof reclassifyBody>;
