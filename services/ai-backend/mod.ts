/**
 * The AI backend's public surface: what hosts it (main.ts, stack/ai-backend/part.ts,
 * scripts/gateway_payloads.ts) and what tests and benches may use. Everything else under
 * services/ai-backend/ is internal to the backend: its routes are reached over HTTP, its domain code
 * lives in packages/shared/.
 *
 * - the app and its job runner: createAiBackendApp, jobRunnerOf, JobRunner;
 * - billing as the backend applies it: applyBilling, billableRoutes, EXTRA_BILLED_ROUTES;
 * - the PDF pipeline's entry and its pure parts: runJob, STAGES, pipelineOptionsSchema,
 *   keptCategories, planChunks, pageSimilarity, PROMPT_DEFAULTS.
 */
export { type BackendConfig, createAiBackendApp, jobRunnerOf } from "./app.ts";
export { applyBilling, billableRoutes, EXTRA_BILLED_ROUTES } from "./billing.ts";
export { JobRunner } from "./pipeline/runner.ts";
export { runJob } from "./pipeline/run.ts";
export { PROMPT_DEFAULTS } from "./pipeline/prompts.ts";
export { planChunks } from "./pipeline/create_chunks.ts";
export { pageSimilarity } from "./pipeline/create_relationships.ts";
export { keptCategories, pipelineOptionsSchema, STAGES } from "./pipeline/config.ts";
