/**
 * Stand-in for Anthropic's Messages API (providers.md §4): POST /v1/messages, plain and streamed
 * (SSE with event lines), POST /v1/messages/count_tokens, Anthropic's error JSON. It accepts the
 * key as x-api-key (SDK 0.x, curl) or Authorization: Bearer (SDK 1.x) and any anthropic-version,
 * refusing temperature/top_p/top_k from version 2026-10-21 on as the real API does. Like the real
 * API it answers 404 not_found_error "model: <name>" for a model it does not know: it knows the
 * public Claude model ids (CLAUDE_MODELS, the SDK's Model list) and what acceptModel() adds (the
 * sandbox adds the claude-* ids the function environment configures in *_MODEL* variables).
 *
 * Tests script the replies: `reply("text")`, `reply({ toolUse: [{ name, input }] })`, one
 * per request in order (model_script.ts also has `model`, `malformed`, `error` and `latencyMs`;
 * anyone can queue them over HTTP with POST /_models/script, see sandbox.ts); scripted replies
 * always come first. Every call is kept in `calls` for the sandbox page's model viewer. With nothing scripted, the sandbox
 * model answers (model_brain.ts think(): its module doc has the table of rules): a forced tool
 * (`tool_choice` `{type: "tool", name}`) gets `stop_reason: "tool_use"` and one tool_use block
 * whose input is valid against its input_schema and meaningful where the platform reads it
 * (classification, extraction, product discovery, captions, RAG answer, re-rank; else the
 * deterministic generic instance of anthropic_tools.ts); an agent request with tools gets the
 * price_lookup or search call its last message asks for, or a short text from its tool_result;
 * anything else a deterministic text that says it is the sandbox model. The same request gets the
 * same answer; streamed, a tool input arrives as input_json_delta events as the API sends them.
 * The rule that answered is in the capture (`rule`).
 */
import type { StandInRequest } from "../standin.ts";
import {
  type ContentBlock,
  finishReply,
  inputTokens,
  type Message,
  randomId,
  sseResponse,
  type StopReason,
  streamEvents,
} from "./anthropic_messages.ts";
import { think } from "./model_brain.ts";
import { fromAnthropic } from "./brain_requests.ts";
import { type ModelCall, requestFields } from "./model_calls.ts";
import { ModelStandIn } from "./model_standin.ts";
import { type ModelReply, nextAnswer } from "./model_script.ts";
import type { Captured } from "../capture.ts";

/**
 * A scripted reply (model_script.ts: text and/or tool calls, malformed, error, latencyMs, model,
 * beforeReply); a string is a text reply.
 */
export type ScriptedReply =
  | string
  | (ModelReply & {
    /** Overrides the stop_reason the content implies (end_turn, or tool_use with tool calls). */
    stopReason?: StopReason;
    /** Which sandbox model rule produced an unscripted reply (shown in the captures). */
    rule?: string;
  });

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/**
 * The public Claude model ids the API serves (the Model union of @anthropic-ai/sdk 1.12.0, which
 * includes every id the platform's config uses: claude-sonnet-4-6, claude-haiku-4-5,
 * claude-opus-4-6).
 */
export const CLAUDE_MODELS: readonly string[] = [
  "claude-fable-5-2",
  "claude-mythos-5-2",
  "claude-haiku-5-5",
  "claude-sonnet-5-5",
  "claude-fable-5-1",
  "claude-opus-5-5",
  "claude-mythos-5-1",
  "claude-sonnet-5",
  "claude-fable-5",
  "claude-mythos-5",
  "claude-opus-5",
  "claude-opus-4-8",
  "claude-opus-4-7",
  "claude-mythos-preview",
  "claude-opus-4-6",
  "claude-sonnet-4-6",
  "claude-haiku-4-5",
  "claude-haiku-4-5-20251001",
  "claude-opus-4-5",
  "claude-opus-4-5-20251101",
  "claude-sonnet-4-5",
  "claude-sonnet-4-5-20250929",
];

