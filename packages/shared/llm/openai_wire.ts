/**
 * The layer speaks Anthropic's message shape (content blocks: text, image, document, tool_use,
 * tool_result) everywhere; this module translates it to OpenAI's chat completions and back, so
 * any OpenAI-compatible server (OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio) runs every
 * feature by configuration alone.
 *
 * | Anthropic                                   | OpenAI chat completions                                   |
 * | ------------------------------------------- | --------------------------------------------------------- |
 * | `system`                                    | a leading `system` message                                |
 * | text block                                  | a text part                                               |
 * | image block (base64 or url)                 | an `image_url` part (a data: URL for base64)              |
 * | document block (PDF base64 / text)          | a `file` part with `file_data` / a text part              |
 * | assistant `tool_use` blocks                 | the assistant message's `tool_calls` (arguments as JSON)   |
 * | user `tool_result` blocks                   | `tool` messages (before the user's other parts)          |
 * | tools `{name, description, input_schema}`   | `{type: "function", function: {name, description, parameters}}` |
 * | tool_choice auto / none / any / tool        | "auto" / "none" / "required" / `{type: "function", function: {name}}` |
 * | stop_reason end_turn / tool_use / max_tokens | finish_reason stop / tool_calls / length               |
 * | usage input_tokens / output_tokens          | usage prompt_tokens / completion_tokens                   |
 */
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { LlmBlock, StopReason, ToolChoice } from "./types.ts";

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

function toolResultText(content: Anthropic.ToolResultBlockParam["content"]): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((b) => b.type === "text" ? b.text : `[${b.type}]`).join("\n");
}

function userPart(block: Anthropic.ContentBlockParam): UserPart | null {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image": {
      const src = block.source;
      if (src.type === "base64") {
        return { type: "image_url", image_url: { url: `data:${src.media_type};base64,${src.data}` } };
      }
      if (src.type === "url") return { type: "image_url", image_url: { url: src.url } };
      return null;
    }
    case "document": {
      const src = block.source;
      if (src.type === "base64") {
        return {
          type: "file",
          file: {
            filename: block.title ?? "document.pdf",
            file_data: `data:${src.media_type};base64,${src.data}`,
          },
        };
      }
      if (src.type === "text") return { type: "text", text: src.data };
      return null;
    }
    default:
      return null;
  }
}

export function toChatMessages(
  system: string | undefined,
  messages: Anthropic.MessageParam[],
): ChatMessage[] {
  const out: ChatMessage[] = system ? [{ role: "system", content: system }] : [];
  for (const m of messages) {
    if (typeof m.content === "string") {
      out.push({ role: m.role, content: m.content });
      continue;
    }
    if (m.role === "assistant") {
      const text = m.content.filter((b) => b.type === "text").map((b) => (b as Anthropic.TextBlockParam).text)
        .join("");
      const calls = m.content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use").map((
        b,
      ) => ({
        id: b.id,
        type: "function" as const,
        function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
      }));
      out.push({ role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const b of m.content) {
      if (b.type === "tool_result") {
        const text = toolResultText(b.content);
        out.push({
          role: "tool",
          tool_call_id: b.tool_use_id,
          content: b.is_error ? `Error: ${text}` : text,
        });
      }
    }
    const parts = m.content.map(userPart).filter((p): p is UserPart => p !== null);
    if (parts.length) out.push({ role: "user", content: parts });
  }
  return out;
}

export function toChatTools(tools: readonly Anthropic.Tool[]): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      parameters: t.input_schema as Record<string, unknown>,
    },
  }));
}

export function toChatToolChoice(choice: ToolChoice): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption {
  if (choice === "auto" || choice === "none") return choice;
  if (choice === "any") return "required";
  return { type: "function", function: { name: choice.name } };
}

export function stopReasonOf(finish: string | null | undefined): StopReason {
  switch (finish) {
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}

/** Tool calls as tool_use blocks; arguments that are not a JSON object are reported, not guessed. */
export function toolUseBlocks(
  calls: { id?: string; function?: { name?: string; arguments?: string } }[],
): { blocks: LlmBlock[]; problems: string[] } {
  const blocks: LlmBlock[] = [];
  const problems: string[] = [];
  calls.forEach((c, i) => {
    const name = c.function?.name ?? "";
    let input: unknown;
    try {
      input = JSON.parse(c.function?.arguments || "{}");
    } catch (err) {
      problems.push(`the arguments of ${name || `tool call ${i}`} were not JSON (${(err as Error).message})`);
      input = {};
    }
    if (!input || typeof input !== "object" || Array.isArray(input)) {
      problems.push(`the arguments of ${name || `tool call ${i}`} were not a JSON object`);
      input = {};
    }
    blocks.push({
      type: "tool_use",
      id: c.id || `call_${i}`,
      name,
      input: input as Record<string, unknown>,
    });
  });
  return { blocks, problems };
}
