/**
 * Model ids in one place: the platform's names (the spec's `vendor-sonnet-4-5` and
 * `vendor-haiku-4-5`, plus the top tier the PDF pipeline's validation and high-accuracy profiles
 * use) and the provider model each one is sent as, per provider, with its price.
 *
 * | platform id         | used for                                           | anthropic           | openai       |
 * | ------------------- | -------------------------------------------------- | ------------------- | ------------ |
 * | `vendor-sonnet-4-5` | agent main/interior-designer, RAG, SEO, social, pipeline | `claude-sonnet-4-6` | `gpt-5`      |
 * | `vendor-haiku-4-5`  | demo agent, scraping, description writer, cheap profiles | `claude-haiku-4-5`  | `gpt-5-mini` |
 * | `vendor-opus-4-6`   | pipeline validation, HIGH_ACCURACY_CONFIG          | `claude-opus-4-6`   | `gpt-5`      |
 *
 * The spec's sonnet 4.5 is sent as its same-tier successor, claude-sonnet-4-6: Anthropic retires
 * claude-sonnet-4-5 on 2026-11-30 (the SDK's deprecated-models table), after which a faithful
 * mapping would fail every request.
 *
 * Any other name is a provider model id and is sent unchanged (e.g. `claude-sonnet-4-5-20250929`
 * to pin a model, or `qwen2.5:14b` on a local server). `LLM_MODEL_MAP` maps platform ids to the
 * models of an OpenAI-compatible server: `vendor-sonnet-4-5=qwen2.5:14b,vendor-haiku-4-5=qwen2.5:7b`.
 */

export type LlmProvider = "anthropic" | "openai";

export const SONNET = "vendor-sonnet-4-5";
export const HAIKU = "vendor-haiku-4-5";
export const OPUS = "vendor-opus-4-6";

/** The image generation model (OpenAI Images API) when IMAGE_MODEL does not name one. */
export const DEFAULT_IMAGE_MODEL = "gpt-image-1";

export type PlatformModel = typeof SONNET | typeof HAIKU | typeof OPUS;

export const PLATFORM_MODELS: Readonly<Record<PlatformModel, Readonly<Record<LlmProvider, string>>>> = {
  [SONNET]: { anthropic: "claude-sonnet-4-6", openai: "gpt-5" },
  [HAIKU]: { anthropic: "claude-haiku-4-5", openai: "gpt-5-mini" },
  [OPUS]: { anthropic: "claude-opus-4-6", openai: "gpt-5" },
};

/** A model family's list price in USD per million tokens; the first matching row applies. */
export interface ModelPrice {
  family: string;
  match: RegExp;
  input: number;
  output: number;
}

/** List prices (USD per million tokens) by model family, for cost estimates; unknown models have none. */
export const MODEL_PRICES: readonly ModelPrice[] = [
  { family: "Claude Opus 4.0/4.1", match: /^claude-opus-4(-[01])?(-\d{8})?$/, input: 15, output: 75 },
  { family: "Claude Opus", match: /^claude-opus/, input: 5, output: 25 },
  { family: "Claude Sonnet", match: /^claude-sonnet/, input: 3, output: 15 },
  { family: "Claude Haiku 3.5", match: /^claude-3-5-haiku/, input: 0.8, output: 4 },
  { family: "Claude Haiku", match: /^claude-haiku/, input: 1, output: 5 },
  { family: "Claude (other, priced as Sonnet)", match: /^claude-/, input: 3, output: 15 },
  { family: "GPT-4o mini", match: /^gpt-4o-mini/, input: 0.15, output: 0.6 },
  { family: "GPT-4o", match: /^gpt-4o/, input: 2.5, output: 10 },
  { family: "GPT-4.1 nano", match: /^gpt-4\.1-nano/, input: 0.1, output: 0.4 },
  { family: "GPT-4.1 mini", match: /^gpt-4\.1-mini/, input: 0.4, output: 1.6 },
  { family: "GPT-4.1", match: /^gpt-4\.1/, input: 2, output: 8 },
  { family: "GPT-5 nano", match: /^gpt-5(\.\d+)?-nano/, input: 0.05, output: 0.4 },
  { family: "GPT-5 mini", match: /^gpt-5(\.\d+)?-mini/, input: 0.25, output: 2 },
  { family: "GPT-5", match: /^gpt-5/, input: 1.25, output: 10 },
  { family: "o4-mini", match: /^o4-mini/, input: 1.1, output: 4.4 },
  { family: "o3", match: /^o3/, input: 2, output: 8 },
  { family: "text-embedding-3-small", match: /^text-embedding-3-small/, input: 0.02, output: 0 },
  { family: "text-embedding-3-large", match: /^text-embedding-3-large/, input: 0.13, output: 0 },
  { family: "text-embedding-ada-002", match: /^text-embedding-ada-002/, input: 0.1, output: 0 },
];

export function priceOf(model: string): ModelPrice | null {
  return MODEL_PRICES.find((p) => p.match.test(model)) ?? null;
}

export function isPlatformModel(name: string): name is PlatformModel {
  return Object.hasOwn(PLATFORM_MODELS, name);
}

/** Parses LLM_MODEL_MAP (`id=model,id=model`); an entry without `=` is refused. */
export function parseModelMap(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (value ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
    const at = part.indexOf("=");
    if (at <= 0 || at === part.length - 1) {
      throw new Error(`LLM_MODEL_MAP: "${part}" is not <platform id>=<model>`);
    }
    out[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return out;
}

/** The provider model id a configured name is sent as. */
export function providerModel(name: string, provider: LlmProvider, map: Record<string, string> = {}): string {
  if (Object.hasOwn(map, name)) return map[name];
  return isPlatformModel(name) ? PLATFORM_MODELS[name][provider] : name;
}

/** Estimated USD cost of a call, or null for a model without a listed price. */
export function costUsd(
  model: string,
  usage: { input_tokens: number; output_tokens: number },
): number | null {
  const price = priceOf(model);
  if (!price) return null;
  return Math.round(usage.input_tokens * price.input + usage.output_tokens * price.output) / 1e6;
}
