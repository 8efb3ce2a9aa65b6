/**
 * Scripted replies of the model stand-ins (anthropic.ts, openai.ts): what tests queue in process
 * (`reply(...)`) and what anyone queues over HTTP (POST /_models/script on the sandbox server,
 * see sandbox.ts), given to the next requests in order, a reply naming a model only to a request
 * for that model. One reply is text and/or tool calls, or `malformed` (a forced tool call whose
 * input breaks the tool's schema, or text where a tool call was forced), or `error` (the
 * provider's error JSON with that status); `latencyMs` delays any of them.
 */
import { type BrainRequest, forcedToolOf, think } from "./model_brain.ts";

export interface ModelReply {
  text?: string;
  toolUse?: { name: string; input: Record<string, unknown>; id?: string }[];
  /**
   * true: a forced tool call whose input violates the tool's schema (a required property left out,
   * else a property of the wrong type, else an unexpected one), or text when the schema cannot be
   * broken or no tool is forced; "text": text (broken JSON) instead of the forced tool call.
   */
  malformed?: true | "text";
  /** Answer with the provider's error JSON and this status. */
  error?: { status: number; message?: string };
  /** Wait this long before answering. */
  latencyMs?: number;
  /** Only a request for this model gets the reply. */
  model?: string;
  /** Runs when the request arrives, before this reply is sent (e.g. a change to the database mid-turn). */
  beforeReply?: () => void | Promise<void>;
}

/** A reply as given over HTTP (POST /_models/script) and listed by GET /_models/script. */
export interface WireReply {
  text?: string;
  tool_call?: { name: string; input: Record<string, unknown> } | {
    name: string;
    input: Record<string, unknown>;
  }[];
  malformed?: true | "text";
  error?: { status: number; message?: string };
  latency_ms?: number;
}

const MAX_QUEUED = 500;

/** The queue of scripted replies of one stand-in. */
export class ReplyQueue<R extends ModelReply = ModelReply> {
  #items: (string | R)[] = [];

  push(...replies: (string | R)[]): void {
    if (this.#items.length + replies.length > MAX_QUEUED) {
      throw new ScriptError(`at most ${MAX_QUEUED} replies can be queued per provider`);
    }
    this.#items.push(...replies);
  }

  /** Removes and returns the first reply `model` may get (one naming no model, or this one). */
  take(model: string): string | R | undefined {
    const i = this.#items.findIndex((r) => typeof r === "string" || !r.model || r.model === model);
    return i < 0 ? undefined : this.#items.splice(i, 1)[0];
  }

  get length(): number {
    return this.#items.length;
  }

  /** The queue as GET /_models/script lists it. */
  list(): (WireReply & { model: string | null })[] {
    return this.#items.map((r) => {
      const reply: ModelReply = typeof r === "string" ? { text: r } : r;
      const out: WireReply & { model: string | null } = { model: reply.model ?? null };
      if (reply.text !== undefined) out.text = reply.text;
      if (reply.toolUse?.length) {
        const calls = reply.toolUse.map(({ name, input }) => ({ name, input }));
        out.tool_call = calls.length === 1 ? calls[0] : calls;
      }
      if (reply.malformed) out.malformed = reply.malformed;
      if (reply.error) out.error = reply.error;
      if (reply.latencyMs) out.latency_ms = reply.latencyMs;
      return out;
    });
  }

  clear(): number {
    const n = this.#items.length;
    this.#items = [];
    return n;
  }
}

/** A script request that cannot be queued (answered 400 with this message). */
export class ScriptError extends Error {}

const REPLY_KEYS = new Set(["text", "tool_call", "malformed", "error", "latency_ms"]);
const MAX_LATENCY_MS = 120_000;

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

function toolCall(v: unknown, at: string): { name: string; input: Record<string, unknown> } {
  if (!isObject(v)) throw new ScriptError(`${at}: must be an object {name, input}`);
  if (typeof v.name !== "string" || v.name === "") {
    throw new ScriptError(`${at}.name: must be a non-empty string`);
  }
  const input = v.input ?? {};
  if (!isObject(input)) throw new ScriptError(`${at}.input: must be a JSON object`);
  return { name: v.name, input };
}

