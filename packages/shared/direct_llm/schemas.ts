/**
 * Request schemas and answer shapes of the direct LLM actions (routes/llm.ts in the AI backend),
 * reused for their OpenAPI documents.
 */
import { z } from "zod";
import { aiConfigInput, IMAGE_CATEGORIES } from "../ai_services/config.ts";
import { exactlyOne } from "../ai_services/schemas.ts";
import { productInput } from "../ai_services/tasks.ts";
import { imageSource, oneImage } from "../images/source.ts";

const workspaceId = z.uuid().optional();

export const validateImageBody = imageSource.extend({
  product_name: z.string().trim().min(1).max(300).optional(),
  expected_material: z.string().trim().min(1).max(300).optional(),
  workspace_id: workspaceId,
  ai_config: aiConfigInput.optional(),
}).superRefine((v, ctx) => oneImage(v, ctx)).meta({ id: "LlmValidateImageRequest" });
export type ValidateImageBody = z.infer<typeof validateImageBody>;

export const imageVerdict = z.object({
  is_valid: z.boolean(),
  matches_expectation: z.boolean().nullable(),
  category: z.enum(IMAGE_CATEGORIES),
  confidence: z.number().min(0).max(1),
  reasoning: z.string().trim().min(1).max(4000),
});

export const enrichBody = z.strictObject({
  product: productInput.optional(),
  product_id: z.uuid().optional(),
  workspace_id: workspaceId,
  ai_config: aiConfigInput.optional(),
}).superRefine(exactlyOne("product", "product_id")).meta({ id: "LlmEnrichProductRequest" });
export type EnrichBody = z.infer<typeof enrichBody>;

const strings = z.array(z.string().trim().min(1).max(200)).max(30);
export const enrichment = z.object({
  description: z.string().trim().min(1).max(5000),
  materials: strings,
  colors: strings,
  finishes: strings,
  applications: strings,
  tags: strings,
  seo_title: z.string().trim().min(1).max(200),
  seo_description: z.string().trim().min(1).max(500),
});

export const llmTestBody = z.strictObject({
  prompt: z.string().trim().min(1).max(10_000).default("Reply with the single word OK."),
  model: z.string().trim().min(1).max(100).optional(),
  max_tokens: z.number().int().min(1).max(4096).default(256),
  workspace_id: workspaceId,
}).meta({ id: "LlmTestRequest" });
export type LlmTestBody = z.infer<typeof llmTestBody>;
