/**
 * The model layer: the one client factory, model ids, structured/text/streamed calls, the two
 * error codes and per-call accounting. Every feature that calls a language model uses it
 * (client.ts says how each call behaves, errors.ts the codes, models.ts the ids and prices).
 *
 * Configuration (the function environment, or the AI backend's settings):
 *
 * | variable            | meaning                                                                    |
 * | ------------------- | -------------------------------------------------------------------------- |
 * | `LLM_PROVIDER`      | `anthropic` or `openai` (any OpenAI-compatible server). Default: `anthropic` when `ANTHROPIC_API_KEY` is set, else `openai` when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is |
 * | `ANTHROPIC_API_KEY` | Anthropic's key; `ANTHROPIC_BASE_URL` its origin (default https://api.anthropic.com) |
 * | `OPENAI_API_KEY`    | the OpenAI-compatible server's key (a local server needs none)           |
 * | `OPENAI_BASE_URL`   | its API base including `/v1` (default https://api.openai.com/v1), e.g. http://127.0.0.1:11434/v1 for Ollama |
 * | `LLM_MODEL_MAP`     | platform id -> model of that server: `vendor-sonnet-4-5=qwen2.5:14b,vendor-haiku-4-5=qwen2.5:7b` |
 *
 * With none of them every model call answers 503 `model_unavailable`; the local platform points
 * them at the provider sandbox's model stand-ins (stack/sandbox/providers/model_brain.ts).
 */
import { env } from "../env.ts";
import { AnthropicBackend, type Backend, OpenAiBackend } from "./backends.ts";
import { Llm } from "./client.ts";
import { type LlmProvider, parseModelMap } from "./models.ts";
import type { CallRecorder } from "./types.ts";

export { Llm, toolInputSchema } from "./client.ts";
export { isModelError, MODEL_BAD_OUTPUT, MODEL_UNAVAILABLE } from "./errors.ts";
export {
  costUsd,
  DEFAULT_IMAGE_MODEL,
  HAIKU,
  OPUS,
  PLATFORM_MODELS,
  providerModel,
  SONNET,
} from "./models.ts";
export type * from "./types.ts";

export type Settings = (name: string) => string | undefined;

const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/** The provider the settings choose, or null when none is configured. */
export function chosenProvider(get: Settings): LlmProvider | null {
  const explicit = get("LLM_PROVIDER")?.trim().toLowerCase();
  if (explicit) {
    if (explicit !== "anthropic" && explicit !== "openai") {
      throw new Error(`LLM_PROVIDER must be anthropic or openai, not "${explicit}"`);
    }
    return explicit;
  }
  if (get("ANTHROPIC_API_KEY")) return "anthropic";
  if (get("OPENAI_API_KEY") || get("OPENAI_BASE_URL")) return "openai";
  return null;
}

function backendFrom(get: Settings, fetchImpl?: typeof fetch): Backend | null {
  const provider = chosenProvider(get);
  if (provider === "anthropic") {
    const apiKey = get("ANTHROPIC_API_KEY");
    if (!apiKey) return null;
    return new AnthropicBackend({
      apiKey,
      baseURL: get("ANTHROPIC_BASE_URL") ?? DEFAULT_ANTHROPIC_BASE_URL,
      fetch: fetchImpl,
    });
  }
  if (provider === "openai") {
    const baseURL = get("OPENAI_BASE_URL") ?? DEFAULT_OPENAI_BASE_URL;
    const apiKey = get("OPENAI_API_KEY") ?? (baseURL === DEFAULT_OPENAI_BASE_URL ? undefined : "no-key");
    if (!apiKey) return null;
    return new OpenAiBackend({ apiKey, baseURL, fetch: fetchImpl });
  }
  return null;
}

export interface LlmFromSettingsOptions {
  record?: CallRecorder;
  /** For tests and benches: the fetch the SDK uses. */
  fetch?: typeof fetch;
}

/** The one client factory: the provider, key, origin and model map from `get` (default env()). */
export function llmFromEnv(get: Settings = env, o: LlmFromSettingsOptions = {}): Llm {
  return new Llm({
    backend: backendFrom(get, o.fetch),
    modelMap: parseModelMap(get("LLM_MODEL_MAP")),
    record: o.record,
  });
}
