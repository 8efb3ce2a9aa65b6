/**
 * POST /functions/v1/ai-rerank (spec "Re-rank"): {query, results, maxResults?,
 * includeExplanations?, model?} -> {rerankedResults, explanations, processingTimeMs, model, cost,
 * usage {inputTokens, outputTokens}, warnings}. No authentication (verify_jwt = false), so two
 * budgets, both counted in Postgres (rate_limit_hit) so every instance shares them:
 * - per client: every request, valid or not, first counts against its client address's fixed
 *   window (RERANK_RATE_LIMIT requests per RERANK_RATE_WINDOW_SECONDS, default 30 per 60 s). The
 *   address is the one the platform's gateway vouches for (clientAddress: the right-most
 *   X-Forwarded-For entry, which the gateway appends; what a client writes in the headers
 *   changes nothing);
 * - global: each model call, i.e. each valid request with a configured model, counts against
 *   one window for all clients (RERANK_GLOBAL_LIMIT per RERANK_GLOBAL_WINDOW_SECONDS, default
 *   120 per 60 s), so many addresses together cannot spend more than that.
 * Beyond either: 429 {error, code: rate_limited, details {scope: client | global, limit,
 * window_seconds, retry_after}} with Retry-After. Then: 413 for a body over 1 MiB, 400 naming the
 * field for anything outside the bounds of @shared/rerank/schemas.ts (a model other than the two
 * allowed ids included), 503 model_unavailable when the model is not configured (no global budget
 * spent), 502 model_unavailable when it fails. The model's order is used only when it is a
 * permutation of the given ids; a first answer that is not is sent back once (noted in
 * `warnings`), a second one is 502 model_bad_output. Nothing is billed: the caller is anonymous;
 * `cost` reports what the model calls cost (USD).
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { serviceDb } from "@shared/auth/context.ts";
import { env } from "@shared/env.ts";
import { llmFromEnv } from "@shared/llm/mod.ts";
import { clientAddress, hitRateLimit } from "@shared/rate_limit.ts";
import { MAX_BODY_BYTES, rerank, RerankRequest, RerankResponse } from "@shared/rerank/mod.ts";

const app = createFunctionApp("ai-rerank");

/** A positive integer from the environment, else `fallback`. */
function positive(name: string, fallback: number): number {
  const n = Number(env(name) ?? fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * Counts one hit of `key` in the budget `scope` (`client`: RERANK_RATE_*, `global`:
 * RERANK_GLOBAL_*); the 429 to answer when it is spent, else null.
 */
async function spend(c: Context, scope: "client" | "global", key: string): Promise<Response | null> {
  const [limitVar, windowVar, fallback] = scope === "client"
    ? ["RERANK_RATE_LIMIT", "RERANK_RATE_WINDOW_SECONDS", 30]
    : ["RERANK_GLOBAL_LIMIT", "RERANK_GLOBAL_WINDOW_SECONDS", 120];
  const window = positive(windowVar, 60);
  const v = await hitRateLimit(serviceDb(c), `ai-rerank:${scope}`, key, positive(limitVar, fallback), window);
  if (v.allowed) return null;
  const per = scope === "client" ? "requests per client" : "model calls for all clients";
  return c.json(
    {
      error: `Rate limit exceeded: ${v.limit} ${per} per ${window} s; retry in ${v.retryAfter} s`,
      code: "rate_limited",
      details: { scope, limit: v.limit, window_seconds: window, retry_after: v.retryAfter },
    },
    429,
    { "Retry-After": String(v.retryAfter) },
  );
}

// Every request counts, valid or not: the limit protects the model budget and the database.
app.post(
  "/",
  async (c, next) => (await spend(c, "client", clientAddress(c.req.raw.headers))) ?? await next(),
);

app.post(
  "/",
  limitBody(MAX_BODY_BYTES),
);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Re-rank"],
    summary: "Re-rank search candidates with a language model (public, rate-limited per client and globally)",
    request: jsonBody(RerankRequest),
    responses: {
      ...okJson("The candidates in the new order", 200, RerankResponse),
      ...errorResponses,
      413: errorResponse("Body over 1 MiB"),
      429: errorResponse(
        "The client limit or the global model-call budget is spent (details.scope); Retry-After",
      ),
      502: errorResponse(
        "The model failed (model_unavailable) or answered unusably twice (model_bad_output)",
      ),
      503: errorResponse("The model is not configured (model_unavailable)"),
    },
  }),
  async (c) => {
    const llm = llmFromEnv();
    llm.assertConfigured("Re-rank");
    // Only a request that reaches the model spends the global budget.
    const limited = await spend(c, "global", "model-calls");
    if (limited) return limited;
    return c.json(await rerank(llm, c.req.valid("json")), 200);
  },
);

export default app;
