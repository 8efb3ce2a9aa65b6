/**
 * POST /functions/v1/seo-plan (spec "SEO", sub-functions callable directly; user JWT):
 * {topic, target_keyword, keyword_research, content_brief?, additional_instructions?, user_id?}
 * -> {success, data: article_plan} (title, meta title and description, outline, secondary
 * keywords, FAQ questions, target word count, competitors; 1 credit).
 * The caller is the JWT's user (the body's user_id is ignored). The step is charged first
 * (packages/shared/seo/billing.ts) and refunded when it fails. 400 bad body, 401 no user JWT,
 * 402 insufficient credits, 502 model failure (model_unavailable, model_bad_output) or keyword-data
 * failure, 503 not configured (model_unavailable before any charge).
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { requireUser, serviceDb, userOnly } from "@shared/auth/context.ts";
import { dataForSeoFromEnv, PlanRequest, planStep, seoLlmFromEnv } from "@shared/seo/mod.ts";

const app = createFunctionApp("seo-plan");
const MAX_BODY_BYTES = 1024 * 1024;

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["SEO"],
    summary: "An article plan from keyword research and a content brief",
    middleware: [
      limitBody(MAX_BODY_BYTES),
      userOnly,
    ] as const,
    request: jsonBody(PlanRequest),
    responses: {
      ...okJson("{success, data}"),
      ...errorResponses,
      402: errorResponse("Insufficient credits"),
      502: errorResponse("The model or keyword data failed; refunded"),
      503: errorResponse("Not configured"),
    },
  }),
  async (c) => {
    const who = requireUser(c);
    const body = c.req.valid("json");
    const deps = { db: serviceDb(c), userId: who.userId, llm: seoLlmFromEnv, keywordData: dataForSeoFromEnv };
    return c.json({ success: true, data: await planStep(deps, body) }, 200);
  },
);

export default app;