/** The API version from which sampling parameters are refused (migration-2026-10-21). */
const NO_SAMPLING_FROM = "2026-10-21";

const BLOCK_TYPES = new Set([
  "text",
  "image",
  "document",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "search_result",
]);

type Body = Record<string, unknown>;

/** The first problem with a request body, in the API's "field: problem" wording, or null. */
export function validateMessagesRequest(body: unknown, version: string, counting = false): string | null {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "request body must be a JSON object";
  const b = body as Body;
  if (typeof b.model !== "string" || b.model === "") return "model: Field required";
  if (!counting) {
    if (b.max_tokens === undefined) return "max_tokens: Field required";
    if (!Number.isInteger(b.max_tokens) || (b.max_tokens as number) < 1) {
      return "max_tokens: Input should be a positive integer";
    }
  }
  if (!Array.isArray(b.messages)) return "messages: Field required";
  if (b.messages.length === 0) return "messages: at least one message is required";
  for (const [i, m] of (b.messages as Body[]).entries()) {
    if (!m || typeof m !== "object") return `messages.${i}: Input should be an object`;
    if (m.role !== "user" && m.role !== "assistant") {
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    }
    if (typeof m.content === "string") continue;
    if (!Array.isArray(m.content)) return `messages.${i}.content: Field required`;
    for (const [j, block] of (m.content as Body[]).entries()) {
      const at = `messages.${i}.content.${j}`;
      if (!block || typeof block.type !== "string" || !BLOCK_TYPES.has(block.type)) {
        return `${at}.type: Input tag '${block?.type}' found using 'type' does not match any of the expected tags`;
      }
      if (block.type === "text" && typeof block.text !== "string") return `${at}.text: Field required`;
      if (block.type === "tool_result" && typeof block.tool_use_id !== "string") {
        return `${at}.tool_use_id: Field required`;
      }
    }
  }
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools)) return "tools: Input should be a valid list";
    for (const [i, t] of (b.tools as Body[]).entries()) {
      if (typeof t?.name !== "string") return `tools.${i}.name: Field required`;
      // Server tools (web_search ...) carry a type instead of an input_schema.
      if (t.type === undefined && (typeof t.input_schema !== "object" || t.input_schema === null)) {
        return `tools.${i}.input_schema: Field required`;
      }
    }
  }
  if (b.stream !== undefined && typeof b.stream !== "boolean") {
    return "stream: Input should be a valid boolean";
  }
  if (version >= NO_SAMPLING_FROM) {
    for (const field of ["temperature", "top_p", "top_k"]) {
      if (b[field] !== undefined) return `${field}: Extra inputs are not permitted in version ${version}`;
    }
  }
  return null;
}

export class AnthropicStandIn extends ModelStandIn<Exclude<ScriptedReply, string>> {
  readonly name = "anthropic";
  readonly #models = new Set(CLAUDE_MODELS);

  /** Makes the stand-in serve these model ids too (beyond CLAUDE_MODELS); kept across reset(). */
  acceptModel(...ids: string[]): this {
    for (const id of ids) this.#models.add(id);
    return this;
  }

  servesModel(model: string): boolean {
    return this.#models.has(model);
  }

  protected override onFault(captured: Captured, status: number, message: string): void {
    const b = captured.body;
    if (captured.path.replace(/\/+$/, "") !== "/v1/messages") return;
    if (validateMessagesRequest(b, "2023-06-01") !== null) return;
    captured.rule = "injected";
    this.#record(captured, b as Body, { error: { status, message } }, "injected");
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    const request_id = randomId("req_");
    const body = {
      type: "error",
      error: {
        type: ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"),
        message,
      },
      request_id,
    };
    return Response.json(body, { status, headers: { "request-id": request_id, ...headers } });
  }

