/**
 * /functions/v1/suggest-fields (spec "Scraping"): POST {url, context?} -> 200 {success, url,
 * fields: [{name, type, description, example?, source: structured|llm}], llmUsed}. Fields the
 * page's structured data shows come first; the language model proposes more for the context
 * (without ANTHROPIC_API_KEY only the structured ones, llmUsed false). Signed-in users; 400
 * unsafe_url or an unknown body key (named), 422 robots_disallowed, 502 fetch_failed / llm_error /
 * llm_invalid_output.
 *
 * The model call costs 1 credit (cost key scraping_llm, packages/shared/scraping/billing.ts),
 * debited after the page is fetched and before the model is called: a short balance is 402
 * insufficient_credits and the model is not called; a failed call (502) is refunded.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponse, errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { caller, serviceDb, userOnly } from "@shared/auth/context.ts";
import { runnerDeps, suggestFields } from "@shared/scraping/pages.ts";
import { payerOf } from "@shared/scraping/billing.ts";

const app = createFunctionApp("suggest-fields");
app.use("*", userOnly);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Scraping"],
    summary: "Suggest fields to extract from pages like this one",
    request: jsonBody(
      z.object({ url: z.url({ protocol: /^https?$/ }), context: z.string().max(2000).optional() }).strict(),
    ),
    responses: {
      ...okJson("{success, url, fields, llmUsed}"),
      ...errorResponses,
      422: errorResponse("robots.txt disallows the page"),
      502: errorResponse("The page could not be fetched, or the model's answer was invalid twice"),
    },
  }),
  async (c) => {
    const { url, context } = c.req.valid("json");
    const deps = runnerDeps(serviceDb(c), undefined, payerOf(caller(c), null));
    return c.json(await suggestFields(url, context, deps, c.var.requestId.slice(0, 200)), 200);
  },
);

export default app;
