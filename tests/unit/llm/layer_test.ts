/**
 * The model layer (packages/shared/llm/) against both model stand-ins, each through its
 * provider's official SDK: structured answers (forced tool call, one retry with the problem
 * quoted, model_bad_output), text, the streamed tool turn, the two error codes, the model map and
 * the per-call records. No platform boot: a sandbox with the two stand-ins only.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { Sandbox } from "../../../stack/sandbox/sandbox.ts";
import { PROVIDERS } from "../../../stack/sandbox/registry.ts";
import { type CallRecord, isModelError, type Llm, llmFromEnv } from "../../../packages/shared/llm/mod.ts";
import { DomainError } from "../../../packages/shared/errors.ts";

type Kind = "anthropic" | "openai";

async function withSandbox(
  fn: (s: Sandbox, llm: (kind: Kind, extra?: Record<string, string>) => Llm) => Promise<void>,
) {
  const sandbox = Sandbox.start({
    providers: PROVIDERS.filter((d) => d.name === "anthropic" || d.name === "openai"),
  });
  const settings = (kind: Kind, extra: Record<string, string> = {}) => {
    const vars: Record<string, string> = kind === "anthropic"
      ? { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: sandbox.get("anthropic").baseUrl }
      : { LLM_PROVIDER: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: sandbox.get("openai").baseUrl };
    return { ...vars, ...extra };
  };
  try {
    await fn(sandbox, (kind, extra) => {
      const vars = settings(kind, extra);
      return llmFromEnv((n) => vars[n] || undefined);
    });
  } finally {
    await sandbox.stop();
  }
}

const Verdict = z.object({
  label: z.enum(["price_list", "catalogue", "certificate"]),
  confidence: z.number().min(0).max(1),
});

for (const kind of ["anthropic", "openai"] as const) {
  Deno.test(`${kind}: structured() is a forced tool call validated by the schema`, async () => {
    await withSandbox(async (s, make) => {
      const records: CallRecord[] = [];
      const llm = make(kind).withRecorder((r) => void records.push(r));
      s.get(kind).reply({
        toolUse: [{ name: "classify", input: { label: "price_list", confidence: 0.93 } }],
      });
      const r = await llm.structured(Verdict, {
        model: "vendor-sonnet-4-5",
        system: "Classify the document.",
        prompt: "Price list 2026, trade prices per m2",
        maxTokens: 200,
        purpose: "Document classification",
        tool: "classify",
        description: "The document's class",
      });
      assert.deepEqual(r.value, { label: "price_list", confidence: 0.93 });
      assert.equal(r.calls, 1);
      assert.equal(r.model, kind === "anthropic" ? "claude-sonnet-4-6" : "gpt-5");
      assert.ok(r.usage.input_tokens > 0);
      assert.equal(records.length, 1);
      assert.equal(records[0].ok, true);
      assert.equal(records[0].provider, kind);
      assert.equal(records[0].purpose, "Document classification");
      // What reached the provider: the schema as the forced tool.
      const sent = s.get(kind).captures.requests().at(-1)!.body as Record<string, unknown>;
      if (kind === "anthropic") {
        assert.deepEqual(sent.tool_choice, { type: "tool", name: "classify" });
        const tool = (sent.tools as { name: string; input_schema: { properties: object } }[])[0];
        assert.deepEqual(Object.keys(tool.input_schema.properties), ["label", "confidence"]);
      } else {
        assert.deepEqual(sent.tool_choice, { type: "function", function: { name: "classify" } });
        const tool = (sent.tools as { function: { name: string; parameters: { properties: object } } }[])[0];
        assert.equal(tool.function.name, "classify");
        assert.deepEqual(Object.keys(tool.function.parameters.properties), ["label", "confidence"]);
        assert.equal((sent.messages as { role: string }[])[0].role, "system");
      }
    });
  });

  Deno.test(`${kind}: a malformed answer is retried once with the problem quoted, then model_bad_output`, async () => {
    await withSandbox(async (s, make) => {
      const llm = make(kind);
      const call = {
        model: "vendor-haiku-4-5",
        prompt: "Certificate of conformity",
        maxTokens: 200,
        purpose: "Document classification",
        tool: "classify",
        description: "The document's class",
      };
      s.get(kind).reply(
        { toolUse: [{ name: "classify", input: { label: "poem", confidence: 2 } }] },
        { toolUse: [{ name: "classify", input: { label: "certificate", confidence: 0.8 } }] },
      );
      const ok = await llm.structured(Verdict, call);
      assert.equal(ok.calls, 2);
      assert.equal(ok.value.label, "certificate");
      const retry = s.get(kind).captures.requests().at(-1)!.body as { messages: unknown[] };
      assert.match(JSON.stringify(retry.messages), /rejected: label: Invalid option/);

      s.get(kind).reply("I think it is a certificate.", { text: "Still prose." });
      const err = await llm.structured(Verdict, call).then(() => null, (e) => e);
      assert.ok(err instanceof DomainError && isModelError(err));
      assert.equal(err.code, "model_bad_output");
      assert.equal(err.kind, "upstream");
      assert.match(err.message, /^Document classification: the model's answer was unusable 2 times/);
      assert.equal((err.details as { attempts: number }).attempts, 2);

      // A domain check counts like the schema.
      s.get(kind).reply(
        { toolUse: [{ name: "classify", input: { label: "catalogue", confidence: 0.5 } }] },
        { toolUse: [{ name: "classify", input: { label: "catalogue", confidence: 0.9 } }] },
      );
      const checked = await llm.structured(Verdict, {
        ...call,
        check: (v) => v.confidence < 0.7 ? `confidence ${v.confidence} is below 0.7` : null,
      });
      assert.equal(checked.calls, 2);
      assert.match(
        JSON.stringify(s.get(kind).captures.requests().at(-1)!.body),
        /confidence 0.5 is below 0.7/,
      );
    });
  });

  Deno.test(`${kind}: provider failures are model_unavailable with the provider's message; none configured is 503`, async () => {
    await withSandbox(async (s, make) => {
      const records: CallRecord[] = [];
      const llm = make(kind).withRecorder((r) => void records.push(r));
      s.get(kind).failNext(500, { times: 2, message: "upstream exploded" });
      const err = await llm.text({
        model: "vendor-haiku-4-5",
        prompt: "hi",
        maxTokens: 50,
        purpose: "Prompt test",
      })
        .then(() => null, (e) => e);
      assert.ok(err instanceof DomainError);
      assert.equal(err.code, "model_unavailable");
      assert.equal(err.kind, "upstream");
      assert.equal(err.message, "Prompt test: the model provider answered HTTP 500");
      const d = err.details as Record<string, unknown>;
      assert.equal(d.provider_status, 500);
      assert.match(String(d.provider_message), /upstream exploded/);
      assert.equal(s.get(kind).captures.requests().length, 2, "the SDK retried once");
      assert.deepEqual(records.map((r) => r.ok), [false]);

      const none = llmFromEnv(() => undefined);
      const e2 = await none.text({
        model: "vendor-haiku-4-5",
        prompt: "hi",
        maxTokens: 50,
        purpose: "Prompt test",
      })
        .then(() => null, (e) => e);
      assert.ok(e2 instanceof DomainError);
      assert.equal(e2.code, "model_unavailable");
      assert.equal(e2.kind, "unavailable");
      assert.equal((e2.details as { reason: string }).reason, "not_configured");
    });
  });

  Deno.test(`${kind}: turn() streams text and returns tool calls; LLM_MODEL_MAP picks the server's model`, async () => {
    await withSandbox(async (s, make) => {
      const llm = make(kind, { LLM_MODEL_MAP: "vendor-sonnet-4-5=claude-opus-4-6" });
      s.get(kind).reply({
        text: "Let me look that up.",
        toolUse: [{ name: "price_lookup", input: { product_name: "Oak Parquet", quantity: 40, unit: "m2" } }],
      });
      let streamed = "";
      const reply = await llm.turn({
        model: "vendor-sonnet-4-5",
        system: "You price products.",
        messages: [{ role: "user", content: "How much is Oak Parquet for 40 m2?" }],
        tools: [{
          name: "price_lookup",
          description: "Price a product",
          input_schema: { type: "object", properties: { product_name: { type: "string" } } },
        }],
        maxTokens: 500,
        purpose: "agent-chat",
      }, (d) => streamed += d);
      assert.equal(streamed, "Let me look that up.");
      assert.equal(reply.stopReason, "tool_use");
      const call = reply.content.find((b) => b.type === "tool_use");
      assert.deepEqual(call && call.type === "tool_use" ? call.input : null, {
        product_name: "Oak Parquet",
        quantity: 40,
        unit: "m2",
      });
      assert.equal(
        (s.get(kind).captures.requests().at(-1)!.body as { model: string }).model,
        "claude-opus-4-6",
      );

      // The tool result goes back in the provider's own shape, and the answer is text.
      s.get(kind).reply("Oak Parquet costs 42.50 EUR per m2.");
      const next = await llm.turn({
        model: "vendor-sonnet-4-5",
        messages: [
          { role: "user", content: "How much is Oak Parquet for 40 m2?" },
          { role: "assistant", content: reply.content },
          {
            role: "user",
            content: [{
              type: "tool_result",
              tool_use_id: (call as { id: string }).id,
              content: "42.50 EUR/m2",
            }],
          },
        ],
        tools: [],
        maxTokens: 500,
        purpose: "agent-chat",
      });
      assert.equal(next.stopReason, "end_turn");
      const sent = JSON.stringify(s.get(kind).captures.requests().at(-1)!.body);
      assert.match(sent, kind === "anthropic" ? /"tool_result"/ : /"role":"tool"/);
    });
  });
}

Deno.test("openai: a tool call whose arguments are not JSON is a malformed answer", async () => {
  await withSandbox(async (s, make) => {
    const llm = make("openai");
    s.get("openai").reply({ malformed: "text" }, { malformed: "text" });
    const err = await llm.structured(Verdict, {
      model: "vendor-haiku-4-5",
      prompt: "Certificate",
      maxTokens: 100,
      purpose: "Document classification",
      tool: "classify",
      description: "class",
    }).then(() => null, (e) => e);
    assert.ok(err instanceof DomainError);
    assert.equal(err.code, "model_bad_output");
  });
});

Deno.test("toolInputSchema: a schema registered with an id is the object itself; non-objects are wrapped", async () => {
  const { toolInputSchema } = await import("../../../packages/shared/llm/mod.ts");
  const Named = z.object({ a: z.string().describe("the a") }).meta({
    id: "LayerTestNamed",
    description: "d",
  });
  const named = toolInputSchema(Named);
  assert.equal(named.wrapped, false);
  assert.equal(named.schema.type, "object");
  assert.deepEqual(named.schema.required, ["a"]);
  assert.equal((named.schema.properties as { a: { description: string } }).a.description, "the a");
  const list = toolInputSchema(z.array(z.string()));
  assert.equal(list.wrapped, true);
  assert.deepEqual(list.schema.required, ["value"]);
});

Deno.test("a call past its time limit is model_unavailable (unreachable, no provider status)", async () => {
  await withSandbox(async (s, make) => {
    const llm = make("anthropic");
    // Scripted latency on both attempts (the SDK retries a timeout once).
    s.get("anthropic").reply({ text: "late", latencyMs: 400 }, { text: "late", latencyMs: 400 });
    const err = await llm.text({
      model: "vendor-haiku-4-5",
      prompt: "hi",
      maxTokens: 20,
      purpose: "Prompt test",
      timeoutMs: 100,
    }).then(() => null, (e) => e);
    assert.ok(err instanceof DomainError);
    assert.equal(err.code, "model_unavailable");
    assert.equal(err.message, "Prompt test: the model provider could not be reached");
    assert.equal((err.details as { provider_status: unknown }).provider_status, null);
  });
});
