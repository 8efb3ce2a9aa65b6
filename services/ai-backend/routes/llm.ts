/**
 * Direct LLM actions (gateway group Direct LLM; action names keep the spec's vendor word:
 * anthropic_validate_image, anthropic_enrich_product, anthropic_test). 1 credit each (`default`),
 * refunded on any non-2xx. The model calls go through the platform's model layer (ai/models.ts
 * over packages/shared/llm: whichever provider LLM_PROVIDER configures); a model failure is
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
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { db, requireWorkspaceRole } from "@shared/auth/context.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { rows } from "@shared/supabase/postgrest.ts";
import { type Ctx, router } from "../env.ts";
import { aiConfigInput, IMAGE_CATEGORIES } from "../pipeline/config.ts";
import { imageBlock, imageSource, loadImage, oneImage } from "../ai/images.ts";
import { aiConfigOf, ModelRun, settings } from "../ai/models.ts";
import { productInput } from "../ai/services.ts";

const tags = ["Direct LLM"];
const workspaceId = z.uuid().optional();

const validateImageBody = imageSource.extend({
  product_name: z.string().trim().min(1).max(300).optional(),
  expected_material: z.string().trim().min(1).max(300).optional(),
  workspace_id: workspaceId,
  ai_config: aiConfigInput.optional(),
}).superRefine((v, ctx) => oneImage(v, ctx)).meta({ id: "LlmValidateImageRequest" });

const imageVerdict = z.object({
  is_valid: z.boolean(),
  matches_expectation: z.boolean().nullable(),
  category: z.enum(IMAGE_CATEGORIES),
  confidence: z.number().min(0).max(1),
  reasoning: z.string().trim().min(1).max(4000),
});

const enrichBody = z.strictObject({
  product: productInput.optional(),
  product_id: z.uuid().optional(),
  workspace_id: workspaceId,
  ai_config: aiConfigInput.optional(),
}).superRefine((v, ctx) => {
  if ((v.product === undefined) === (v.product_id === undefined)) {
    ctx.addIssue({ code: "custom", message: "exactly one of product or product_id is required" });
  }
}).meta({ id: "LlmEnrichProductRequest" });

const strings = z.array(z.string().trim().min(1).max(200)).max(30);
const enrichment = z.object({
  description: z.string().trim().min(1).max(5000),
  materials: strings,
  colors: strings,
  finishes: strings,
  applications: strings,
  tags: strings,
  seo_title: z.string().trim().min(1).max(200),
  seo_description: z.string().trim().min(1).max(500),
});

const testBody = z.strictObject({
  prompt: z.string().trim().min(1).max(10_000).default("Reply with the single word OK."),
  model: z.string().trim().min(1).max(100).optional(),
  max_tokens: z.number().int().min(1).max(4096).default(256),
  workspace_id: workspaceId,
}).meta({ id: "LlmTestRequest" });

async function checkWorkspace(c: Ctx, ws: string | undefined) {
  if (ws) await requireWorkspaceRole(c, ws, null);
}

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
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      const img = await loadImage(body, settings(c));
      const expected = [
        body.product_name ? `Product: ${body.product_name}.` : "",
        body.expected_material ? `Expected material: ${body.expected_material}.` : "",
      ].filter(Boolean).join(" ");
      const run = new ModelRun(c, "anthropic_validate_image", body.workspace_id ?? null);
      const verdict = await run.ask({
        model: ai.classification_validation_model,
        system: "You check images for a building-materials catalogue. Call validate_image with whether " +
          "the image is usable (a clear photo or swatch of a material or product surface), whether it " +
          "matches what is expected (null when nothing is expected), its category, your confidence (0..1) " +
          "and your reasoning.",
        maxTokens: Math.max(ai.classification_max_tokens, 1024),
        purpose: "Image validation",
        taskType: "image_validation",
        tool: "validate_image",
        description: "Report whether the image is a usable material image and matches what is expected.",
        content: [imageBlock(img), { type: "text", text: expected || "Nothing specific is expected." }],
      }, imageVerdict);
      return c.json(
        { ...verdict, media_type: img.mediaType, model: ai.classification_validation_model },
        200,
      );
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
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      let product: z.infer<typeof productInput> | undefined = body.product;
      let ws = body.workspace_id ?? null;
      if (body.product_id) {
        const row = rows(
          await db(c).from("products").select("workspace_id, name, description, sku, category, metadata")
            .eq("id", body.product_id).maybeSingle(),
          "Product",
        ) as (z.infer<typeof productInput> & { workspace_id: string }) | null;
        if (!row) throw HttpError.notFound("Product not found");
        const { workspace_id, ...fields } = row;
        product = fields;
        ws = workspace_id;
      }
      const run = new ModelRun(c, "anthropic_enrich_product", ws);
      const result = await run.ask({
        model: ai.metadata_extraction_model,
        system: "You enrich building-materials product records for a catalogue. Call enrich_product with " +
          "a description, the materials, colours, finishes, applications and tags, an SEO title and an SEO " +
          "description. Only state what the record supports or what is standard for such a product.",
        maxTokens: ai.metadata_max_tokens,
        purpose: "Product enrichment",
        taskType: "product_enrichment",
        tool: "enrich_product",
        description: "Report the suggested catalogue fields of the product.",
        content: [{ type: "text", text: `Product record:\n${JSON.stringify(product, null, 2)}` }],
      }, enrichment);
      return c.json({
        ...(body.product_id ? { product_id: body.product_id } : {}),
        enrichment: result,
        model: ai.metadata_extraction_model,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/llm/test",
      tags,
      summary: "anthropic_test: one plain-text round trip to the language model",
      request: jsonBody(testBody),
      responses: { ...okJson("{ok, model, reply, usage, stop_reason, latency_ms}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await checkWorkspace(c, body.workspace_id);
      const model = body.model ?? aiConfigOf(undefined).classification_primary_model;
      const run = new ModelRun(c, "anthropic_test", body.workspace_id ?? null);
      const started = performance.now();
      const r = await run.text({
        model,
        system: "You are a connectivity test. Answer briefly.",
        maxTokens: body.max_tokens,
        purpose: "Connectivity test",
        taskType: "llm_test",
        content: [{ type: "text", text: body.prompt }],
      });
      return c.json({
        ok: true,
        model,
        reply: r.text,
        stop_reason: r.stop_reason,
        usage: { input_tokens: r.usage.input_tokens, output_tokens: r.usage.output_tokens },
        latency_ms: Math.round(performance.now() - started),
      }, 200);
    },
  );

  return app;
}
