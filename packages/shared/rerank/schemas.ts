/**
 * ai-rerank request and response (spec "Re-rank"), with the bounds a public endpoint needs:
 *
 * | item                       | limit                                                   |
 * | -------------------------- | ------------------------------------------------------- |
 * | request body               | 1 MiB (413 beyond)                                      |
 * | results                    | 1 to 100 candidates, ids unique                         |
 * | query                      | 1 to 1,000 characters                                   |
 * | id / name / category       | 200 / 500 / 200 characters                              |
 * | description                | 5,000 characters (the model sees the first 500)         |
 * | maxResults                 | integer 1 to 100 (default: all)                         |
 * | model                      | vendor-sonnet-4-5 (default) or vendor-haiku-4-5         |
 */
import { z } from "@hono/zod-openapi";

export const MAX_RESULTS = 100;
export const MAX_BODY_BYTES = 1024 * 1024;
export const RERANK_MODELS = ["vendor-sonnet-4-5", "vendor-haiku-4-5"] as const;
export type RerankModel = (typeof RERANK_MODELS)[number];
export const DEFAULT_MODEL: RerankModel = "vendor-sonnet-4-5";

const score = z.number().finite();

export const SearchResult = z.looseObject({
  id: z.string().min(1).max(200),
  name: z.string().max(500),
  description: z.string().max(5000),
  category: z.string().max(200).optional(),
  relevanceScore: score,
  semanticScore: score.optional(),
  understandingScore: score.optional(),
  qualityMetrics: z.object({ precision: score, recall: score, mrr: score }).partial().optional(),
}).meta({ id: "SearchResult" });
export type SearchResult = z.infer<typeof SearchResult>;

export const RerankRequest = z.object({
  query: z.string().trim().min(1, "query must not be empty").max(1000),
  results: z.array(SearchResult).min(1, "results must hold at least one candidate").max(
    MAX_RESULTS,
    `at most ${MAX_RESULTS} results can be re-ranked at once`,
  ).refine((rs) => new Set(rs.map((r) => r.id)).size === rs.length, "result ids must be unique"),
  maxResults: z.number().int().min(1).max(MAX_RESULTS).optional(),
  includeExplanations: z.boolean().default(false),
  model: z.enum(RERANK_MODELS, {
    error: `model must be one of ${RERANK_MODELS.join(", ")}`,
  }).default(DEFAULT_MODEL),
}).meta({ id: "RerankRequest" });
export type RerankRequest = z.infer<typeof RerankRequest>;

export const RerankResponse = z.object({
  rerankedResults: z.array(SearchResult),
  explanations: z.record(z.string(), z.string()),
  processingTimeMs: z.number(),
  model: z.string(),
  cost: z.number().meta({ description: "USD, from the model's token usage" }),
  usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }),
  warnings: z.array(z.string()).meta({
    description: "What the model's first answer got wrong when its corrected second answer is used",
  }),
}).meta({ id: "RerankResponse" });
export type RerankResponse = z.infer<typeof RerankResponse>;