/** One HTTP reply (WireReply) checked and turned into a ModelReply. */
export function parseWireReply(v: unknown, at: string, model?: string): ModelReply {
  if (!isObject(v)) throw new ScriptError(`${at}: must be an object`);
  const unknown = Object.keys(v).find((k) => !REPLY_KEYS.has(k));
  if (unknown) throw new ScriptError(`${at}.${unknown}: unknown field (use ${[...REPLY_KEYS].join(", ")})`);
  if (Object.keys(v).length === 0) {
    throw new ScriptError(`${at}: give text, tool_call, malformed, error or latency_ms`);
  }
  const out: ModelReply = {};
  if (model) out.model = model;
  if (v.text !== undefined) {
    if (typeof v.text !== "string") throw new ScriptError(`${at}.text: must be a string`);
    out.text = v.text;
  }
  if (v.tool_call !== undefined) {
    const calls = Array.isArray(v.tool_call) ? v.tool_call : [v.tool_call];
    if (calls.length === 0) throw new ScriptError(`${at}.tool_call: must not be an empty list`);
    out.toolUse = calls.map((c, i) =>
      toolCall(c, Array.isArray(v.tool_call) ? `${at}.tool_call.${i}` : `${at}.tool_call`)
    );
  }
  const content = out.text !== undefined || out.toolUse !== undefined;
  if (v.malformed !== undefined) {
    if (v.malformed !== true && v.malformed !== "text") {
      throw new ScriptError(`${at}.malformed: must be true or "text"`);
    }
    if (content) throw new ScriptError(`${at}: malformed cannot be combined with text or tool_call`);
    out.malformed = v.malformed;
  }
  if (v.error !== undefined) {
    const e = v.error;
    if (!isObject(e)) throw new ScriptError(`${at}.error: must be an object {status, message?}`);
    if (!Number.isInteger(e.status) || (e.status as number) < 400 || (e.status as number) > 599) {
      throw new ScriptError(`${at}.error.status: must be an HTTP error status (400-599)`);
    }
    if (e.message !== undefined && typeof e.message !== "string") {
      throw new ScriptError(`${at}.error.message: must be a string`);
    }
    if (content || out.malformed) {
      throw new ScriptError(`${at}: error cannot be combined with text, tool_call or malformed`);
    }
    out.error = {
      status: e.status as number,
      ...(e.message !== undefined ? { message: e.message as string } : {}),
    };
  }
  if (v.latency_ms !== undefined) {
    if (
      !Number.isInteger(v.latency_ms) || (v.latency_ms as number) < 0 ||
      (v.latency_ms as number) > MAX_LATENCY_MS
    ) {
      throw new ScriptError(`${at}.latency_ms: must be an integer from 0 to ${MAX_LATENCY_MS}`);
    }
    out.latencyMs = v.latency_ms as number;
  }
  return out;
}

/** The body of POST /_models/script: {provider, model?, replies: [...]}. */
export function parseScriptRequest(
  body: unknown,
  providers: readonly string[],
): { provider: string; model?: string; replies: ModelReply[] } {
  if (!isObject(body)) throw new ScriptError("body: must be a JSON object {provider, model?, replies}");
  if (typeof body.provider !== "string" || !providers.includes(body.provider)) {
    throw new ScriptError(`provider: must be one of ${providers.join(", ")}`);
  }
  if (body.model !== undefined && (typeof body.model !== "string" || body.model === "")) {
    throw new ScriptError("model: must be a non-empty string when given");
  }
  if (!Array.isArray(body.replies) || body.replies.length === 0) {
    throw new ScriptError("replies: must be a non-empty list");
  }
  const model = body.model as string | undefined;
  return {
    provider: body.provider,
    ...(model ? { model } : {}),
    replies: body.replies.map((r, i) => parseWireReply(r, `replies.${i}`, model)),
  };
}

