/**
 * The model layer's per-call overhead: `llm.structured(schema, ...)` (JSON Schema of the zod
 * schema, forced tool call, validation, the call record) against the same forced tool call made
 * directly with the official SDK and parsed with the same zod schema, in one process, interleaved
 * call by call so both see the same machine. Two transports:
 *
 * - in-process: the SDKs' `fetch` answers at once from memory (the overhead alone);
 * - sandbox: the model stand-in over HTTP on 127.0.0.1 (what a local call costs end to end).
 *
 *   deno run -A bench/llm_layer.ts [--calls 2000]
 */
import { parseArgs } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { z } from "zod";
import { llmFromEnv, toolInputSchema } from "../packages/shared/llm/mod.ts";
import { Sandbox } from "../stack/sandbox/sandbox.ts";
import { PROVIDERS } from "../stack/sandbox/registry.ts";
import { percentile } from "./lib.ts";

const { values } = parseArgs({ args: Deno.args, options: { calls: { type: "string", default: "2000" } } });
const calls = Number(values.calls);

const Schema = z.object({
  document_type: z.enum(["price_list", "catalogue", "certificate", "datasheet"]),
  confidence: z.number().min(0).max(1),
  products: z.array(z.object({ name: z.string(), sku: z.string().optional() })).max(20),
});
const input = {
  document_type: "price_list",
  confidence: 0.92,
  products: [{ name: "Oak Parquet", sku: "SKU-123" }, { name: "Slate Tile" }],
};
const prompt = "Trade price list 2026. Oak Parquet SKU-123 42.50 EUR/m2. Slate Tile 31.00 EUR/m2.";

const anthropicAnswer = JSON.stringify({
  id: "msg_bench",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5",
  content: [{ type: "tool_use", id: "toolu_bench", name: "classify", input }],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 120, output_tokens: 40 },
});
const openaiAnswer = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 0,
  model: "gpt-5-mini",
  choices: [{
    index: 0,
    finish_reason: "tool_calls",
    message: {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "classify", arguments: JSON.stringify(input) },
      }],
    },
  }],
  usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
});
const memoryFetch = (body: string): typeof fetch => (_url, init) => {
  if (init?.body && typeof init.body !== "string") throw new Error("unexpected body");
  return Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } }));
};

type Direct = () => Promise<unknown>;

function directAnthropic(client: Anthropic): Direct {
  const { schema } = toolInputSchema(Schema);
  return async () => {
    const msg = await client.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 300,
      system: "Classify the document.",
      messages: [{ role: "user", content: prompt }],
      tools: [{
        name: "classify",
        description: "The class",
        input_schema: schema as Anthropic.Tool.InputSchema,
      }],
      tool_choice: { type: "tool", name: "classify" },
    });
    const use = msg.content.find((b) => b.type === "tool_use");
    return Schema.parse(use && use.type === "tool_use" ? use.input : null);
  };
}

function directOpenAi(client: OpenAI): Direct {
  const { schema } = toolInputSchema(Schema);
  return async () => {
    const res = await client.chat.completions.create({
      model: "gpt-5-mini",
      max_completion_tokens: 300,
      messages: [{ role: "system", content: "Classify the document." }, { role: "user", content: prompt }],
      tools: [{
        type: "function",
        function: { name: "classify", description: "The class", parameters: schema },
      }],
      tool_choice: { type: "function", function: { name: "classify" } },
    });
    const call = res.choices[0].message.tool_calls?.[0];
    return Schema.parse(JSON.parse(call && call.type === "function" ? call.function.arguments : "null"));
  };
}

async function measure(label: string, direct: Direct, layer: Direct, n = calls, unit: "us" | "ms" = "us") {
  for (let i = 0; i < 50; i++) {
    await direct();
    await layer();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    // Interleaved, alternating which goes first.
    const pair: [Direct, number[]][] = i % 2 ? [[direct, a], [layer, b]] : [[layer, b], [direct, a]];
    for (const [fn, out] of pair) {
      const t = performance.now();
      await fn();
      out.push(performance.now() - t);
    }
  }
  a.sort((x, y) => x - y);
  b.sort((x, y) => x - y);
  const f = (v: number) => unit === "us" ? `${(v * 1000).toFixed(0)}us` : `${v.toFixed(2)}ms`;
  const [a50, a99, b50, b99] = [percentile(a, 50), percentile(a, 99), percentile(b, 50), percentile(b, 99)];
  console.log(
    `${label.padEnd(30)} n=${n} direct p50=${f(a50)} p99=${f(a99)} | layer p50=${f(b50)} p99=${f(b99)} | ` +
      `overhead p50=${f(b50 - a50)} p99=${f(b99 - a99)} (x${(b50 / a50).toFixed(2)})`,
  );
}

console.log(`cores=${navigator.hardwareConcurrency} calls=${calls} (each side, interleaved)`);

const structured = (llm: ReturnType<typeof llmFromEnv>, model: string): Direct => () =>
  llm.structured(Schema, {
    model,
    system: "Classify the document.",
    prompt,
    maxTokens: 300,
    purpose: "bench",
    tool: "classify",
    description: "The class",
  });

{
  const fetchA = memoryFetch(anthropicAnswer);
  const settings: Record<string, string> = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://memory" };
  const llm = llmFromEnv((n) => settings[n], { fetch: fetchA, record: () => {} });
  const client = new Anthropic({ apiKey: "k", baseURL: "http://memory", maxRetries: 1, fetch: fetchA });
  await measure("anthropic, in-process fetch", directAnthropic(client), structured(llm, "vendor-haiku-4-5"));
}
{
  const fetchO = memoryFetch(openaiAnswer);
  const settings: Record<string, string> = {
    LLM_PROVIDER: "openai",
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: "http://memory/v1",
  };
  const llm = llmFromEnv((n) => settings[n], { fetch: fetchO, record: () => {} });
  const client = new OpenAI({ apiKey: "k", baseURL: "http://memory/v1", maxRetries: 1, fetch: fetchO });
  await measure("openai, in-process fetch", directOpenAi(client), structured(llm, "vendor-haiku-4-5"));
}

const sandbox = Sandbox.start({
  providers: PROVIDERS.filter((d) => d.name === "anthropic" || d.name === "openai"),
});
try {
  const a = sandbox.get("anthropic");
  const o = sandbox.get("openai");
  // The stand-ins answer unscripted forced tool calls from the sandbox model; both sides get the same request.
  const settingsA: Record<string, string> = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: a.baseUrl };
  const llmA = llmFromEnv((n) => settingsA[n]);
  const clientA = new Anthropic({ apiKey: "k", baseURL: a.baseUrl, maxRetries: 1 });
  const settingsO: Record<string, string> = {
    LLM_PROVIDER: "openai",
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: o.baseUrl,
  };
  const llmO = llmFromEnv((n) => settingsO[n]);
  const clientO = new OpenAI({ apiKey: "k", baseURL: o.baseUrl, maxRetries: 1 });
  // Captures are cleared per call so the stand-ins' logs do not grow during the run.
  const wrap = (fn: Direct): Direct => () => {
    a.captures.clear();
    o.captures.clear();
    return fn();
  };
  const few = Math.min(calls, 500);
  await measure(
    "anthropic, sandbox over HTTP",
    wrap(directAnthropic(clientA)),
    wrap(structured(llmA, "vendor-haiku-4-5")),
    few,
    "ms",
  );
  await measure(
    "openai, sandbox over HTTP",
    wrap(directOpenAi(clientO)),
    wrap(structured(llmO, "vendor-haiku-4-5")),
    few,
    "ms",
  );
} finally {
  await sandbox.stop();
}
