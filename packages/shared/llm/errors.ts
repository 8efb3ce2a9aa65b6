/**
 * The model layer's two errors. Every feature that calls a model answers one of these codes:
 *
 * | code                | status | when                                                                      |
 * | ------------------- | ------ | ------------------------------------------------------------------------- |
 * | `model_unavailable` | 503    | no provider is configured (`details.reason: "not_configured"`)            |
 * | `model_unavailable` | 502    | the provider could not be reached, timed out or answered an HTTP error     |
 * | `model_bad_output`  | 502    | the answer was unusable twice (no forced tool call, schema or check failed) |
 *
 * `details` carries `{provider, model, purpose}` and, from the provider, `provider_status` and
 * `provider_message` (the provider's own error text; never a key).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { DomainError } from "../errors.ts";

export const MODEL_UNAVAILABLE = "model_unavailable";
export const MODEL_BAD_OUTPUT = "model_bad_output";

export interface ModelErrorDetails {
  provider: string;
  model: string;
  purpose: string;
  provider_status?: number | null;
  provider_message?: string;
  reason?: string;
  attempts?: number;
  problem?: string;
}

/** True for the layer's errors (either code). */
export function isModelError(err: unknown): err is DomainError {
  return err instanceof DomainError && (err.code === MODEL_UNAVAILABLE || err.code === MODEL_BAD_OUTPUT);
}

export function notConfigured(purpose: string, hint: string): DomainError {
  return new DomainError(
    "unavailable",
    MODEL_UNAVAILABLE,
    `${purpose}: the language model is not configured (${hint})`,
    { provider: "none", model: "", purpose, reason: "not_configured" } satisfies ModelErrorDetails,
  );
}

export function badOutput(d: ModelErrorDetails & { problem: string; attempts: number }): DomainError {
  return new DomainError(
    "upstream",
    MODEL_BAD_OUTPUT,
    `${d.purpose}: the model's answer was unusable ${d.attempts === 1 ? "" : `${d.attempts} times `}(${
      d.problem.slice(0, 500)
    })`,
    d,
  );
}

/** A provider failure (HTTP error, timeout, connection) as model_unavailable; aborts pass through. */
export function providerFailure(err: unknown, d: ModelErrorDetails): Error {
  if (err instanceof DomainError) return err;
  if (err instanceof Anthropic.APIUserAbortError || err instanceof OpenAI.APIUserAbortError) return err;
  if (err instanceof Error && err.name === "AbortError") return err;
  const status = (err as { status?: unknown }).status;
  const providerStatus = typeof status === "number" ? status : null;
  const message = providerMessage(err);
  return new DomainError(
    "upstream",
    MODEL_UNAVAILABLE,
    `${d.purpose}: the model provider ${
      providerStatus === null ? "could not be reached" : `answered HTTP ${providerStatus}`
    }`,
    { ...d, provider_status: providerStatus, provider_message: message } satisfies ModelErrorDetails,
  );
}

/** The provider's own error message (its JSON error.message when there is one). */
function providerMessage(err: unknown): string {
  const e = err as { error?: { error?: { message?: unknown }; message?: unknown }; message?: unknown };
  const inner = e?.error?.error?.message ?? e?.error?.message;
  const text = typeof inner === "string" ? inner : typeof e?.message === "string" ? e.message : String(err);
  return text.slice(0, 500);
}
