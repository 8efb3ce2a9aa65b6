/** Types of the model layer (see mod.ts). Messages use Anthropic's content-block shape. */
import type Anthropic from "@anthropic-ai/sdk";
import type { LlmProvider } from "./models.ts";

export type LlmMessageParam = Anthropic.MessageParam;
export type LlmContent = Anthropic.ContentBlockParam;
export type LlmTool = Anthropic.Tool;

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export type LlmBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export type ToolChoice = "auto" | "none" | "any" | { name: string };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** One model call as the layer accounts it (each attempt of a structured call is one). */
export interface CallRecord {
  provider: LlmProvider;
  /** The provider model id sent. */
  model: string;
  purpose: string;
  attempt: number;
  ok: boolean;
  /** Why it failed: the provider's error or the problem with the answer. */
  error: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  /** Estimated USD cost (models.ts MODEL_PRICES), null when the model has no listed price. */
  cost_usd: number | null;
  latency_ms: number;
}

export type CallRecorder = (record: CallRecord) => void | Promise<void>;

export interface CallBase {
  /** A platform id (`vendor-sonnet-4-5` ...) or a provider model id. */
  model: string;
  system?: string;
  /** The conversation; or `prompt` for one user message. */
  messages?: LlmMessageParam[];
  prompt?: string | LlmContent[];
  maxTokens: number;
  /** What the call is for, e.g. "Image classification": in errors and records. */
  purpose: string;
  signal?: AbortSignal;
  /** This call's time limit (default the client's 120 s); past it the call is model_unavailable. */
  timeoutMs?: number;
  /** Called for this call's records (besides the layer's own recorder). */
  onCall?: CallRecorder;
}

export interface StructuredCall<T> extends CallBase {
  /** The tool the model is made to call; its input_schema is the zod schema. */
  tool: string;
  description: string;
  /** A domain check after the schema (e.g. "every id once"): a problem string is a malformed answer. */
  check?: (value: T) => string | null;
}

export interface StructuredResult<T> {
  value: T;
  /** Model calls made: 1, or 2 after a malformed first answer. */
  calls: number;
  usage: Usage;
  cost_usd: number | null;
  model: string;
}

export interface TextResult {
  text: string;
  stopReason: StopReason;
  usage: Usage;
  cost_usd: number | null;
  model: string;
}

export interface TurnCall extends CallBase {
  tools: readonly LlmTool[];
  toolChoice?: ToolChoice;
}

export interface Reply {
  content: LlmBlock[];
  stopReason: StopReason;
  usage: Usage;
  cost_usd: number | null;
  model: string;
  /** Tool calls whose arguments could not be read (OpenAI-compatible servers). */
  problems: string[];
}
