/**
 * The SEO stages' model (plan, write, analyze, fix): the platform's model layer (../llm/mod.ts)
 * and the model the stages ask. Each stage is one `llm.structured` call: a forced tool call
 * (submit_plan, submit_article, submit_review) validated with the stage's zod schema and retried
 * once with the problem quoted back; failures are `model_unavailable` / `model_bad_output`.
 *
 *   SEO_LLM_MODEL   optional, default vendor-sonnet-4-5 (SONNET; the layer maps it per provider)
 */
import { env } from "../env.ts";
import { type Llm, llmFromEnv, SONNET } from "../llm/mod.ts";

export interface SeoLlm {
  llm: Llm;
  model: string;
}

/** The stages' model from env(); throws model_unavailable (503) when none is configured. */
export function seoLlmFromEnv(): SeoLlm {
  const llm = llmFromEnv();
  llm.assertConfigured("SEO article generation");
  return { llm, model: env("SEO_LLM_MODEL") ?? SONNET };
}
