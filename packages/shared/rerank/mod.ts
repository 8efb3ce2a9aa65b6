/** Search re-ranking (ai-rerank): request bounds and schemas, the model call and its validation. */
export * from "./schemas.ts";
export { buildPrompt, permutationProblem, rerank } from "./rerank.ts";
