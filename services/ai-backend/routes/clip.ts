/**
 * CLIP embeddings (gateway group Embeddings): an image or a text as one 768-dimension unit vector
 * in the joint image/text space of the configured CLIP provider (packages/shared/embeddings/
 * clip.ts: Jina's API with CLIP_API_KEY, else the local deterministic provider). 0.25 credits
 * each (clip_embedding), billed by billing.ts and refunded on any non-2xx.
 *
 *   POST /api/embeddings/clip-image  {image_url | image_base64, workspace_id?}
 *   POST /api/embeddings/clip-text   {text, workspace_id?}
 *   -> {embedding: number[768], dimensions, model, provider, input_type, media_type?}
 *
 * embeddings_health (routes/monitoring.ts) reports the CLIP provider's real state.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { requireWorkspaceRole } from "@shared/auth/context.ts";
import { DomainError } from "@shared/errors.ts";
import { clipFromEnv, type ClipProvider } from "@shared/embeddings/clip.ts";
import { EmbeddingError } from "@shared/embeddings/provider.ts";
import { ImageInputError } from "@shared/embeddings/decode.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { type Ctx, router } from "../env.ts";
import { imageSource, loadImage, oneImage } from "../ai/images.ts";
import { settings } from "../ai/models.ts";

const tags = ["Embeddings"];

/** The CLIP provider of this request's configuration (a misconfiguration is a 503). */
export function clipOf(c: Ctx): ClipProvider {
  try {
    return clipFromEnv(settings(c));
  } catch (err) {
    throw DomainError.unavailable(
      `CLIP embeddings are misconfigured: ${(err as Error).message}`,
      "clip_misconfigured",
    );
  }
}

/** Runs a CLIP call, mapping provider failures to 502 and bad images to 400. */
export async function clipCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ImageInputError) throw DomainError.invalid(err.message, undefined, "invalid_image");
    if (err instanceof EmbeddingError) {
      throw new DomainError("upstream", "embedding_failed", `CLIP embedding failed: ${err.message}`, {
        provider_status: err.status,
      });
    }
    throw err;
  }
}

const workspaceId = z.uuid().optional().meta({
  description:
    "Optional workspace the call is made for (recorded with the usage; the caller must be a member)",
});

const imageBody = imageSource.extend({ workspace_id: workspaceId })
  .superRefine((v, ctx) => oneImage(v, ctx)).meta({ id: "ClipImageRequest" });
const textBody = z.strictObject({
  text: z.string().trim().min(1).max(8000),
  workspace_id: workspaceId,
}).meta({ id: "ClipTextRequest" });

const answer = z.object({
  embedding: z.array(z.number()),
  dimensions: z.number().int(),
  model: z.string(),
  provider: z.string(),
  input_type: z.enum(["image", "text"]),
  media_type: z.string().optional(),
}).meta({ id: "ClipEmbedding" });

export function clipRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/embeddings/clip-image",
      tags,
      summary: "CLIP embedding of an image (768-d, unit length, same space as clip-text)",
      request: jsonBody(imageBody),
      responses: { ...okJson("The embedding", 200, answer), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      if (body.workspace_id) await requireWorkspaceRole(c, body.workspace_id, null);
      const clip = clipOf(c);
      const img = await loadImage(body, settings(c));
      const embedding = await clipCall(() => clip.embedImage(img.bytes));
      return c.json({
        embedding,
        dimensions: embedding.length,
        model: clip.model,
        provider: clip.name,
        input_type: "image" as const,
        media_type: img.mediaType,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/embeddings/clip-text",
      tags,
      summary: "CLIP embedding of a text (768-d, unit length, same space as clip-image)",
      request: jsonBody(textBody),
      responses: { ...okJson("The embedding", 200, answer), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      if (body.workspace_id) await requireWorkspaceRole(c, body.workspace_id, null);
      const clip = clipOf(c);
      const embedding = await clipCall(() => clip.embedText(body.text));
      return c.json({
        embedding,
        dimensions: embedding.length,
        model: clip.model,
        provider: clip.name,
        input_type: "text" as const,
      }, 200);
    },
  );

  return app;
}
