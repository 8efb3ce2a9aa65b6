/**
 * The model stand-ins' wire requests in the sandbox model's provider-neutral shape
 * (BrainRequest, model_brain.ts): Anthropic's Messages API body and OpenAI's chat completions
 * body. Both are validated by their stand-in first; these only read them.
 */
import { hash32, requestSeed } from "./anthropic_tools.ts";
import type { BrainBlock, BrainMessage, BrainRequest, BrainTool, BrainToolChoice } from "./model_brain.ts";

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => !!v && typeof v === "object" && !Array.isArray(v);

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((b) => isObject(b) && typeof b.text === "string").map((b) => b.text as string).join(
    "\n",
  );
}

function anthropicBlock(b: Body): BrainBlock | null {
  switch (b.type) {
    case "text":
      return { type: "text", text: b.text as string };
    case "image":
      return { type: "image" };
    case "document": {
      const source = isObject(b.source) ? b.source : {};
      return source.type === "text" && typeof source.data === "string"
        ? { type: "document", text: source.data }
        : { type: "document" };
    }
    case "tool_use":
      return {
        type: "tool_use",
        id: String(b.id ?? ""),
        name: String(b.name ?? ""),
        input: isObject(b.input) ? b.input : {},
      };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: b.tool_use_id as string,
        content: textOf(b.content),
        ...(b.is_error === true ? { is_error: true } : {}),
      };
    default:
      return null; // thinking, redacted_thinking, search_result: nothing the sandbox model reads
  }
}

/** An Anthropic Messages API body (validated by validateMessagesRequest) as a BrainRequest. */
export function fromAnthropic(b: Body): BrainRequest {
  const messages: BrainMessage[] = (b.messages as Body[]).map((m) => ({
    role: m.role as "user" | "assistant",
    blocks: typeof m.content === "string"
      ? [{ type: "text", text: m.content }]
      : (m.content as Body[]).map(anthropicBlock).filter((x): x is BrainBlock => x !== null),
  }));
  const tools: BrainTool[] = (Array.isArray(b.tools) ? b.tools as Body[] : [])
    .filter((t) => isObject(t.input_schema))
    .map((t) => ({
      name: t.name as string,
      description: typeof t.description === "string" ? t.description : "",
      input_schema: t.input_schema as Body,
    }));
  const choice = isObject(b.tool_choice) ? b.tool_choice : { type: "auto" };
  const toolChoice: BrainToolChoice = choice.type === "tool"
    ? { type: "tool", name: String(choice.name) }
    : choice.type === "any" || choice.type === "none"
    ? { type: choice.type }
    : { type: "auto" };
  return {
    model: b.model as string,
    system: textOf(b.system),
    messages,
    tools,
    toolChoice,
    seed: requestSeed(b),
  };
}

function openaiParts(content: unknown): BrainBlock[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const out: BrainBlock[] = [];
  for (const p of content as Body[]) {
    if (p.type === "text" || p.type === "refusal") {
      out.push({ type: "text", text: String(p.text ?? p.refusal ?? "") });
    } else if (p.type === "image_url") out.push({ type: "image" });
    else if (p.type === "file") out.push({ type: "document" });
    // input_audio: nothing the sandbox model reads
  }
  return out;
}

function parsedArguments(args: unknown): Record<string, unknown> {
  if (typeof args !== "string") return {};
  try {
    const v = JSON.parse(args);
    return isObject(v) ? v : { value: v };
  } catch (_) {
    // A model's arguments that are not JSON are what they are: shown as the raw text.
    return { raw: args };
  }
}

/**
 * An OpenAI chat completions body (validated by the stand-in) as a BrainRequest: system and
 * developer messages make the system prompt, tool messages become tool_result blocks of a user
 * turn (merged with the user turn that follows, as Anthropic's API wants them), assistant
 * tool_calls become tool_use blocks.
 */
export function fromOpenAI(b: Body): BrainRequest {
  const system: string[] = [];
  const messages: BrainMessage[] = [];
  const push = (role: "user" | "assistant", blocks: BrainBlock[]) => {
    const last = messages.at(-1);
    if (last && last.role === role) last.blocks.push(...blocks);
    else messages.push({ role, blocks });
  };
  for (const m of b.messages as Body[]) {
    if (m.role === "system" || m.role === "developer") system.push(textOf(m.content));
    else if (m.role === "user") push("user", openaiParts(m.content));
    else if (m.role === "tool") {
      push("user", [{
        type: "tool_result",
        tool_use_id: String(m.tool_call_id ?? ""),
        content: textOf(m.content),
      }]);
    } else if (m.role === "assistant") {
      const blocks = openaiParts(m.content);
      for (const call of (Array.isArray(m.tool_calls) ? m.tool_calls : []) as Body[]) {
        const fn = isObject(call.function) ? call.function : {};
        blocks.push({
          type: "tool_use",
          id: String(call.id ?? ""),
          name: String(fn.name ?? ""),
          input: parsedArguments(fn.arguments),
        });
      }
      push("assistant", blocks);
    }
  }
  const tools: BrainTool[] = (Array.isArray(b.tools) ? b.tools as Body[] : []).map((t) => {
    const fn = t.function as Body;
    return {
      name: fn.name as string,
      description: typeof fn.description === "string" ? fn.description : "",
      input_schema: isObject(fn.parameters) ? fn.parameters : { type: "object", properties: {} },
    };
  });
  const c = b.tool_choice;
  const toolChoice: BrainToolChoice = c === "none"
    ? { type: "none" }
    : c === "required"
    ? { type: "any" }
    : isObject(c) && isObject(c.function)
    ? { type: "tool", name: String(c.function.name) }
    : { type: "auto" };
  const { model, messages: raw, tools: rawTools, tool_choice } = b;
  return {
    model: model as string,
    system: system.join("\n\n"),
    messages,
    tools,
    toolChoice,
    seed: hash32(JSON.stringify({ model, messages: raw, tools: rawTools, tool_choice })),
  };
}
