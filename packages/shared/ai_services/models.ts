/**
 * Model calls of the AI services (images, ai_*, direct LLM) and their recording: a `ModelRun` is
 * one request's calls, made through the platform's model layer (packages/shared/llm: the
 * provider, key and model map come from the backend's settings) and recorded against the
 * request's caller, action and workspace.
 *
 * - `ask(opts, schema)`: one answer matching a zod schema, a forced call of the tool `opts.tool`
 *   (llm.structured). A malformed answer (no tool call, input failing the schema or
 *   `opts.check`) is sent back once with the problem quoted; a second is a 502
 *   `model_bad_output`. A malformed answer is never passed on.
 * - `text(opts)`: one plain-text answer (llm.text).
 *
 * Failures are the layer's two codes: `model_unavailable` (503 when no provider is configured,
 * 502 when the provider fails or cannot be reached) and `model_bad_output` (502). The billing
 * middleware refunds every non-2xx answer once.
 *
 * Every call attempt is recorded in public.ai_service_calls (action, task type, provider, provider
 * model, purpose, attempt, outcome, tokens, estimated USD cost, latency, escalation), which
 * ai_escalation_stats reads. The HTTP layer builds a run from the request (its caller, request id
 * and settings); nothing here sees the request.
 */
import type { z } from "zod";
import type { SupabaseClient } from "@supabase/supabase-js";
import type { CallRecord, Llm, LlmContent } from "../llm/mod.ts";

export type EscalationReason = "low_confidence" | "disagreement";

export interface AskOptions {
  /** A platform id (SONNET, HAIKU, OPUS) or a provider model id (ai_config). */
  model: string;
  system: string;
  content: LlmContent[];
  maxTokens: number;
  /** What the call is for (recorded and quoted in errors), e.g. "Image analysis". */
  purpose: string;
  /** Task type recorded with the call (ai_is_critical's task types). */
  taskType: string;
  /** Set when this call is an escalation (a validation or tie-breaking model). */
  escalation?: EscalationReason;
}

export interface StructuredAsk<T> extends AskOptions {
  /** The tool the model must call with its answer. */
  tool: string;
  /** What the tool is for (the model reads it). */
  description: string;
  /** A domain rule over the parsed answer: a problem string makes it malformed. */
  check?: (value: T) => string | null;
}

/** One recorded call of a run. */
export type RunCall = CallRecord & { escalated: boolean };

/** Who a run's calls are made for and where they are recorded. */
export interface ModelRunDeps {
  /** The model layer (keyed from the backend's settings); built lazily. */
  llm: () => Llm;
  /** The service client: ai_service_calls rows are written by the system. */
  service: SupabaseClient;
  /** The calling user; null for the service role. */
  userId: string | null;
  /** The request id the calls are recorded with. */
  requestId: string | null;
}

/** The model calls of one request, recorded against its caller, action and workspace. */
export class ModelRun {
  #llm: Llm | null = null;
  readonly calls: RunCall[] = [];

  constructor(
    private readonly deps: ModelRunDeps,
    readonly action: string,
    readonly workspaceId: string | null = null,
  ) {}

  get llm(): Llm {
    return this.#llm ??= this.deps.llm();
  }

  private async record(call: CallRecord, opts: AskOptions): Promise<void> {
    this.calls.push({ ...call, escalated: !!opts.escalation });
    const { error } = await this.deps.service.from("ai_service_calls").insert({
      user_id: this.deps.userId,
      workspace_id: this.workspaceId,
      action: this.action,
      task_type: opts.taskType,
      provider: call.provider,
      model: call.model,
      purpose: call.purpose,
      attempt: call.attempt,
      ok: call.ok,
      error: call.error?.slice(0, 1000) ?? null,
      input_tokens: call.input_tokens,
      output_tokens: call.output_tokens,
      cost_usd: call.cost_usd,
      latency_ms: call.latency_ms,
      escalated: !!opts.escalation,
      escalation_reason: opts.escalation ?? null,
      request_id: this.deps.requestId?.slice(0, 200) ?? null,
    });
    if (error) console.error(`ai-services: recording a model call of ${this.action} failed`, error.message);
  }

  /** One answer matching `schema` (a forced tool call); malformed twice is model_bad_output. */
  async ask<S extends z.ZodType>(opts: StructuredAsk<z.infer<S>>, schema: S): Promise<z.infer<S>> {
    const r = await this.llm.structured(schema, {
      model: opts.model,
      system: opts.system,
      prompt: opts.content,
      maxTokens: opts.maxTokens,
      purpose: opts.purpose,
      tool: opts.tool,
      description: opts.description,
      check: opts.check,
      onCall: (call) => this.record(call, opts),
    });
    return r.value;
  }

  /** One plain-text answer (anthropic_test), with its usage. */
  async text(opts: AskOptions) {
    const r = await this.llm.text({
      model: opts.model,
      system: opts.system,
      prompt: opts.content,
      maxTokens: opts.maxTokens,
      purpose: opts.purpose,
      onCall: (call) => this.record(call, opts),
    });
    return { text: r.text, usage: r.usage, stop_reason: r.stopReason, model: r.model };
  }
}
