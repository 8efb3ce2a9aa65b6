/** Search re-ranking (ai-rerank): request bounds and schemas, the model call and its validation. */
export * from "./schemas.ts";
export {
  buildPrompt,
  costOf,
  MODEL_PRICES_USD_PER_MTOK,
  permutationProblem,
  readProposal,
  rerank,
} from "./rerank.ts";