  protected async route(req: StandInRequest): Promise<Response> {
    const endpoint = req.path.replace(/\/+$/, "");
    if (endpoint !== "/v1/messages" && endpoint !== "/v1/messages/count_tokens") {
      return this.errorResponse(404, `Not found: ${req.method} ${req.path}`);
    }
    if (req.method !== "POST") return this.errorResponse(405, `Method ${req.method} not allowed`);
    const auth = req.headers.get("x-api-key") ??
      /^Bearer\s+(\S+)/i.exec(req.headers.get("authorization") ?? "")?.[1];
    if (!auth) return this.errorResponse(401, "x-api-key header is required");
    const version = req.headers.get("anthropic-version");
    if (!version) return this.errorResponse(400, "anthropic-version: header is required");
    const body = req.json();
    const counting = endpoint.endsWith("/count_tokens");
    const problem = body === undefined
      ? "There was an error parsing the body as JSON"
      : validateMessagesRequest(body, version, counting);
    if (problem) return this.errorResponse(400, problem);
    const b = body as Body;
    if (!this.#models.has(b.model as string)) return this.errorResponse(404, `model: ${b.model}`);
    if (counting) return Response.json({ input_tokens: inputTokens(b) });

    const next = await nextAnswer(
      this.script,
      "anthropic",
      b.model as string,
      () => fromAnthropic(b),
      () => {
        const unscripted = this.#unscripted(b);
        return typeof unscripted === "string" ? { text: unscripted } : unscripted;
      },
    );
    if ("error" in next) {
      req.captured.rule = "scripted:error";
      this.#record(req.captured, b, { error: next.error }, "scripted:error");
      return this.errorResponse(next.error.status, next.error.message);
    }
    const { reply, rule } = next;
    const message = this.#answer(b, reply);
    req.captured.rule = rule;
    this.#record(req.captured, b, { message }, rule);
    const headers = { "request-id": randomId("req_") };
    return b.stream ? sseResponse(streamEvents(message), headers) : Response.json(message, { headers });
  }

  #record(
    captured: Captured,
    b: Body,
    out: { message?: Message; error?: { status: number; message: string } },
    rule: string,
  ): void {
    const m = out.message;
    const text = m?.content.filter((c) => c.type === "text").map((c) => c.text).join("");
    const toolUse = m?.content.flatMap((c) =>
      c.type === "tool_use" ? [{ name: c.name, input: c.input }] : []
    );
    const call: ModelCall = {
      id: captured.id,
      provider: this.name,
      kind: "chat",
      time: captured.time,
      stream: b.stream === true,
      ...requestFields(fromAnthropic(b)),
      reply: m ? { ...(text ? { text } : {}), ...(toolUse?.length ? { toolUse } : {}) } : null,
      finish: m?.stop_reason ?? null,
      error: out.error ?? null,
      inputTokens: m?.usage.input_tokens ?? inputTokens(b),
      outputTokens: m?.usage.output_tokens ?? 0,
      rule,
    };
    this.calls.add(call);
  }

  /** The reply to a request nothing was scripted for: the sandbox model's (model_brain.ts think()). */
  #unscripted(b: Body): ScriptedReply {
    const reply = think(fromAnthropic(b));
    return { text: reply.text, toolUse: reply.toolUse, rule: reply.rule };
  }

  #answer(b: Body, reply: Exclude<ScriptedReply, string>): Message {
    const blocks: ContentBlock[] = [];
    if (reply.text !== undefined) blocks.push({ type: "text", text: reply.text });
    for (const call of reply.toolUse ?? []) {
      blocks.push({
        type: "tool_use",
        id: call.id ?? randomId("toolu_"),
        name: call.name,
        input: call.input,
      });
    }
    const done = finishReply(
      blocks,
      {
        maxTokens: b.max_tokens as number,
        stopSequences: Array.isArray(b.stop_sequences) ? (b.stop_sequences as string[]) : [],
      },
      reply.stopReason,
    );
    return {
      id: randomId("msg_"),
      type: "message",
      role: "assistant",
      model: b.model as string,
      content: done.content,
      stop_reason: done.stop_reason,
      stop_sequence: done.stop_sequence,
      usage: {
        input_tokens: inputTokens(b),
        output_tokens: done.outputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        service_tier: "standard",
      },
    };
  }
}
