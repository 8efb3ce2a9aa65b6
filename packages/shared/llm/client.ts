/**
 * `Llm`: every model call of the platform goes through one of its three calls.
 *
 * - `structured(schema, call)`: one answer matching a zod schema. The model is offered one tool
 *   whose input_schema is the schema (as JSON Schema) and is made to call it (a forced tool call);
 *   the input is validated with the schema and then with `call.check` (a domain rule). A malformed
 *   answer (no call, arguments that are not JSON, input failing the schema or the check) is sent
 *   back ONCE with the problem quoted; a second one is `model_bad_output` (502).
 * - `text(call)`: one plain-text answer.
 * - `turn(call, onText)`: one streamed step of a tool-using conversation (the agent loop): text
 *   deltas go to `onText` as they arrive; the reply carries the tool calls.
 *
 * Failures are two codes only (errors.ts): `model_unavailable` (not configured 503; unreachable,
 * timed out or an HTTP error 502, after the SDK's one retry of transient failures) and
 * `model_bad_output`. Every call, each attempt, is accounted once: a CallRecord (provider,
 * model, purpose, attempt, ok, error, tokens, estimated USD cost, latency) goes to the recorder
 * given to the client and to the call's own `onCall`. Features bill credits around their calls
 * with credits/ledger.ts (debit, then refund exactly once when the call throws).
 */
import type { z } from "zod";
import { z as zod } from "zod";
import { type Backend, type BackendReply, type BackendRequest } from "./backends.ts";
import { badOutput, type ModelErrorDetails, notConfigured, providerFailure } from "./errors.ts";
import { costUsd, type LlmProvider, providerModel } from "./models.ts";
import type {
  CallBase,
  CallRecorder,
  LlmContent,
  LlmMessageParam,
  LlmTool,
  Reply,
  StructuredCall,
  StructuredResult,
  TextResult,
  TurnCall,
  Usage,
} from "./types.ts";

export interface LlmOptions {
  /** Null when no provider is configured: every call answers model_unavailable (503). */
  backend: Backend | null;
  /** LLM_MODEL_MAP entries (platform id -> provider model). */
  modelMap?: Record<string, string>;
  /** Receives every call's record. */
  record?: CallRecorder;
  /** What to configure, quoted in the not-configured error. */
  configureHint?: string;
}

const schemaCache = new WeakMap<z.ZodType, { schema: Record<string, unknown>; wrapped: boolean }>();

/** The tool input_schema of a zod schema; a schema that is not an object is wrapped as {value}. */
export function toolInputSchema(schema: z.ZodType): { schema: Record<string, unknown>; wrapped: boolean } {
  let s = schemaCache.get(schema);
  if (!s) {
    const { $schema: _drop, ...raw } = zod.toJSONSchema(schema, {
      io: "input",
      unrepresentable: "any",
    }) as Record<
      string,
      unknown
    >;
    const json = inlineRootRef(raw);
    s = json.type === "object"
      ? { schema: json, wrapped: false }
      : { schema: { type: "object", properties: { value: json }, required: ["value"] }, wrapped: true };
    schemaCache.set(schema, s);
  }
  return s;
}

/**
 * A schema registered with .meta({id}) comes out as a root `$ref` into `$defs`; a tool's
 * input_schema must be the object itself, so the root definition is inlined ($defs kept for
 * nested references).
 */
function inlineRootRef(json: Record<string, unknown>): Record<string, unknown> {
  const ref = typeof json.$ref === "string" ? /^#\/\$defs\/(.+)$/.exec(json.$ref)?.[1] : undefined;
  const defs = json.$defs as Record<string, Record<string, unknown>> | undefined;
  if (!ref || !defs?.[ref]) return json;
  const { $ref: _ref, $defs: _defs, ...rest } = json;
  return { ...defs[ref], ...rest, $defs: defs };
}

function zodProblems(error: z.ZodError): string {
  return error.issues.slice(0, 8).map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ");
}

function textOf(reply: BackendReply): string {
  return reply.content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("");
}

function initialMessages(call: CallBase): LlmMessageParam[] {
  if (call.messages) return [...call.messages];
  const prompt = call.prompt ?? "";
  return [{ role: "user", content: prompt as string | LlmContent[] }];
}

