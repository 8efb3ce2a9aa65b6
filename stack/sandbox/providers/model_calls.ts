/**
 * The model calls the model stand-ins answered (Anthropic's Messages API, OpenAI's chat
 * completions and embeddings), kept in a provider-neutral shape for the sandbox page's "Model
 * calls" viewer (model_viewer.ts) and GET /_models/calls: the system prompt, the messages, the
 * tools offered and the forced one, the reply, the tokens, a cost estimate and where the answer
 * came from (`rule`: "scripted", "scripted:malformed", "scripted:error", "injected" for
 * failNext, or the sandbox model's rule): every answer here is the sandbox's, never a real model's.
 */
import { priceOf } from "../../../packages/shared/llm/models.ts";
import type { BrainMessage, BrainRequest, BrainTool } from "./model_brain.ts";

export interface ModelCall {
  /** The id of the request's capture (ids increase across the sandbox). */
  id: number;
  provider: string;
  kind: "chat" | "embeddings";
  model: string;
  /** ISO 8601. */
  time: string;
  stream: boolean;
  system: string;
  messages: BrainMessage[];
  tools: BrainTool[];
  /** auto, none, any (a tool must be called) or tool (the forced one). */
  toolChoice: string;
  /** The tool the request forces, if any. */
  forcedTool: string | null;
  /** The answer (null when it was an error). */
  reply: { text?: string; toolUse?: { name: string; input: Record<string, unknown> }[] } | null;
  /** The provider's stop_reason / finish_reason. */
  finish: string | null;
  error: { status: number; message: string } | null;
  inputTokens: number;
  outputTokens: number;
  /** Where the answer came from (see the module doc). */
  rule: string;
  /** Embeddings: how many inputs and the dimensions of each vector. */
  embeddings?: { inputs: number; dimensions: number };
}

/** A model call with its cost estimate, as GET /_models/calls answers. */
export type PricedCall = ModelCall & { cost: CostEstimate | null };

const MAX_CALLS = 500;

/** The calls of one stand-in, oldest first, bounded. */
export class ModelCallLog {
  readonly #calls: ModelCall[] = [];

  add(call: ModelCall): ModelCall {
    this.#calls.push(call);
    if (this.#calls.length > MAX_CALLS) this.#calls.shift();
    return call;
  }

  all(): ModelCall[] {
    return [...this.#calls];
  }

  clear(): void {
    this.#calls.length = 0;
  }
}

/** The fields of a ModelCall that describe the request. */
export function requestFields(
  req: BrainRequest,
): Pick<ModelCall, "model" | "system" | "messages" | "tools" | "toolChoice" | "forcedTool"> {
  const c = req.toolChoice;
  const forced = c.type === "tool" ? c.name : c.type === "any" ? req.tools[0]?.name ?? null : null;
  return {
    model: req.model,
    system: req.system,
    messages: req.messages,
    tools: req.tools,
    toolChoice: c.type,
    forcedTool: forced,
  };
}

export interface CostEstimate {
  /** US dollars, an estimate from the model layer's list prices (packages/shared/llm/models.ts). */
  usd: number;
  family: string;
  perMillion: { input: number; output: number };
}

export function costEstimate(model: string, inputTokens: number, outputTokens: number): CostEstimate | null {
  const price = priceOf(model);
  if (!price) return null;
  return {
    usd: (inputTokens * price.input + outputTokens * price.output) / 1_000_000,
    family: price.family,
    perMillion: { input: price.input, output: price.output },
  };
}

export function priced(call: ModelCall): PricedCall {
  return { ...call, cost: costEstimate(call.model, call.inputTokens, call.outputTokens) };
}
