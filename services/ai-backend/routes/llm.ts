/**
 * Direct LLM actions (gateway group Direct LLM; action names keep the spec's vendor word:
 * anthropic_validate_image, anthropic_enrich_product, anthropic_test). 1 credit each (`default`),
 * refunded on any non-2xx. The work is packages/shared/direct_llm (actions.ts, schemas.ts), through the
 * platform's model layer (whichever provider LLM_PROVIDER configures); a model failure is
 * `model_unavailable` (503 not configured, 502 provider failure), an unusable answer
 * `model_bad_output` (502).
 *
 *   POST /api/llm/images/validate  {image_url | image_base64, product_name?, expected_material?,
 *                                  workspace_id?, ai_config?}: the validation model judges whether
 *                                  the image is a usable material image (and matches what is
 *                                  expected) -> {is_valid, matches_expectation, category,
 *                                  confidence, reasoning, model}
 *   POST /api/llm/products/enrich  {product | product_id, workspace_id?, ai_config?}: suggested
 *                                  catalogue fields (description, materials, colors, finishes,
 *                                  applications, tags, seo_title, seo_description). Nothing is
 *                                  written: enrichment is a suggestion the caller reviews.
 *   POST /api/llm/test             {prompt?, model?, max_tokens?}: one plain-text round trip
 *                                  -> {ok, model, reply, usage, stop_reason, latency_ms}
 *
 * A workspace_id must be one the caller belongs to (404 otherwise); product_id is read as the
 * caller (others' products are 404).
 */
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { enrichProduct, llmTest, validateImage } from "@shared/direct_llm/actions.ts";
import { enrichBody, llmTestBody, validateImageBody } from "@shared/direct_llm/schemas.ts";
import { router } from "../env.ts";
import { aiDeps } from "../deps.ts";

const tags = ["Direct LLM"];

export function llmRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/llm/images/validate",
      tags,
      summary: "anthropic_validate_image: is this a usable material image (matching what is expected)?",
      request: jsonBody(validateImageBody),
      responses: {
        ...okJson("{is_valid, matches_expectation, category, confidence, reasoning, model}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await validateImage(await aiDeps(c, body.workspace_id), body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/llm/products/enrich",
      tags,
      summary: "anthropic_enrich_product: suggested catalogue fields for a product (nothing is written)",
      request: jsonBody(enrichBody),
      responses: { ...okJson("{enrichment, model, product_id?}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await enrichProduct(await aiDeps(c, body.workspace_id), body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/llm/test",
      tags,
      summary: "anthropic_test: one plain-text round trip to the language model",
      request: jsonBody(llmTestBody),
      responses: { ...okJson("{ok, model, reply, usage, stop_reason, latency_ms}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await llmTest(await aiDeps(c, body.workspace_id), body), 200);
    },
  );

  return app;
}
