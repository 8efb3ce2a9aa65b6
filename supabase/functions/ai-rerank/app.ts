/**
 * POST /functions/v1/ai-rerank (spec "Re-rank"): {query, results, maxResults?,
 * includeExplanations?, model?} -> {rerankedResults, explanations, processingTimeMs, model, cost,
 * usage {inputTokens, outputTokens}, warnings}. No authentication (verify_jwt = false), so every
 * request first counts against a per-client-IP fixed window (RERANK_RATE_LIMIT requests per
 * RERANK_RATE_WINDOW_SECONDS, default 30 per 60 s): 429 {error, code: rate_limited} with Retry-After beyond it. Then: 413
 * for a body over 1 MiB, 400 naming the field for anything outside the bounds of
 * @shared/rerank/schemas.ts (a model other than the two allowed ids included), 503 when the
 * model is not configured, 502 when it fails. The model's order is used only when it is a
 * permutation of the given ids; otherwise the input order is returned with a warning.
 * Nothing is billed: the caller is anonymous; `cost` reports what the model call cost (USD).
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { serviceDb } from "@shared/auth/context.ts";
import { env } from "@shared/env.ts";
import { anthropicFromEnv } from "@shared/agent/llm.ts";
import { clientAddress, hitRateLimit } from "@shared/rate_limit.ts";
import { MAX_BODY_BYTES, rerank, RerankRequest, RerankResponse } from "@shared/rerank/mod.ts";

const app = createFunctionApp("ai-rerank");

/** Requests per window per client IP, and the window (RERANK_RATE_LIMIT, RERANK_RATE_WINDOW_SECONDS). */
function positive(name: string, fallback: number): number {
  const n = Number(env(name) ?? fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

// Every request counts, valid or not: the limit protects the model budget and the database.
app.post("/", async (c, next) => {
  const window = positive("RERANK_RATE_WINDOW_SECONDS", 60);
  const limit = positive("RERANK_RATE_LIMIT", 30);
  const verdict = await hitRateLimit(
    serviceDb(c),
    "ai-rerank",
    clientAddress(c.req.raw.headers),
    limit,
    window,
  );
  if (!verdict.allowed) {
    return c.json(
      {
        error:
          `Rate limit exceeded: ${verdict.limit} requests per ${window} s per client; retry in ${verdict.retryAfter} s`,
        code: "rate_limited",
        details: { limit: verdict.limit, window_seconds: window, retry_after: verdict.retryAfter },
      },
      429,
      { "Retry-After": String(verdict.retryAfter) },
    );
  }
  await next();
});

app.post(
  "/",
  limitBody(MAX_BODY_BYTES),
);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Re-rank"],
    summary: "Re-rank search candidates with a language model (public, rate-limited per IP)",
    request: jsonBody(RerankRequest),
    responses: {
      ...okJson("The candidates in the new order", 200, RerankResponse),
      ...errorResponses,
      413: errorResponse("Body over 1 MiB"),
      429: errorResponse("Rate limit exceeded; Retry-After says when to retry"),
      502: errorResponse("The model failed"),
      503: errorResponse("The model is not configured"),
    },
  }),
  async (c) => c.json(await rerank(anthropicFromEnv(), c.req.valid("json")), 200),
);

export default app;
