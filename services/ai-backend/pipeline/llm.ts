/**
 * The pipeline's model calls: Anthropic's Messages API through the official SDK (as
 * packages/shared/agent/llm.ts), keyed from the backend's secrets. Every call asks for one JSON
 * object and validates it with the stage's zod schema; a reply that is not that object fails
 * the stage (and the job says why) rather than being guessed at.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { z } from "zod";
import { DomainError } from "@shared/errors.ts";

export type Secrets = (name: string) => string | undefined;

export function pipelineLlm(secrets: Secrets): Anthropic {
  const apiKey = secrets("ANTHROPIC_API_KEY");
  if (!apiKey) {
    throw new DomainError(
      "unavailable",
      "llm_not_configured",
      "The PDF pipeline's language model is not configured: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a stand-in)",
    );
  }
  return new Anthropic({
    apiKey,
    baseURL: secrets("ANTHROPIC_BASE_URL") ?? "https://api.anthropic.com",
    maxRetries: 0,
    timeout: 120_000,
  });
}

export interface JsonCall {
  model: string;
  /**
   * The ai_config temperature of the call. The Messages API refuses sampling parameters from
   * version 2026-10-21 on (the SDK in use no longer sends them), so it is recorded, not sent.
   */
  temperature: number;
  maxTokens: number;
  system: string;
  content: Anthropic.ContentBlockParam[];
}

/** The first {...} object in a reply (models sometimes wrap JSON in prose or a code fence). */
function firstJsonObject(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("no JSON object in the reply");
  return JSON.parse(text.slice(start, end + 1));
}

/** One model call as recorded for the job's AI tracking. */
export interface ModelCall {
  model: string;
  purpose: string;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number;
  ok: boolean;
  error: string | null;
}

export async function callJson<T extends z.ZodType>(
  llm: Anthropic,
  call: JsonCall,
  schema: T,
  what: string,
  track: (c: ModelCall) => Promise<void> = () => Promise.resolve(),
): Promise<z.infer<T>> {
  const started = performance.now();
  const record = (
    ok: boolean,
    error: string | null,
    usage?: { input_tokens: number; output_tokens: number },
  ) =>
    track({
      model: call.model,
      purpose: what,
      input_tokens: usage?.input_tokens ?? null,
      output_tokens: usage?.output_tokens ?? null,
      latency_ms: Math.round(performance.now() - started),
      ok,
      error,
    });
  let msg: Anthropic.Message;
  try {
    msg = await llm.messages.create({
      model: call.model,
      max_tokens: call.maxTokens,
      system: call.system,
      messages: [{ role: "user", content: call.content }],
    });
  } catch (err) {
    await record(false, (err as Error).message);
    throw err;
  }
  const text = msg.content.filter((b) => b.type === "text").map((b) => (b as Anthropic.TextBlock).text)
    .join("");
  let parsed: unknown;
  try {
    parsed = firstJsonObject(text);
  } catch (err) {
    await record(false, `not JSON: ${(err as Error).message}`, msg.usage);
    throw new DomainError(
      "upstream",
      "llm_bad_reply",
      `${what}: the model's reply was not JSON (${(err as Error).message})`,
    );
  }
  const out = schema.safeParse(parsed);
  await record(out.success, out.success ? null : "reply did not match the schema", msg.usage);
  if (!out.success) {
    throw new DomainError(
      "upstream",
      "llm_bad_reply",
      `${what}: the model's reply did not match (${out.error.issues[0]?.message})`,
    );
  }
  return out.data;
}
