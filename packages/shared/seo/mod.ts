/**
 * The SEO article pipeline (spec "SEO"): keyword research from DataForSEO, then plan, write and
 * analyze with the language model, then finalize (HTML, slug, JSON-LD). One file per stage:
 * research.ts, plan.ts, write.ts, analyze.ts (score.ts the rubric), render.ts (Finalize);
 * pipeline.ts runs the stages over an seo_articles row (checkpoints, heartbeat, sweeper);
 * steps.ts runs one stage for a sub-function; billing.ts prices the steps. No HTTP here.
 */
export { pipelineBaseCost, SEO_COSTS } from "./billing.ts";
export { dataForSeoFromEnv } from "./dataforseo.ts";
export { seoLlmFromEnv } from "./llm.ts";
export {
  type ArticleRow,
  articleView,
  createArticle,
  existingResearch,
  HEARTBEAT_MS,
  MAX_ATTEMPTS,
  type PipelineDeps,
  runArticle,
  type RunOutcome,
  STALE_AFTER_MS,
  sweepStale,
} from "./pipeline.ts";
export { acceptedArticle, articleOutcome, startArticle, type StartedArticle } from "./start.ts";
export { analyzeStep, planStep, researchStep, type StepDeps, writeStep } from "./steps.ts";
export { AnalyzeRequest, PipelineRequest, PlanRequest, ResearchRequest, WriteRequest } from "./schemas.ts";
