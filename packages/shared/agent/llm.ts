/**
 * The language model behind agent-chat: Anthropic's Messages API through the official SDK,
 * configured only from the function environment (env()):
 *
 *   ANTHROPIC_API_KEY    required; without it agent-chat answers 503 llm_not_configured
 *   ANTHROPIC_BASE_URL   optional (the local platform points it at the provider sandbox)
 *
 * Both are passed to the SDK explicitly, so it never falls back to the process environment or to
 * credential files of its own.
 */
import Anthropic from "@anthropic-ai/sdk";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";

const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** One model call may take this long before it fails the turn (and refunds it). */
const LLM_TIMEOUT_MS = 120_000;

export function anthropicFromEnv(): Anthropic {
  const apiKey = env("ANTHROPIC_API_KEY");
  if (!apiKey) {
    throw new DomainError(
      "unavailable",
      "llm_not_configured",
      "The language model is not configured: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a stand-in)",
    );
  }
  return new Anthropic({
    apiKey,
    baseURL: env("ANTHROPIC_BASE_URL") ?? DEFAULT_ANTHROPIC_BASE_URL,
    maxRetries: 1,
    timeout: LLM_TIMEOUT_MS,
  });
}

/** A model failure as the stream's error chunk says it, without provider internals. */
export function describeLlmError(err: unknown): { code: string; message: string } {
  if (err instanceof Anthropic.APIError && typeof err.status === "number") {
    return { code: "llm_error", message: `The language model answered HTTP ${err.status}` };
  }
  if (err instanceof Anthropic.APIConnectionError) {
    return { code: "llm_unreachable", message: "The language model could not be reached" };
  }
  // Our own refusals mid-turn (e.g. a client-made conversation id taken by someone else since
  // the turn was prepared) say what they are.
  if (err instanceof DomainError && err.kind === "not_found") return { code: err.code, message: err.message };
  return { code: "agent_failed", message: "The agent failed; the request was refunded" };
}
