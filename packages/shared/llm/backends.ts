/**
 * The two provider backends behind the layer, each on its official SDK: Anthropic's Messages API
 * (@anthropic-ai/sdk) and OpenAI's chat completions (`openai`, for OpenAI and any
 * OpenAI-compatible server). Both take the layer's request and give back one Reply; streaming
 * hands text deltas to `onText` as they arrive. Retries of transient failures (connection, 408,
 * 409, 429, 5xx) are the SDKs' own: one retry with their backoff, `retry-after` honoured.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { LlmProvider } from "./models.ts";
import { stopReasonOf, toChatMessages, toChatToolChoice, toChatTools, toolUseBlocks } from "./openai_wire.ts";
import type { LlmBlock, LlmMessageParam, LlmTool, Reply, StopReason, ToolChoice, Usage } from "./types.ts";

/** A model call may take this long before it fails (model_unavailable). */
export const CALL_TIMEOUT_MS = 120_000;
/** Transient failures are retried once by the SDK. */
export const MAX_RETRIES = 1;

export interface BackendRequest {
  model: string;
  system?: string;
  messages: LlmMessageParam[];
  maxTokens: number;
  tools?: readonly LlmTool[];
  toolChoice?: ToolChoice;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The SDKs' per-request options. */
function requestOptions(req: BackendRequest): { signal?: AbortSignal; timeout?: number } {
  return { signal: req.signal, ...(req.timeoutMs ? { timeout: req.timeoutMs } : {}) };
}

export type BackendReply = Omit<Reply, "cost_usd">;

export interface Backend {
  readonly provider: LlmProvider;
  create(req: BackendRequest): Promise<BackendReply>;
  stream(req: BackendRequest, onText: (delta: string) => void): Promise<BackendReply>;
}

export interface BackendOptions {
  apiKey: string;
  baseURL: string;
  timeoutMs?: number;
  maxRetries?: number;
  fetch?: typeof fetch;
}

function anthropicToolChoice(choice: ToolChoice): Anthropic.ToolChoice {
  if (choice === "auto" || choice === "none" || choice === "any") return { type: choice };
  return { type: "tool", name: choice.name };
}

function fromAnthropic(msg: Anthropic.Message): BackendReply {
  const content: LlmBlock[] = [];
  for (const b of msg.content) {
    if (b.type === "text") content.push({ type: "text", text: b.text });
    else if (b.type === "tool_use") {
      content.push({
        type: "tool_use",
        id: b.id,
        name: b.name,
        input: (b.input ?? {}) as Record<string, unknown>,
      });
    }
  }
  return {
    content,
    stopReason: (msg.stop_reason ?? "end_turn") as StopReason,
    usage: { input_tokens: msg.usage?.input_tokens ?? 0, output_tokens: msg.usage?.output_tokens ?? 0 },
    model: msg.model,
    problems: [],
  };
}

export class AnthropicBackend implements Backend {
  readonly provider = "anthropic" as const;
  readonly client: Anthropic;

  constructor(o: BackendOptions) {
    this.client = new Anthropic({
      apiKey: o.apiKey,
      baseURL: o.baseURL,
      maxRetries: o.maxRetries ?? MAX_RETRIES,
      timeout: o.timeoutMs ?? CALL_TIMEOUT_MS,
      ...(o.fetch ? { fetch: o.fetch } : {}),
    });
  }

  #params(req: BackendRequest): Anthropic.MessageCreateParamsNonStreaming {
    return {
      model: req.model,
      max_tokens: req.maxTokens,
      ...(req.system ? { system: req.system } : {}),
      messages: req.messages,
      ...(req.tools?.length
        ? {
          tools: req.tools as Anthropic.Tool[],
          ...(req.toolChoice ? { tool_choice: anthropicToolChoice(req.toolChoice) } : {}),
        }
        : {}),
    };
  }

  async create(req: BackendRequest): Promise<BackendReply> {
    return fromAnthropic(await this.client.messages.create(this.#params(req), requestOptions(req)));
  }

  async stream(req: BackendRequest, onText: (delta: string) => void): Promise<BackendReply> {
    const stream = this.client.messages.stream(this.#params(req), requestOptions(req));
    stream.on("text", (delta) => {
      if (delta) onText(delta);
    });
    return fromAnthropic(await stream.finalMessage());
  }
}

export class OpenAiBackend implements Backend {
  readonly provider = "openai" as const;
  readonly client: OpenAI;

  constructor(o: BackendOptions) {
    this.client = new OpenAI({
      apiKey: o.apiKey,
      baseURL: o.baseURL,
      maxRetries: o.maxRetries ?? MAX_RETRIES,
      timeout: o.timeoutMs ?? CALL_TIMEOUT_MS,
      ...(o.fetch ? { fetch: o.fetch } : {}),
    });
  }

  #params(req: BackendRequest) {
    return {
      model: req.model,
      max_completion_tokens: req.maxTokens,
      messages: toChatMessages(req.system, req.messages),
      ...(req.tools?.length
        ? {
          tools: toChatTools(req.tools),
          ...(req.toolChoice ? { tool_choice: toChatToolChoice(req.toolChoice) } : {}),
        }
        : {}),
    };
  }

  async create(req: BackendRequest): Promise<BackendReply> {
    const res = await this.client.chat.completions.create(
      { ...this.#params(req), stream: false },
      requestOptions(req),
    );
    const choice = res.choices[0];
    const content: LlmBlock[] = [];
    if (choice?.message?.content) content.push({ type: "text", text: choice.message.content });
    const calls = (choice?.message?.tool_calls ?? []).filter((c) => c.type === "function");
    const { blocks, problems } = toolUseBlocks(calls);
    content.push(...blocks);
    return {
      content,
      stopReason: calls.length ? "tool_use" : stopReasonOf(choice?.finish_reason),
      usage: {
        input_tokens: res.usage?.prompt_tokens ?? 0,
        output_tokens: res.usage?.completion_tokens ?? 0,
      },
      model: res.model ?? req.model,
      problems,
    };
  }

  async stream(req: BackendRequest, onText: (delta: string) => void): Promise<BackendReply> {
    const stream = await this.client.chat.completions.create(
      { ...this.#params(req), stream: true, stream_options: { include_usage: true } },
      requestOptions(req),
    );
    let text = "";
    let finish: string | null = null;
    let model = req.model;
    const usage: Usage = { input_tokens: 0, output_tokens: 0 };
    const calls: { id?: string; function: { name?: string; arguments: string } }[] = [];
    for await (const chunk of stream) {
      if (chunk.model) model = chunk.model;
      if (chunk.usage) {
        usage.input_tokens = chunk.usage.prompt_tokens ?? 0;
        usage.output_tokens = chunk.usage.completion_tokens ?? 0;
      }
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) {
        text += delta.content;
        onText(delta.content);
      }
      for (const tc of delta?.tool_calls ?? []) {
        const call = calls[tc.index] ??= { function: { arguments: "" } };
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.function.name = tc.function.name;
        if (tc.function?.arguments) call.function.arguments += tc.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    const content: LlmBlock[] = text ? [{ type: "text", text }] : [];
    const { blocks, problems } = toolUseBlocks(calls.filter(Boolean));
    content.push(...blocks);
    return {
      content,
      stopReason: blocks.length ? "tool_use" : stopReasonOf(finish),
      usage,
      model,
      problems,
    };
  }
}
