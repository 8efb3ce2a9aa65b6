/**
 * Model calls of the AI services (images, ai_*, direct LLM): Anthropic's Messages API through the
 * official SDK (the pipeline's client, pipeline/llm.ts, keyed from the backend's secrets), one
 * JSON object per answer validated with the caller's zod schema.
 *
 * Malformed answers: a reply that is not JSON, or does not match the schema, is retried ONCE with
 * the problem quoted back to the model; a second malformed reply is a 502
 * `{code: "llm_bad_reply"}` naming what was asked and what was wrong. A malformed answer is never
 * passed on. A provider failure (HTTP error, timeout) is a 502 `{code: "model_unavailable"}`
 * with the provider's status; a missing key a 503 `llm_not_configured`.
 *
 * Every call is recorded in public.ai_service_calls (action, task type, model, purpose, tokens,
 * latency, outcome, attempt, escalation), which ai_escalation_stats reads.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { z } from "zod";
import { caller, serviceDb } from "@shared/auth/context.ts";
import { DomainError } from "@shared/errors.ts";
import type { Ctx } from "../env.ts";
import { callJson, type ModelCall, pipelineLlm } from "../pipeline/llm.ts";
import { type AiConfig, type AiConfigInput, resolveAiConfig } from "../pipeline/config.ts";

export type EscalationReason = "low_confidence" | "disagreement";

export interface AskOptions {
  model: string;
  system: string;
  content: Anthropic.ContentBlockParam[];
  maxTokens: number;
  temperature?: number;
  /** What the call is for (recorded and quoted in errors), e.g. "Image analysis". */
  purpose: string;
  /** Task type recorded with the call (ai_is_critical's task types). */
  taskType: string;
  /** Set when this call is an escalation (a validation or tie-breaking model). */
  escalation?: EscalationReason;
}

/** The backend's secrets (ANTHROPIC_API_KEY, CLIP_API_KEY ...): the local platform's env, else the process env. */
export function settings(c: Ctx): (name: string) => string | undefined {
  return c.get("cfg").secrets ?? ((n) => Deno.env.get(n));
}

/** The ai_config of a request: a profile and/or fields over DEFAULT_AI_CONFIG (400 when invalid). */
export function aiConfigOf(input: AiConfigInput | undefined): AiConfig {
  try {
    return resolveAiConfig(input);
  } catch (err) {
    throw DomainError.invalid(`ai_config: ${(err as Error).message}`, undefined, "invalid_ai_config");
  }
}

/** The model calls of one request, recorded against its caller, action and workspace. */
export class ModelRun {
  #llm: Anthropic | null = null;
  readonly calls: (ModelCall & { attempt: number; escalated: boolean })[] = [];

  constructor(
    private readonly c: Ctx,
    readonly action: string,
    readonly workspaceId: string | null = null,
  ) {}

  private client(): Anthropic {
    return this.#llm ??= pipelineLlm(settings(this.c));
  }

  private async record(call: ModelCall, opts: AskOptions, attempt: number): Promise<void> {
    this.calls.push({ ...call, attempt, escalated: !!opts.escalation });
    const who = caller(this.c);
    const { error } = await serviceDb(this.c).from("ai_service_calls").insert({
      user_id: who.kind === "user" ? who.userId : null,
      workspace_id: this.workspaceId,
      action: this.action,
      task_type: opts.taskType,
      model: call.model,
      purpose: call.purpose,
      attempt,
      ok: call.ok,
      error: call.error?.slice(0, 1000) ?? null,
      input_tokens: call.input_tokens,
      output_tokens: call.output_tokens,
      latency_ms: call.latency_ms,
      escalated: !!opts.escalation,
      escalation_reason: opts.escalation ?? null,
      request_id: this.c.var.requestId?.slice(0, 200) ?? null,
    });
    if (error) console.error(`ai-services: recording a model call of ${this.action} failed`, error.message);
  }

  /** One JSON answer matching `schema`; a malformed answer is retried once, then a 502. */
  async ask<S extends z.ZodType>(opts: AskOptions, schema: S): Promise<z.infer<S>> {
    let problem = "";
    for (let attempt = 1; attempt <= 2; attempt++) {
      const content: Anthropic.ContentBlockParam[] = attempt === 1 ? opts.content : [
        ...opts.content,
        {
          type: "text",
          text:
            `Your previous reply was rejected: ${problem}. Answer again with only the JSON object described.`,
        },
      ];
      try {
        return await callJson(
          this.client(),
          {
            model: opts.model,
            temperature: opts.temperature ?? 0.1,
            maxTokens: opts.maxTokens,
            system: opts.system,
            content,
          },
          schema,
          opts.purpose,
          (call) => this.record(call, opts, attempt),
        );
      } catch (err) {
        if (err instanceof DomainError && err.code === "llm_bad_reply") {
          problem = err.message;
          if (attempt === 2) {
            throw new DomainError(
              "upstream",
              "llm_bad_reply",
              `${opts.purpose}: the model (${opts.model}) answered malformed output twice; last problem: ${problem}`,
              { model: opts.model, attempts: 2 },
            );
          }
          continue;
        }
        throw upstream(err, opts);
      }
    }
    throw new Error("unreachable");
  }

  /** One plain-text answer (anthropic_test), with its usage. */
  async text(
    opts: AskOptions,
  ): Promise<{ text: string; usage: Anthropic.Usage; stop_reason: string | null }> {
    const started = performance.now();
    let msg: Anthropic.Message;
    try {
      msg = await this.client().messages.create({
        model: opts.model,
        max_tokens: opts.maxTokens,
        system: opts.system,
        messages: [{ role: "user", content: opts.content }],
      });
    } catch (err) {
      await this.record(
        {
          model: opts.model,
          purpose: opts.purpose,
          input_tokens: null,
          output_tokens: null,
          latency_ms: Math.round(performance.now() - started),
          ok: false,
          error: (err as Error).message,
        },
        opts,
        1,
      );
      throw upstream(err, opts);
    }
    await this.record(
      {
        model: opts.model,
        purpose: opts.purpose,
        input_tokens: msg.usage.input_tokens,
        output_tokens: msg.usage.output_tokens,
        latency_ms: Math.round(performance.now() - started),
        ok: true,
        error: null,
      },
      opts,
      1,
    );
    const text = msg.content.filter((b) => b.type === "text").map((b) => (b as Anthropic.TextBlock).text)
      .join("");
    return { text, usage: msg.usage, stop_reason: msg.stop_reason };
  }
}

/** A provider failure as a 502 naming the call (a DomainError, e.g. not configured, passes as it is). */
function upstream(err: unknown, opts: AskOptions): Error {
  if (err instanceof DomainError) return err;
  const status = (err as { status?: unknown }).status;
  return new DomainError(
    "upstream",
    "model_unavailable",
    `${opts.purpose}: the model provider failed${typeof status === "number" ? ` (HTTP ${status})` : ""}: ${
      (err as Error).message.slice(0, 300)
    }`,
    { model: opts.model, provider_status: typeof status === "number" ? status : null },
  );
}
