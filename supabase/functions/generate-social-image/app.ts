/**
 * POST /functions/v1/generate-social-image (spec "Social functions"): {prompt, image_type,
 * aspect_ratio (1:1, 4:5, 9:16, 16:9), workspace_id, model?} -> {success, image_url,
 * storage_path, width, height, aspect_ratio, image_type, model, credits_used, balance}.
 * User JWT; owner, admin or member. image_type is one of lifestyle, people (10 credits),
 * product, interior (5), artistic, textured (6); debited first, refunded on failure (502);
 * 402 when short. Domain: packages/shared/social/images.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { userOnly } from "@shared/auth/context.ts";
import { generateImage, ImageBody } from "@shared/social/mod.ts";
import { PUBLISHERS, socialScope } from "@shared/social/scope.ts";

const app = createFunctionApp("generate-social-image");
app.use("*", userOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Social"],
    summary: "One image for social media, stored and returned by URL (5-10 credits by image_type)",
    request: jsonBody(ImageBody),
    responses: {
      ...okJson("{success, image_url, width, height, credits_used, balance}"),
      ...errorResponses,
      402: errorResponse("Insufficient credits"),
      502: errorResponse("The image provider failed; refunded"),
      503: errorResponse("The image provider is not configured"),
    },
  }),
  async (c) => {
    const req = c.req.valid("json");
    const s = await socialScope(c, req.workspace_id, PUBLISHERS, "Generating social images");
    return c.json(await generateImage(s, req), 200);
  },
);

export default app;
