/**
 * The Anthropic Messages API's answer shapes (providers.md §4): turning a reply (text and tool
 * calls) into a Message with usage and stop_reason, honouring max_tokens and stop_sequences, and
 * into the streamed SSE events. Token counts are deterministic: one token per run of letters or
 * digits and one per other non-space character, so tests can predict them.
 */

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export interface TextBlock {
  type: "text";
  text: string;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export type ContentBlock = TextBlock | ToolUseBlock;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  service_tier: "standard";
}

export interface Message {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason;
  stop_sequence: string | null;
  usage: Usage;
}

const TOKEN_RE = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

export function countTokens(text: string): number {
  return text.match(TOKEN_RE)?.length ?? 0;
}

/** `text` cut after its first `n` tokens. */
function firstTokens(text: string, n: number): string {
  let end = 0;
  let count = 0;
  for (const m of text.matchAll(TOKEN_RE)) {
    if (count === n) break;
    end = m.index + m[0].length;
    count++;
  }
  return text.slice(0, end);
}

function blockTokens(block: ContentBlock): number {
  return block.type === "text"
    ? countTokens(block.text)
    : countTokens(block.name) + countTokens(JSON.stringify(block.input));
}

/** Block tags, roles and ids are framing, not content the model reads. */
const FRAMING_KEYS = new Set(["type", "role", "id", "tool_use_id", "cache_control"]);

/** Every piece of text the model would read: system, messages (all block kinds) and tools. */
export function inputTokens(body: { system?: unknown; messages?: unknown; tools?: unknown }): number {
  const texts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") texts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (!FRAMING_KEYS.has(k)) walk(x);
      }
    }
  };
  walk(body.system);
  walk(body.messages);
  if (body.tools) texts.push(JSON.stringify(body.tools));
  return texts.reduce((n, t) => n + countTokens(t), 0);
}

export interface Limits {
  maxTokens: number;
  stopSequences: string[];
}

/** Applies stop_sequences and max_tokens the way the API does: the reply ends at the first hit. */
export function finishReply(
  blocks: ContentBlock[],
  limits: Limits,
  stopReason?: StopReason,
): { content: ContentBlock[]; stop_reason: StopReason; stop_sequence: string | null; outputTokens: number } {
  const content: ContentBlock[] = [];
  let budget = limits.maxTokens;
  for (const block of blocks) {
    if (block.type === "text") {
      let text = block.text;
      let hit: { at: number; seq: string } | null = null;
      for (const seq of limits.stopSequences) {
        const at = seq ? text.indexOf(seq) : -1;
        if (at >= 0 && (!hit || at < hit.at)) hit = { at, seq };
      }
      if (hit) text = text.slice(0, hit.at);
      if (countTokens(text) > budget) {
        content.push({ type: "text", text: firstTokens(text, budget) });
        return { content, stop_reason: "max_tokens", stop_sequence: null, outputTokens: limits.maxTokens };
      }
      content.push({ type: "text", text });
      budget -= countTokens(text);
      if (hit) {
        return {
          content,
          stop_reason: "stop_sequence",
          stop_sequence: hit.seq,
          outputTokens: limits.maxTokens - budget,
        };
      }
    } else {
      const cost = blockTokens(block);
      if (cost > budget) {
        return { content, stop_reason: "max_tokens", stop_sequence: null, outputTokens: limits.maxTokens };
      }
      content.push(block);
      budget -= cost;
    }
  }
  const reason = stopReason ?? (content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
  return { content, stop_reason: reason, stop_sequence: null, outputTokens: limits.maxTokens - budget };
}

export function randomId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/** Splits text into deltas of a few words, as the API streams them. */
function textChunks(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += 3) chunks.push(words.slice(i, i + 3).join(""));
  return chunks;
}

/** Splits a tool's input JSON into partial_json pieces, which clients concatenate. */
function jsonChunks(json: string): string[] {
  const size = Math.max(1, Math.ceil(json.length / 3));
  const chunks: string[] = [];
  for (let i = 0; i < json.length; i += size) chunks.push(json.slice(i, i + size));
  return chunks;
}

/** The SSE events of a streamed message, in order (message_start ... message_stop). */
export function streamEvents(message: Message): { event: string; data: Record<string, unknown> }[] {
  const ev = (event: string, data: Record<string, unknown> = {}) => ({
    event,
    data: { type: event, ...data },
  });
  const events = [
    ev("message_start", {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) },
      },
    }),
    ev("ping"),
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const text of textChunks(block.text)) {
        events.push(ev("content_block_delta", { index, delta: { type: "text_delta", text } }));
      }
    } else {
      events.push(ev("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      }));
      for (const partial_json of jsonChunks(JSON.stringify(block.input))) {
        events.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }));
      }
    }
    events.push(ev("content_block_stop", { index }));
  });
  events.push(ev("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
    usage: { output_tokens: message.usage.output_tokens },
  }));
  events.push(ev("message_stop"));
  return events;
}

export function sseResponse(events: { event: string; data: unknown }[], headers: HeadersInit): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const { event, data } of events) {
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      }
      controller.close();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}