/** The form on the sandbox page (model_viewer.ts) as a script request body. */
export function scriptFromForm(form: URLSearchParams): unknown {
  const field = (n: string) => (form.get(n) ?? "").trim();
  const reply: Record<string, unknown> = {};
  switch (field("kind")) {
    case "text":
      reply.text = form.get("text") ?? "";
      break;
    case "tool_call": {
      let input: unknown = {};
      if (field("tool_input")) {
        try {
          input = JSON.parse(field("tool_input"));
        } catch (err) {
          throw new ScriptError(`tool_input: not valid JSON (${(err as Error).message})`);
        }
      }
      reply.tool_call = { name: field("tool_name"), input };
      break;
    }
    case "malformed":
      reply.malformed = true;
      break;
    case "malformed_text":
      reply.malformed = "text";
      break;
    case "error":
      reply.error = {
        status: Number(field("status")),
        ...(field("message") ? { message: field("message") } : {}),
      };
      break;
    case "latency":
      break;
    default:
      throw new ScriptError("kind: must be text, tool_call, malformed, malformed_text, error or latency");
  }
  if (field("latency_ms")) reply.latency_ms = Number(field("latency_ms"));
  return {
    provider: field("provider"),
    ...(field("model") ? { model: field("model") } : {}),
    replies: [reply],
  };
}

type Schema = Record<string, unknown>;

/** `valid` changed so that it breaks `schema`, or null when this schema accepts any object. */
export function violatingInput(
  schema: Schema,
  valid: Record<string, unknown>,
): Record<string, unknown> | null {
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === "string") : [];
  if (required.length) {
    const out = { ...valid };
    delete out[required[0]];
    return out;
  }
  const props = isObject(schema.properties) ? schema.properties : {};
  for (const [key, sub] of Object.entries(props)) {
    if (!isObject(sub)) continue;
    if (Array.isArray(sub.enum)) return { ...valid, [key]: "sandbox-value-outside-the-enum" };
    const type = Array.isArray(sub.type) ? sub.type[0] : sub.type;
    if (typeof type === "string") return { ...valid, [key]: type === "string" ? 12345 : `not a ${type}` };
  }
  if (schema.additionalProperties === false) return { ...valid, sandbox_unexpected_field: true };
  return null;
}

/** What a malformed reply is when it is text: not a tool call, and not valid JSON either. */
export const MALFORMED_TEXT = '{"sandbox": "scripted malformed reply", "cut_off_here": [';

/** The reply a scripted `malformed` gives to `req` (see ModelReply.malformed). */
export function malformedReply(req: BrainRequest, mode: true | "text"): Pick<ModelReply, "text" | "toolUse"> {
  const tool = forcedToolOf(req);
  if (tool && mode === true) {
    const valid = think(req).toolUse?.find((c) => c.name === tool.name)?.input ?? {};
    const broken = violatingInput(tool.input_schema, valid);
    if (broken) return { toolUse: [{ name: tool.name, input: broken }] };
  }
  return { text: MALFORMED_TEXT };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a model stand-in answers a request with: the provider's error, or a reply and the rule behind it. */
export type NextAnswer =
  | { error: { status: number; message: string } }
  | { reply: Pick<ModelReply, "text" | "toolUse">; rule: string };

/**
 * The answer to one request, the same for every model stand-in: the next scripted reply for `model`
 * (after its beforeReply and latency): an error, a malformed answer, or text/tool calls as scripted;
 * with nothing scripted, the stand-in's `unscripted` answer (the sandbox model) and its rule.
 */
export async function nextAnswer(
  queue: ReplyQueue,
  provider: string,
  model: string,
  request: () => BrainRequest,
  unscripted: () => Pick<ModelReply, "text" | "toolUse"> & { rule?: string },
): Promise<NextAnswer> {
  const taken = queue.take(model);
  const scripted: ModelReply | undefined = typeof taken === "string" ? { text: taken } : taken;
  if (scripted?.beforeReply) await scripted.beforeReply();
  if (scripted?.latencyMs) await sleep(scripted.latencyMs);
  if (scripted?.error) {
    const { status } = scripted.error;
    return {
      error: {
        status,
        message: scripted.error.message ?? `Scripted failure (HTTP ${status}) from the ${provider} sandbox`,
      },
    };
  }
  if (scripted?.malformed) {
    return { reply: malformedReply(request(), scripted.malformed), rule: "scripted:malformed" };
  }
  if (scripted && (scripted.text !== undefined || scripted.toolUse)) {
    return { reply: scripted, rule: "scripted" };
  }
  const answer = unscripted();
  return { reply: answer, rule: answer.rule ?? "unscripted" };
}
