/**
 * POST /functions/v1/seo-analyze (spec "SEO", sub-functions callable directly; user JWT):
 * {content_markdown, article_plan, content_brief?, auto_fix?, max_iterations?, user_id?} ->
 * {success, data: {content_score, avg_competitor_score, serp_score, checks[], metrics, review,
 * iterations[], fix_iterations, fix_stopped, article, content_markdown, word_count}} (1 credit,
 * plus 2 per fix iteration; auto_fix defaults to true and max_iterations to 3).
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
import { AnalyzeRequest, analyzeStep, dataForSeoFromEnv, seoLlmFromEnv } from "@shared/seo/mod.ts";

const app = createFunctionApp("seo-analyze");
const MAX_BODY_BYTES = 1024 * 1024;

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["SEO"],
    summary: "Score an article, review it, and optionally fix it",
    middleware: [
      limitBody(MAX_BODY_BYTES),
      userOnly,
    ] as const,
    request: jsonBody(AnalyzeRequest),
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
    return c.json({ success: true, data: await analyzeStep(deps, body) }, 200);
  },
);

export default app;