export class Llm {
  readonly #backend: Backend | null;
  readonly #map: Record<string, string>;
  readonly #record?: CallRecorder;
  readonly #hint: string;
  /** Tokens of every call this client made. */
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0 };

  constructor(o: LlmOptions) {
    this.#backend = o.backend;
    this.#map = o.modelMap ?? {};
    this.#record = o.record;
    this.#hint = o.configureHint ?? "set ANTHROPIC_API_KEY, or LLM_PROVIDER=openai with OPENAI_BASE_URL";
  }

  get provider(): LlmProvider | null {
    return this.#backend?.provider ?? null;
  }

  get configured(): boolean {
    return this.#backend !== null;
  }

  /** Throws model_unavailable (503) when no provider is configured; call it before debiting. */
  assertConfigured(purpose: string): void {
    if (!this.#backend) throw notConfigured(purpose, this.#hint);
  }

  /** The provider model id a platform id or model name is sent as. */
  modelId(name: string): string {
    return providerModel(name, this.#backend?.provider ?? "anthropic", this.#map);
  }

  /** A client that also reports to `record` (e.g. per request), sharing the backend. */
  withRecorder(record: CallRecorder): Llm {
    const outer = this.#record;
    return new Llm({
      backend: this.#backend,
      modelMap: this.#map,
      configureHint: this.#hint,
      record: async (r) => {
        await outer?.(r);
        await record(r);
      },
    });
  }

  /** One call to the backend; provider failures are recorded and thrown as model_unavailable. */
  async #send(
    call: CallBase,
    req: Omit<BackendRequest, "model" | "signal" | "maxTokens" | "system" | "timeoutMs">,
    attempt: number,
    onText?: (delta: string) => void,
  ): Promise<
    { reply: BackendReply; account: (ok: boolean, error: string | null) => Promise<number | null> }
  > {
    const backend = this.#backend;
    if (!backend) throw notConfigured(call.purpose, this.#hint);
    const model = this.modelId(call.model);
    const started = performance.now();
    const details: ModelErrorDetails = { provider: backend.provider, model, purpose: call.purpose };
    const full: BackendRequest = {
      ...req,
      model,
      maxTokens: call.maxTokens,
      system: call.system,
      signal: call.signal,
      timeoutMs: call.timeoutMs,
    };
    const account = async (
      ok: boolean,
      error: string | null,
      usage: Usage | null,
    ): Promise<number | null> => {
      const cost = usage ? costUsd(model, usage) : null;
      if (usage) {
        this.usage.input_tokens += usage.input_tokens;
        this.usage.output_tokens += usage.output_tokens;
      }
      const record = {
        provider: backend.provider,
        model,
        purpose: call.purpose,
        attempt,
        ok,
        error,
        input_tokens: usage?.input_tokens ?? null,
        output_tokens: usage?.output_tokens ?? null,
        cost_usd: cost,
        latency_ms: Math.round(performance.now() - started),
      };
      await this.#record?.(record);
      await call.onCall?.(record);
      return cost;
    };
    let reply: BackendReply;
    try {
      reply = onText ? await backend.stream(full, onText) : await backend.create(full);
    } catch (err) {
      const failure = providerFailure(err, details);
      await account(false, (failure as Error).message, null);
      throw failure;
    }
    return { reply, account: (ok, error) => account(ok, error, reply.usage) };
  }

  async structured<S extends z.ZodType>(
    schema: S,
    call: StructuredCall<z.infer<S>>,
  ): Promise<StructuredResult<z.infer<S>>> {
    const { schema: inputSchema, wrapped } = toolInputSchema(schema);
    const tools: LlmTool[] = [{
      name: call.tool,
      description: call.description,
      input_schema: inputSchema as LlmTool["input_schema"],
    }];
    const messages = initialMessages(call);
    const usage: Usage = { input_tokens: 0, output_tokens: 0 };
    let cost: number | null = null;
    let problem = "";
    let model = this.modelId(call.model);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const { reply, account } = await this.#send(
        call,
        { messages, tools, toolChoice: { name: call.tool } },
        attempt,
      );
      usage.input_tokens += reply.usage.input_tokens;
      usage.output_tokens += reply.usage.output_tokens;
      model = reply.model || model;
      const uses = reply.content.filter((b) => b.type === "tool_use");
      const use = uses.find((b) => b.name === call.tool) as { input: Record<string, unknown> } | undefined;
      if (use && reply.problems.length === 0) {
        const parsed = schema.safeParse(wrapped ? use.input.value : use.input);
        problem = parsed.success ? call.check?.(parsed.data) ?? "" : zodProblems(parsed.error);
        if (parsed.success && !problem) {
          const c = await account(true, null);
          cost = c === null ? cost : (cost ?? 0) + c;
          return { value: parsed.data, calls: attempt, usage, cost_usd: cost, model };
        }
      } else {
        problem = reply.problems[0] ??
          `the model did not call ${call.tool} (stop_reason ${reply.stopReason})`;
      }
      const c = await account(false, problem);
      cost = c === null ? cost : (cost ?? 0) + c;
      if (uses.length) {
        messages.push(
          { role: "assistant", content: reply.content },
          {
            role: "user",
            content: uses.map((u) => ({
              type: "tool_result" as const,
              tool_use_id: (u as { id: string }).id,
              is_error: true,
              content: `The input was rejected: ${problem}. Call ${call.tool} again with valid input.`,
            })),
          },
        );
      } else {
        const text = textOf(reply);
        if (text) messages.push({ role: "assistant", content: text });
        messages.push({
          role: "user",
          content: `Your answer was rejected: ${problem}. Answer only by calling the ${call.tool} tool.`,
        });
      }
    }
    throw badOutput({
      provider: this.#backend?.provider ?? "none",
      model,
      purpose: call.purpose,
      attempts: 2,
      problem,
    });
  }

  async text(call: CallBase): Promise<TextResult> {
    const { reply, account } = await this.#send(call, { messages: initialMessages(call) }, 1);
    const cost = await account(true, null);
    return {
      text: textOf(reply),
      stopReason: reply.stopReason,
      usage: reply.usage,
      cost_usd: cost,
      model: reply.model,
    };
  }

  /** One streamed step with tools (see the module doc). */
  async turn(call: TurnCall, onText: (delta: string) => void = () => {}): Promise<Reply> {
    const { reply, account } = await this.#send(
      call,
      {
        messages: initialMessages(call),
        tools: call.tools,
        ...(call.toolChoice && call.tools.length ? { toolChoice: call.toolChoice } : {}),
      },
      1,
      onText,
    );
    const cost = await account(true, reply.problems[0] ?? null);
    return { ...reply, cost_usd: cost };
  }
}
