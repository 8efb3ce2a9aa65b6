/**
 * The tool-use loop of one agent turn: call the model (streamed; its text goes out as `text`
 * chunks as it arrives), run the tools it asks for in the order it asked, give it the results,
 * and repeat until it answers without tools - at most `maxSteps` model calls. The last allowed
 * call is made with tool_choice none, so the turn ends with prose rather than a dangling call.
 */
import type { Llm, LlmContent, LlmMessageParam } from "../llm/mod.ts";
import type { PriceProposal } from "../pricing/mod.ts";
import type { AgentChunk } from "./stream.ts";
import { type AgentTool, runToolCall, type ToolContext, toolDefinitions } from "./tools/registry.ts";

const DEFAULT_MAX_STEPS = 5;
const MAX_TOKENS_PER_STEP = 2048;

export interface TurnOptions {
  llm: Llm;
  model: string;
  system: string;
  messages: LlmMessageParam[];
  tools: readonly AgentTool[];
  /** Tool context without emit (the loop supplies it). */
  toolContext: Omit<ToolContext, "emit">;
  emit(chunk: AgentChunk): void;
  signal?: AbortSignal;
  maxSteps?: number;
}

export interface TurnResult {
  text: string;
  steps: number;
  stopReason: string | null;
  /** The model still wanted tools when the step limit was reached. */
  stepLimitReached: boolean;
  usage: { input_tokens: number; output_tokens: number };
  toolCalls: { tool_name: string; log_id: string | null; is_error: boolean }[];
  proposals: PriceProposal[];
}

export async function runAgentTurn(o: TurnOptions): Promise<TurnResult> {
  const maxSteps = o.maxSteps ?? DEFAULT_MAX_STEPS;
  const messages = [...o.messages];
  const defs = toolDefinitions(o.tools);
  const result: TurnResult = {
    text: "",
    steps: 0,
    stopReason: null,
    stepLimitReached: false,
    usage: { input_tokens: 0, output_tokens: 0 },
    toolCalls: [],
    proposals: [],
  };
  const emit = (chunk: AgentChunk) => {
    if (chunk.type === "price_proposal") result.proposals.push(chunk);
    o.emit(chunk);
  };
  const ctx: ToolContext = { ...o.toolContext, emit };

  for (let step = 1; step <= maxSteps; step++) {
    result.steps = step;
    const last = step === maxSteps;
    let firstDelta = true;
    const message = await o.llm.turn({
      model: o.model,
      maxTokens: MAX_TOKENS_PER_STEP,
      system: o.system,
      messages,
      tools: defs,
      ...(last ? { toolChoice: "none" as const } : {}),
      purpose: "agent-chat",
      signal: o.signal,
    }, (delta) => {
      // Prose of successive model calls reads as paragraphs, not one run-on line.
      const text = firstDelta && result.text && !result.text.endsWith("\n") ? `\n\n${delta}` : delta;
      firstDelta = false;
      result.text += text;
      emit({ type: "text", text });
    });
    result.usage.input_tokens += message.usage.input_tokens;
    result.usage.output_tokens += message.usage.output_tokens;
    result.stopReason = message.stopReason;
    const calls = message.content.filter((b) => b.type === "tool_use");
    if (message.stopReason !== "tool_use" || calls.length === 0) return result;
    if (last) {
      result.stepLimitReached = true;
      emit({
        type: "status",
        message: `Stopped after ${maxSteps} model calls; the tools asked for last were not run`,
      });
      return result;
    }
    messages.push({ role: "assistant", content: message.content });
    const results: LlmContent[] = [];
    for (const call of calls) {
      o.signal?.throwIfAborted();
      const outcome = await runToolCall(call, o.tools, ctx);
      result.toolCalls.push({
        tool_name: call.name,
        log_id: outcome.logId,
        is_error: !!outcome.block.is_error,
      });
      results.push(outcome.block);
    }
    messages.push({ role: "user", content: results });
  }
  return result;
}
