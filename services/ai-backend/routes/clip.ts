/**
 * CLIP embeddings (gateway group Embeddings): an image or a text as one 768-dimension unit vector
 * in the joint image/text space of the configured CLIP provider (packages/shared/images/clip.ts
 * over embeddings/clip.ts: Jina's API with CLIP_API_KEY, else the local deterministic provider).
 * 0.25 credits each (clip_embedding), billed by billing.ts and refunded on any non-2xx.
 *
 *   POST /api/embeddings/clip-image  {image_url | image_base64, workspace_id?}
 *   POST /api/embeddings/clip-text   {text, workspace_id?}
 *   -> {embedding: number[768], dimensions, model, provider, input_type, media_type?}
 *
 * A workspace_id must be one the caller belongs to (404 otherwise). embeddings_health
 * (routes/monitoring.ts) reports the CLIP provider's real state.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { clipImage, clipText } from "@shared/images/clip.ts";
import { imageSource, oneImage } from "@shared/images/source.ts";
import { router } from "../env.ts";
import { aiDeps } from "../deps.ts";

const tags = ["Embeddings"];

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
      const deps = await aiDeps(c, body.workspace_id);
      return c.json(await clipImage(deps.settings, body), 200);
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
      const deps = await aiDeps(c, body.workspace_id);
      return c.json(await clipText(deps.settings, body.text), 200);
    },
  );

  return app;
}
