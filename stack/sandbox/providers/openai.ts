/**
 * Stand-in for the OpenAI API as the official `openai` SDK and OpenAI-compatible servers (vLLM,
 * Ollama, LM Studio ...) speak it; code points at it with OPENAI_BASE_URL = `<sandbox>/openai/v1`
 * (the base includes /v1, as the SDK expects) and any Bearer key:
 *
 * - POST /v1/chat/completions: messages with system/developer/user/assistant/tool roles, content
 *   as a string or parts (text, image_url, input_audio, file); tools [{type: "function",
 *   function: {name, description, parameters}}]; tool_choice "auto" | "none" | "required" |
 *   {type: "function", function: {name}}; max_tokens / max_completion_tokens and stop honoured
 *   (finish_reason length / stop). The answer is a chat.completion with choices[0].message
 *   {role, content, tool_calls[{id, type: "function", function: {name, arguments (JSON text)}}]},
 *   finish_reason stop | tool_calls | length and usage; with `stream: true` it is SSE `data:` chunks
 *   (text deltas, tool_call deltas whose arguments arrive in pieces, the finish_reason, a final
 *   usage chunk with `stream_options.include_usage`) ending in `data: [DONE]`.
 * - POST /v1/embeddings: input string | string[] (or token arrays), dimensions, encoding_format
 *   float | base64 (little-endian float32, the SDK's default); each vector is a deterministic unit
 *   vector seeded from a hash of its input (the same text gives the same vector; not meaningful,
 *   but stable for tests and demos), 1536 dimensions unless asked (3072 for text-embedding-3-large).
 *
 * Any model name is accepted, as local servers serve whatever they are given. Errors are OpenAI's
 * {error: {message, type, param, code}} (400 for bad requests naming the parameter, 401 without
 * a Bearer key). Replies come from the script (model_script.ts: reply() in process, POST
 * /_models/script over HTTP), else from the sandbox model (think() in model_brain.ts); every
 * chat call is kept for the model viewer (model_calls.ts) with the rule that answered it.
 */
import type { Captured } from "../capture.ts";
import type { StandInRequest } from "../standin.ts";
import { type ContentBlock, countTokens, finishReply, inputTokens, randomId } from "./anthropic_messages.ts";
import { hash32, prng } from "./anthropic_tools.ts";
import { fromOpenAI } from "./brain_requests.ts";
import { think } from "./model_brain.ts";
import { type ModelCall, requestFields } from "./model_calls.ts";
import { ModelStandIn } from "./model_standin.ts";
import { type ModelReply, nextAnswer } from "./model_script.ts";

type Body = Record<string, unknown>;

/** A problem with a request: OpenAI's message, and the parameter and code it names. */
interface Problem {
  message: string;
  param: string | null;
  code: string | null;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "invalid_request_error",
  404: "invalid_request_error",
  409: "invalid_request_error",
  413: "invalid_request_error",
  422: "invalid_request_error",
  429: "requests",
};

const ERROR_CODES: Record<number, string> = {
  401: "invalid_api_key",
  404: "not_found",
  429: "rate_limit_exceeded",
};

const ROLES = ["system", "developer", "user", "assistant", "tool"];
const PART_TYPES = ["text", "image_url", "input_audio", "file", "refusal"];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Output budget when the request sets none. */
const NO_LIMIT = 1_000_000;
const MAX_EMBEDDING_INPUTS = 2048;
const MAX_DIMENSIONS = 8192;

const isObject = (v: unknown): v is Body => !!v && typeof v === "object" && !Array.isArray(v);
const typeName = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "an array" : Number.isInteger(v) ? "an integer" : `a ${typeof v}`;

const missing = (param: string): Problem => ({
  message: `Missing required parameter: '${param}'.`,
  param,
  code: "missing_required_parameter",
});
const invalidType = (param: string, expected: string, v: unknown): Problem => ({
  message: `Invalid type for '${param}': expected ${expected}, but got ${typeName(v)} instead.`,
  param,
  code: "invalid_type",
});
const invalidValue = (param: string, message: string): Problem => ({ message, param, code: "invalid_value" });

