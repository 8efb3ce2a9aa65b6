/**
 * POST /functions/v1/generate-social-content (spec "Social functions"): {topic, platform, tone,
 * product_info {name, category}, include_hashtags, hashtag_count, workspace_id} -> {success,
 * platform, variants: [{caption, hashtags, text, character_count}] x 3, credits_used, balance}.
 * User JWT; owner, admin or member. 2 credits, debited first and refunded once when the model
 * fails (502 model_unavailable) or answers unusably twice (502 model_bad_output); 402 when the
 * balance is short; 503 model_unavailable (nothing debited) when no model is configured.
 * Domain: packages/shared/social/content.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { userOnly } from "@shared/auth/context.ts";
import { llmFromEnv } from "@shared/llm/mod.ts";
import { ContentBody, generateContent } from "@shared/social/mod.ts";
import { PUBLISHERS, socialScope } from "@shared/social/scope.ts";

const app = createFunctionApp("generate-social-content");
app.use("*", userOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Social"],
    summary: "Three caption variants for a platform (2 credits)",
    request: jsonBody(ContentBody),
    responses: {
      ...okJson("{success, platform, variants, credits_used, balance}"),
      ...errorResponses,
      402: errorResponse("Insufficient credits"),
      502: errorResponse("The language model failed or answered unusably; refunded"),
      503: errorResponse("The language model is not configured"),
    },
  }),
  async (c) => {
    const req = c.req.valid("json");
    const s = await socialScope(c, req.workspace_id, PUBLISHERS, "Generating social content");
    return c.json(await generateContent(s, llmFromEnv(), req), 200);
  },
);

export default app;
