/**
 * POST /functions/v1/seo-write (spec "SEO", sub-functions callable directly; user JWT):
 * {article_plan, content_brief?, keyword_research_summary?, user_id?} -> {success, data:
 * {title, meta_title, meta_description, content_markdown, faq[], word_count}} (3 credits).
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
import { dataForSeoFromEnv, seoLlmFromEnv, WriteRequest, writeStep } from "@shared/seo/mod.ts";

const app = createFunctionApp("seo-write");
const MAX_BODY_BYTES = 1024 * 1024;

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["SEO"],
    summary: "Write the article for a plan",
    middleware: [
      limitBody(MAX_BODY_BYTES),
      userOnly,
    ] as const,
    request: jsonBody(WriteRequest),
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
    return c.json({ success: true, data: await writeStep(deps, body) }, 200);
  },
);

export default app;
