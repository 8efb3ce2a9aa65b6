/**
 * Direct LLM actions (gateway group Direct LLM; action names keep the spec's vendor word:
 * anthropic_validate_image, anthropic_enrich_product, anthropic_test), through the platform's
 * model layer (ai_services/models.ts over packages/shared/llm: whichever provider LLM_PROVIDER configures).
 * Enrichment writes nothing: it is a suggestion the caller reviews.
 */
import { aiConfigOf } from "../ai_services/config.ts";
import { type AiDeps, modelRun } from "../ai_services/deps.ts";
import { productRecord } from "../ai_services/actions.ts";
import {
  type EnrichBody,
  enrichment,
  imageVerdict,
  type LlmTestBody,
  type ValidateImageBody,
} from "./schemas.ts";
import { imageBlock, loadImage } from "../images/source.ts";

const VALIDATE_IMAGE_SYSTEM = "You check images for a building-materials catalogue. Call validate_image " +
  "with whether the image is usable (a clear photo or swatch of a material or product surface), whether " +
  "it matches what is expected (null when nothing is expected), its category, your confidence (0..1) " +
  "and your reasoning.";

const ENRICH_SYSTEM = "You enrich building-materials product records for a catalogue. Call enrich_product " +
  "with a description, the materials, colours, finishes, applications and tags, an SEO title and an SEO " +
  "description. Only state what the record supports or what is standard for such a product.";

/** anthropic_validate_image: is the image a usable material image (matching what is expected)? */
export async function validateImage(deps: AiDeps, body: ValidateImageBody) {
  const ai = aiConfigOf(body.ai_config);
  const img = await loadImage(body, deps.settings);
  const expected = [
    body.product_name ? `Product: ${body.product_name}.` : "",
    body.expected_material ? `Expected material: ${body.expected_material}.` : "",
  ].filter(Boolean).join(" ");
  const verdict = await modelRun(deps, "anthropic_validate_image", body.workspace_id).ask({
    model: ai.classification_validation_model,
    system: VALIDATE_IMAGE_SYSTEM,
    maxTokens: Math.max(ai.classification_max_tokens, 1024),
    purpose: "Image validation",
    taskType: "image_validation",
    tool: "validate_image",
    description: "Report whether the image is a usable material image and matches what is expected.",
    content: [imageBlock(img), { type: "text", text: expected || "Nothing specific is expected." }],
  }, imageVerdict);
  return { ...verdict, media_type: img.mediaType, model: ai.classification_validation_model };
}

/** anthropic_enrich_product: suggested catalogue fields of a given record or a readable product. */
export async function enrichProduct(deps: AiDeps, body: EnrichBody) {
  const ai = aiConfigOf(body.ai_config);
  const stored = body.product_id ? await productRecord(deps.db, body.product_id) : null;
  const run = modelRun(deps, "anthropic_enrich_product", stored?.workspace_id ?? body.workspace_id);
  const product = stored?.product ?? body.product;
  const result = await run.ask({
    model: ai.metadata_extraction_model,
    system: ENRICH_SYSTEM,
    maxTokens: ai.metadata_max_tokens,
    purpose: "Product enrichment",
    taskType: "product_enrichment",
    tool: "enrich_product",
    description: "Report the suggested catalogue fields of the product.",
    content: [{ type: "text", text: `Product record:\n${JSON.stringify(product, null, 2)}` }],
  }, enrichment);
  return {
    ...(body.product_id ? { product_id: body.product_id } : {}),
    enrichment: result,
    model: ai.metadata_extraction_model,
  };
}

/** anthropic_test: one plain-text round trip. */
export async function llmTest(deps: AiDeps, body: LlmTestBody) {
  const model = body.model ?? aiConfigOf(undefined).classification_primary_model;
  const run = modelRun(deps, "anthropic_test", body.workspace_id);
  const started = performance.now();
  const r = await run.text({
    model,
    system: "You are a connectivity test. Answer briefly.",
    maxTokens: body.max_tokens,
    purpose: "Connectivity test",
    taskType: "llm_test",
    content: [{ type: "text", text: body.prompt }],
  });
  return {
    ok: true,
    model,
    reply: r.text,
    stop_reason: r.stop_reason,
    usage: { input_tokens: r.usage.input_tokens, output_tokens: r.usage.output_tokens },
    latency_ms: Math.round(performance.now() - started),
  };
}