function contentProblem(content: unknown, at: string, role: string): Problem | null {
  if (typeof content === "string") return null;
  if (content === null || content === undefined) {
    return role === "assistant" ? null : missing(`${at}.content`);
  }
  if (!Array.isArray(content)) {
    return invalidType(`${at}.content`, "one of a string or array of objects", content);
  }
  for (const [j, part] of content.entries()) {
    const p = `${at}.content[${j}]`;
    if (!isObject(part)) return invalidType(p, "an object", part);
    if (typeof part.type !== "string" || !PART_TYPES.includes(part.type)) {
      return invalidValue(
        `${p}.type`,
        `Invalid value: '${part.type}'. Supported values are: ${PART_TYPES.map((t) => `'${t}'`).join(", ")}.`,
      );
    }
    if (part.type === "text" && typeof part.text !== "string") return missing(`${p}.text`);
    if (part.type === "image_url" && !(isObject(part.image_url) && typeof part.image_url.url === "string")) {
      return missing(`${p}.image_url.url`);
    }
  }
  return null;
}

/** The first problem with a chat completions body, in the API's wording, or null. */
export function validateChatRequest(body: unknown): Problem | null {
  if (!isObject(body)) return invalidType("body", "an object", body);
  if (typeof body.model !== "string" || body.model === "") {
    return { message: "you must provide a model parameter", param: null, code: null };
  }
  if (body.messages === undefined) return missing("messages");
  if (!Array.isArray(body.messages)) return invalidType("messages", "an array", body.messages);
  if (body.messages.length === 0) {
    return {
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: "messages",
      code: "empty_array",
    };
  }
  let pendingCalls = new Set<string>();
  for (const [i, m] of (body.messages as unknown[]).entries()) {
    const at = `messages[${i}]`;
    if (!isObject(m)) return invalidType(at, "an object", m);
    if (typeof m.role !== "string" || !ROLES.includes(m.role)) {
      return invalidValue(
        `${at}.role`,
        `Invalid value: '${m.role}'. Supported values are: ${ROLES.map((r) => `'${r}'`).join(", ")}.`,
      );
    }
    const problem = contentProblem(m.content, at, m.role);
    if (problem) return problem;
    if (m.role === "assistant") {
      pendingCalls = new Set();
      if (m.tool_calls !== undefined) {
        if (!Array.isArray(m.tool_calls)) return invalidType(`${at}.tool_calls`, "an array", m.tool_calls);
        for (const [j, c] of m.tool_calls.entries()) {
          const p = `${at}.tool_calls[${j}]`;
          if (!isObject(c) || typeof c.id !== "string") return missing(`${p}.id`);
          if (!isObject(c.function) || typeof c.function.name !== "string") {
            return missing(`${p}.function.name`);
          }
          if (typeof c.function.arguments !== "string") return missing(`${p}.function.arguments`);
          pendingCalls.add(c.id);
        }
      }
      if ((m.content === null || m.content === undefined) && !pendingCalls.size) {
        return missing(`${at}.content`);
      }
    } else if (m.role === "tool") {
      if (typeof m.tool_call_id !== "string") return missing(`${at}.tool_call_id`);
      if (!pendingCalls.has(m.tool_call_id)) {
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `${at}.role`,
          code: null,
        };
      }
    } else pendingCalls = new Set();
  }
  const names = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalidType("tools", "an array", body.tools);
    for (const [i, t] of body.tools.entries()) {
      const at = `tools[${i}]`;
      if (!isObject(t) || t.type !== "function") {
        return invalidValue(
          `${at}.type`,
          `Invalid value: '${isObject(t) ? t.type : t}'. Supported values are: 'function'.`,
        );
      }
      if (!isObject(t.function)) return missing(`${at}.function`);
      const name = t.function.name;
      if (typeof name !== "string") return missing(`${at}.function.name`);
      if (!TOOL_NAME.test(name)) {
        return invalidValue(
          `${at}.function.name`,
          `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        );
      }
      if (t.function.parameters !== undefined && !isObject(t.function.parameters)) {
        return invalidType(`${at}.function.parameters`, "an object", t.function.parameters);
      }
      names.add(name);
    }
  }
  const choice = body.tool_choice;
  if (choice !== undefined) {
    if (!names.size) {
      return invalidValue(
        "tool_choice",
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      );
    }
    if (typeof choice === "string") {
      if (!["none", "auto", "required"].includes(choice)) {
        return invalidValue(
          "tool_choice",
          `Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`,
        );
      }
    } else if (!isObject(choice) || choice.type !== "function" || !isObject(choice.function)) {
      return invalidType(
        "tool_choice",
        `one of "none", "auto", "required" or {type: "function", function: {name}}`,
        choice,
      );
    } else if (!names.has(choice.function.name as string)) {
      return invalidValue(
        "tool_choice",
        `Invalid value for 'tool_choice': function '${choice.function.name}' is not among the provided tools.`,
      );
    }
  }
  for (const field of ["max_tokens", "max_completion_tokens"]) {
    const v = body[field];
    if (v !== undefined && v !== null && (!Number.isInteger(v) || (v as number) < 1)) {
      return invalidValue(
        field,
        `Invalid '${field}': expected a positive integer, but got ${JSON.stringify(v)}.`,
      );
    }
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean") {
    return invalidType("stream", "a boolean", body.stream);
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return invalidValue(
      "stream_options",
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    );
  }
  const stop = body.stop;
  if (stop !== undefined && stop !== null && typeof stop !== "string") {
    if (!Array.isArray(stop) || stop.some((s) => typeof s !== "string")) {
      return invalidType("stop", "one of a string or array of strings", stop);
    }
    if (stop.length > 4) {
      return invalidValue("stop", "Invalid 'stop': array too long. Expected at most 4 items.");
    }
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1) {
    return invalidValue("n", "The sandbox answers n=1 only (one choice per request).");
  }
  return null;
}

function stopsOf(stop: unknown): string[] {
  return typeof stop === "string" ? [stop] : Array.isArray(stop) ? stop as string[] : [];
}

/** Pieces of a text or a JSON text, as the API streams them. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A unit vector of `dims` components seeded from the input. */
export function hashVector(input: string, dims: number): number[] {
  const rand = prng(hash32(input));
  const v = Array.from({ length: dims }, () => rand() * 2 - 1);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** The vector as the API's base64: little-endian float32 bytes. */
export function float32Base64(v: number[]): string {
  const bytes = new Uint8Array(v.length * 4);
  const view = new DataView(bytes.buffer);
  v.forEach((x, i) => view.setFloat32(i * 4, x, true));
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

interface Completion {
  id: string;
  created: number;
  model: string;
  text: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finish: "stop" | "length" | "tool_calls";
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function usageOf(c: Completion) {
  return {
    ...c.usage,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function completionJson(c: Completion) {
  return {
    id: c.id,
    object: "chat.completion",
    created: c.created,
    model: c.model,
    system_fingerprint: "fp_sandbox",
    service_tier: "default",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: c.text,
        refusal: null,
        annotations: [],
        ...(c.toolCalls.length
          ? {
            tool_calls: c.toolCalls.map((t) => ({
              id: t.id,
              type: "function",
              function: { name: t.name, arguments: t.arguments },
            })),
          }
          : {}),
      },
      logprobs: null,
      finish_reason: c.finish,
    }],
    usage: usageOf(c),
  };
}

/** The SSE stream of a completion: chunks, the finish, the usage chunk when asked, [DONE]. */
function streamResponse(c: Completion, includeUsage: boolean, headers: HeadersInit): Response {
  const base = {
    id: c.id,
    object: "chat.completion.chunk",
    created: c.created,
    model: c.model,
    system_fingerprint: "fp_sandbox",
    service_tier: "default",
  };
  const chunk = (delta: Body, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "", refusal: null })];
  for (
    const text of (c.text ?? "").match(/\s*\S+\s*/g)?.reduce<string[]>((acc, w, i) => {
      if (i % 3 === 0) acc.push(w);
      else acc[acc.length - 1] += w;
      return acc;
    }, []) ?? []
  ) {
    chunks.push(chunk({ content: text }));
  }
  c.toolCalls.forEach((t, index) => {
    chunks.push(chunk({
      tool_calls: [{ index, id: t.id, type: "function", function: { name: t.name, arguments: "" } }],
    }));
    for (const part of pieces(t.arguments, Math.max(1, Math.ceil(t.arguments.length / 3)))) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  chunks.push(chunk({}, c.finish));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: usageOf(c) });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const data of chunks) controller.enqueue(encoder.encode(`data: ${JSON.stringify(data)}\n\n`));
      controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      controller.close();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

export class OpenAIStandIn extends ModelStandIn {
  readonly name = "openai";

  /** Any model name: OpenAI-compatible servers serve whatever they are configured with. */
  servesModel(_model: string): boolean {
    return true;
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    return this.#error(status, { message, param: null, code: ERROR_CODES[status] ?? null }, headers);
  }

  #error(status: number, p: Problem, headers: Record<string, string> = {}): Response {
    const type = ERROR_TYPES[status] ?? (status >= 500 ? "server_error" : "invalid_request_error");
    return Response.json(
      { error: { message: p.message, type, param: p.param, code: p.code } },
      { status, headers: { "x-request-id": randomId("req_"), ...headers } },
    );
  }

  protected override onFault(captured: Captured, status: number, message: string): void {
    if (captured.path.replace(/\/+$/, "") !== "/v1/chat/completions") return;
    if (validateChatRequest(captured.body) !== null) return;
    captured.rule = "injected";
    this.#record(captured, captured.body as Body, { error: { status, message } }, "injected");
  }

  protected async route(req: StandInRequest): Promise<Response> {
    const endpoint = req.path.replace(/\/+$/, "");
    if (endpoint !== "/v1/chat/completions" && endpoint !== "/v1/embeddings") {
      return this.#error(404, {
        message: `Invalid URL (${req.method} ${req.path})`,
        param: null,
        code: null,
      });
    }
    if (req.method !== "POST") {
      return this.#error(405, { message: `Method ${req.method} not allowed`, param: null, code: null });
    }
    if (!/^Bearer\s+\S+/i.test(req.headers.get("authorization") ?? "")) {
      return this.#error(401, {
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        param: null,
        code: null,
      });
    }
    const body = req.json();
    if (body === undefined) {
      return this.#error(400, {
        message: "We could not parse the JSON body of your request. The request body must be valid JSON.",
        param: null,
        code: null,
      });
    }
    return endpoint === "/v1/embeddings" ? this.#embeddings(req, body) : await this.#chat(req, body);
  }

  async #chat(req: StandInRequest, body: unknown): Promise<Response> {
    const problem = validateChatRequest(body);
    if (problem) return this.#error(400, problem);
    const b = body as Body;
    const next = await nextAnswer(
      this.script,
      "openai",
      b.model as string,
      () => fromOpenAI(b),
      () => think(fromOpenAI(b)),
    );
    if ("error" in next) {
      req.captured.rule = "scripted:error";
      this.#record(req.captured, b, { error: next.error }, "scripted:error");
      return this.errorResponse(next.error.status, next.error.message);
    }
    const { reply, rule } = next;
    const completion = this.#complete(b, reply);
    req.captured.rule = rule;
    this.#record(req.captured, b, { completion }, rule);
    const headers = { "x-request-id": randomId("req_") };
    if (b.stream === true) {
      const includeUsage = isObject(b.stream_options) && b.stream_options.include_usage === true;
      return streamResponse(completion, includeUsage, headers);
    }
    return Response.json(completionJson(completion), { headers });
  }

  /** The reply cut by max_tokens / stop as the API does, with its usage. */
  #complete(b: Body, reply: Pick<ModelReply, "text" | "toolUse">): Completion {
    const blocks: ContentBlock[] = [];
    if (reply.text !== undefined) blocks.push({ type: "text", text: reply.text });
    for (const call of reply.toolUse ?? []) {
      blocks.push({ type: "tool_use", id: call.id ?? randomId("call_"), name: call.name, input: call.input });
    }
    const done = finishReply(blocks, {
      maxTokens: (b.max_completion_tokens ?? b.max_tokens ?? NO_LIMIT) as number,
      stopSequences: stopsOf(b.stop),
    });
    const text = done.content.filter((c) => c.type === "text").map((c) => c.text).join("");
    const toolCalls = done.content.flatMap((c) =>
      c.type === "tool_use" ? [{ id: c.id, name: c.name, arguments: JSON.stringify(c.input) }] : []
    );
    const prompt = inputTokens({ messages: b.messages, tools: b.tools });
    return {
      id: randomId("chatcmpl-"),
      created: Math.floor(Date.now() / 1000),
      model: b.model as string,
      text: text || !toolCalls.length ? text : null,
      toolCalls,
      finish: done.stop_reason === "max_tokens" ? "length" : toolCalls.length ? "tool_calls" : "stop",
      usage: {
        prompt_tokens: prompt,
        completion_tokens: done.outputTokens,
        total_tokens: prompt + done.outputTokens,
      },
    };
  }

  #record(
    captured: Captured,
    b: Body,
    out: { completion?: Completion; error?: { status: number; message: string } },
    rule: string,
  ): void {
    const c = out.completion;
    const toolUse = c?.toolCalls.map((t) => ({ name: t.name, input: JSON.parse(t.arguments) }));
    const call: ModelCall = {
      id: captured.id,
      provider: this.name,
      kind: "chat",
      time: captured.time,
      stream: b.stream === true,
      ...requestFields(fromOpenAI(b)),
      reply: c ? { ...(c.text ? { text: c.text } : {}), ...(toolUse?.length ? { toolUse } : {}) } : null,
      finish: c?.finish ?? null,
      error: out.error ?? null,
      inputTokens: c?.usage.prompt_tokens ?? inputTokens({ messages: b.messages, tools: b.tools }),
      outputTokens: c?.usage.completion_tokens ?? 0,
      rule,
    };
    this.calls.add(call);
  }

  #embeddings(req: StandInRequest, body: unknown): Response {
    if (!isObject(body)) return this.#error(400, invalidType("body", "an object", body));
    if (typeof body.model !== "string" || body.model === "") {
      return this.#error(400, { message: "you must provide a model parameter", param: null, code: null });
    }
    const model = body.model;
    const raw = body.input;
    if (raw === undefined) return this.#error(400, missing("input"));
    // string | string[] | number[] (one tokenised input) | number[][]
    const inputs: unknown[] = typeof raw === "string" || (Array.isArray(raw) && typeof raw[0] === "number")
      ? [raw]
      : Array.isArray(raw)
      ? raw
      : [];
    const badInput = () =>
      this.#error(400, {
        message:
          "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
        param: null,
        code: null,
      });
    if (!inputs.length || inputs.length > MAX_EMBEDDING_INPUTS) return badInput();
    for (const x of inputs) {
      const ok = (typeof x === "string" && x !== "") ||
        (Array.isArray(x) && x.length > 0 && x.every((t) => Number.isInteger(t)));
      if (!ok) return badInput();
    }
    const natural = /^text-embedding-3-large/.test(model) ? 3072 : 1536;
    const dims = body.dimensions ?? natural;
    if (body.dimensions !== undefined && /^text-embedding-ada-002/.test(model)) {
      return this.#error(400, {
        message: "This model does not support specifying dimensions.",
        param: null,
        code: null,
      });
    }
    const max = /^text-embedding-3-/.test(model) ? natural : MAX_DIMENSIONS;
    if (!Number.isInteger(dims) || (dims as number) < 1 || (dims as number) > max) {
      return this.#error(
        400,
        invalidValue(
          "dimensions",
          `Invalid 'dimensions': expected an integer from 1 to ${max} for ${model}.`,
        ),
      );
    }
    const format = body.encoding_format ?? "float";
    if (format !== "float" && format !== "base64") {
      return this.#error(
        400,
        invalidValue(
          "encoding_format",
          `Invalid value: '${format}'. Supported values are: 'float' and 'base64'.`,
        ),
      );
    }
    const texts = inputs.map((x) => typeof x === "string" ? x : JSON.stringify(x));
    const tokens = inputs.reduce<number>(
      (n, x, i) => n + (typeof x === "string" ? countTokens(texts[i]) : (x as number[]).length),
      0,
    );
    const data = texts.map((text, index) => {
      const v = hashVector(text, dims as number);
      return { object: "embedding", index, embedding: format === "base64" ? float32Base64(v) : v };
    });
    req.captured.rule = "hash-vectors";
    this.calls.add({
      id: req.captured.id,
      provider: this.name,
      kind: "embeddings",
      model,
      time: req.captured.time,
      stream: false,
      system: "",
      messages: texts.slice(0, 20).map((t) => ({
        role: "user",
        blocks: [{ type: "text", text: t.slice(0, 500) }],
      })),
      tools: [],
      toolChoice: "none",
      forcedTool: null,
      reply: null,
      finish: null,
      error: null,
      inputTokens: tokens,
      outputTokens: 0,
      rule: "hash-vectors",
      embeddings: { inputs: inputs.length, dimensions: dims as number },
    });
    return Response.json(
      { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
      { headers: { "x-request-id": randomId("req_") } },
    );
  }
}
