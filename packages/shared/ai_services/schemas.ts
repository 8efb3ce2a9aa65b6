/**
 * Request schemas of the AI services (routes/ai_services.ts in the AI backend), reused for their
 * OpenAPI documents.
 */
import { z } from "zod";
import { aiConfigInput } from "./config.ts";
import { productInput, taskTypeSchema } from "./tasks.ts";

const workspaceId = z.uuid().optional();
const aiConfig = aiConfigInput.optional();

/** A refinement: exactly one of two fields. */
export const exactlyOne = (a: string, b: string) => (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
  if ((v[a] === undefined) === (v[b] === undefined)) {
    ctx.addIssue({ code: "custom", message: `exactly one of ${a} or ${b} is required` });
  }
};

export const classifyBody = z.strictObject({
  content: z.string().trim().min(1).max(500_000).optional(),
  document_id: z.uuid().optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).superRefine(exactlyOne("content", "document_id")).meta({ id: "ClassifyDocumentRequest" });
export type ClassifyBody = z.infer<typeof classifyBody>;

export const classifyBatchBody = z.strictObject({
  documents: z.array(z.strictObject({
    id: z.string().trim().min(1).max(200).optional(),
    content: z.string().trim().min(1).max(500_000),
  })).min(1).max(20),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).meta({ id: "ClassifyBatchRequest" });
export type ClassifyBatchBody = z.infer<typeof classifyBatchBody>;

const pageSchema = z.strictObject({
  page_number: z.number().int().min(1).max(100_000),
  text: z.string().max(200_000),
});
export const boundariesBody = z.strictObject({
  pages: z.array(pageSchema).min(1).max(2000)
    .refine((p) => new Set(p.map((x) => x.page_number)).size === p.length, "page numbers must not repeat")
    .optional(),
  pdf_base64: z.string().min(1).optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).superRefine(exactlyOne("pages", "pdf_base64")).meta({ id: "DetectBoundariesRequest" });
export type BoundariesBody = z.infer<typeof boundariesBody>;

export const groupBody = z.strictObject({
  items: z.array(z.strictObject({
    id: z.string().trim().min(1).max(200),
    page_number: z.number().int().min(1).optional(),
    text: z.string().max(20_000).optional(),
  })).min(1).max(1000),
  products: z.array(
    z.strictObject({
      name: z.string().trim().min(1).max(300),
      page_start: z.number().int().min(1),
      page_end: z.number().int().min(1),
    }).refine((p) => p.page_end >= p.page_start, "page_end must not be before page_start"),
  ).max(1000).optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).meta({ id: "GroupByProductRequest" });
export type GroupBody = z.infer<typeof groupBody>;

export const validateBody = z.strictObject({
  product: productInput.optional(),
  product_id: z.uuid().optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).superRefine(exactlyOne("product", "product_id")).meta({ id: "ValidateProductRequest" });
export type ValidateBody = z.infer<typeof validateBody>;

export const consensusBody = z.strictObject({
  task_type: taskTypeSchema,
  content: z.string().trim().min(1).max(100_000),
  question: z.string().trim().min(1).max(2000).optional(),
  models: z.array(z.string().trim().min(1).max(100)).min(2).max(5).optional(),
  agreement_threshold: z.number().min(0).max(1).optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).meta({ id: "ConsensusValidateRequest" });
export type ConsensusBody = z.infer<typeof consensusBody>;

export const statsQuery = z.object({
  workspace_id: z.uuid().optional(),
  days: z.coerce.number().int().min(1).max(365).default(30),
});
export type StatsQuery = z.infer<typeof statsQuery>;
