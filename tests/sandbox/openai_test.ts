/**
 * The OpenAI stand-in, driven by the official `openai` SDK the way code drives any
 * OpenAI-compatible server: chat completions plain and streamed (text and tool call deltas),
 * forced tool calls answered by the sandbox model, max_tokens, embeddings in float and base64,
 * OpenAI's error JSON, and the platform's environment pointing at it.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { Sandbox } from "../../stack/sandbox/sandbox.ts";
import { PROVIDERS } from "../../stack/sandbox/registry.ts";
import type { OpenAIStandIn } from "../../stack/sandbox/providers/openai.ts";
import { platformTest } from "../helpers/platform.ts";
import { env, runWithEnv } from "@shared/env.ts";
import { embeddingsFromEnv } from "@shared/embeddings/mod.ts";

const MODEL = "gpt-4o-mini";

async function withOpenAI(
  fn: (ctx: { sandbox: Sandbox; llm: OpenAIStandIn; client: OpenAI }) => Promise<void>,
): Promise<void> {
  const sandbox = Sandbox.start({ providers: PROVIDERS.filter((d) => d.name === "openai") });
  try {
    const llm = sandbox.get("openai");
    await fn({
      sandbox,
      llm,
      client: new OpenAI({ baseURL: llm.baseUrl, apiKey: "sk-test-key", maxRetries: 0 }),
    });
  } finally {
    await sandbox.stop();
  }
}

const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 } },
      required: ["city", "days"],
      additionalProperties: false,
    },
  },
};

Deno.test("openai stand-in: the base URL includes /v1, as the SDK expects", async () => {
  await withOpenAI(async ({ sandbox, llm, client }) => {
    assert.equal(llm.baseUrl, `${sandbox.url}/openai/v1`);
    await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
    assert.equal(llm.captures.last()?.path, "/v1/chat/completions");
  });
});

Deno.test("openai stand-in: a scripted text reply with usage, not streamed", async () => {
  await withOpenAI(async ({ llm, client }) => {
    llm.reply("Hello there, world!");
    const r = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Say hi to the world" }],
    });
    assert.match(r.id, /^chatcmpl-/);
    assert.equal(r.object, "chat.completion");
    assert.equal(r.model, MODEL);
    assert.equal(r.choices.length, 1);
    assert.deepEqual(r.choices[0].message.role, "assistant");
    assert.equal(r.choices[0].message.content, "Hello there, world!");
    assert.equal(r.choices[0].message.tool_calls, undefined);
    assert.equal(r.choices[0].finish_reason, "stop");
    assert.equal(r.usage?.prompt_tokens, 5); // Say hi to the world
    assert.equal(r.usage?.completion_tokens, 5); // Hello there , world !
    assert.equal(r.usage?.total_tokens, 10);
    assert.equal(llm.captures.last()?.rule, "scripted");
    assert.equal(llm.calls.all()[0].rule, "scripted");
  });
});

Deno.test("openai stand-in: unscripted, the sandbox model answers and the capture names its rule", async () => {
  await withOpenAI(async ({ llm, client }) => {
    const r = await client.chat.completions.create({
      model: "llama-3.1-8b-instruct", // a local server's model: any name is served
      messages: [
        { role: "system", content: "You are terse." },
        {
          role: "user",
          content: [{ type: "text", text: "who are you?" }, {
            type: "image_url",
            image_url: { url: "data:image/png;base64,iVBORw0KGgo=" },
          }],
        },
      ],
    });
    assert.equal(r.model, "llama-3.1-8b-instruct");
    assert.equal(typeof r.choices[0].message.content, "string");
    assert.ok(r.choices[0].message.content!.length > 0);
    const [call] = llm.calls.all();
    assert.ok(call.rule && call.rule !== "scripted", call.rule);
    assert.equal(llm.captures.last()?.rule, call.rule);
    assert.equal(call.system, "You are terse.");
    assert.deepEqual(call.messages, [{
      role: "user",
      blocks: [{ type: "text", text: "who are you?" }, { type: "image" }],
    }]);
  });
});

Deno.test("openai stand-in: a forced tool call gets arguments valid against the parameters", async () => {
  await withOpenAI(async ({ llm, client }) => {
    for (
      const tool_choice of [
        { type: "function" as const, function: { name: "get_weather" } },
        "required" as const,
      ]
    ) {
      const r = await client.chat.completions.create({
        model: MODEL,
        tools: [WEATHER_TOOL],
        tool_choice,
        messages: [{ role: "user", content: "Weather in Paris for three days?" }],
      });
      const choice = r.choices[0];
      assert.equal(choice.finish_reason, "tool_calls");
      assert.equal(choice.message.content, null);
      assert.equal(choice.message.tool_calls?.length, 1);
      const call = choice.message.tool_calls![0];
      assert.equal(call.type, "function");
      assert.match(call.id, /^call_/);
      if (call.type !== "function") return;
      assert.equal(call.function.name, "get_weather");
      const args = JSON.parse(call.function.arguments);
      assert.deepEqual(Object.keys(args).sort(), ["city", "days"]);
      assert.equal(typeof args.city, "string");
      assert.ok(Number.isInteger(args.days) && args.days >= 1 && args.days <= 7);
    }
    const calls = llm.calls.all();
    assert.equal(calls[0].forcedTool, "get_weather");
    assert.equal(calls[0].toolChoice, "tool");
    assert.equal(calls[1].toolChoice, "any");
    assert.deepEqual(calls[0].tools.map((t) => t.name), ["get_weather"]);
  });
});

Deno.test("openai stand-in: a tool round trip reads the assistant's calls and the tool results", async () => {
  await withOpenAI(async ({ llm, client }) => {
    llm.reply("Sunny, 24 degrees.");
    const r = await client.chat.completions.create({
      model: MODEL,
      tools: [WEATHER_TOOL],
      messages: [
        { role: "user", content: "Weather in Nice?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Nice","days":1}' },
          }],
        },
        { role: "tool", tool_call_id: "call_1", content: "sunny, 24C" },
      ],
    });
    assert.equal(r.choices[0].message.content, "Sunny, 24 degrees.");
    assert.deepEqual(llm.calls.all()[0].messages.slice(1), [
      {
        role: "assistant",
        blocks: [{ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Nice", days: 1 } }],
      },
      { role: "user", blocks: [{ type: "tool_result", tool_use_id: "call_1", content: "sunny, 24C" }] },
    ]);
  });
});

Deno.test("openai stand-in: streamed text and tool call deltas, with a final usage chunk", async () => {
  await withOpenAI(async ({ llm, client }) => {
    llm.reply({
      text: "Let me check that.",
      toolUse: [{ name: "get_weather", input: { city: "Lyon", days: 2 } }],
    });
    const stream = await client.chat.completions.create({
      model: MODEL,
      tools: [WEATHER_TOOL],
      messages: [{ role: "user", content: "Weather in Lyon?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.ok(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0].id));
    assert.equal(chunks[0].choices[0].delta.role, "assistant");
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    assert.equal(text, "Let me check that.");
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    assert.equal(deltas[0].index, 0);
    assert.match(deltas[0].id ?? "", /^call_/);
    assert.equal(deltas[0].function?.name, "get_weather");
    assert.ok(deltas.length > 2, "the arguments arrive in pieces");
    assert.deepEqual(JSON.parse(deltas.map((d) => d.function?.arguments ?? "").join("")), {
      city: "Lyon",
      days: 2,
    });
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    assert.equal(finish?.choices[0].finish_reason, "tool_calls");
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal(
      last.usage?.prompt_tokens,
      4 + 0 + JSON.stringify([WEATHER_TOOL]).match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)!.length,
    );
    assert.ok((last.usage?.completion_tokens ?? 0) > 0);
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
    assert.equal(llm.calls.all()[0].stream, true);

    // The SDK's stream helper assembles the same message.
    llm.reply({ toolUse: [{ name: "get_weather", input: { city: "Lyon", days: 2 } }] });
    const final = await client.chat.completions.stream({
      model: MODEL,
      tools: [WEATHER_TOOL],
      messages: [{ role: "user", content: "Weather in Lyon?" }],
    }).finalChatCompletion();
    assert.equal(final.choices[0].finish_reason, "tool_calls");
    const call = final.choices[0].message.tool_calls?.[0];
    assert.equal(call?.type === "function" && call.function.arguments, '{"city":"Lyon","days":2}');
  });
});

Deno.test("openai stand-in: max_completion_tokens cuts the reply with finish_reason length", async () => {
  await withOpenAI(async ({ llm, client }) => {
    llm.reply("one two three four five six");
    const r = await client.chat.completions.create({
      model: MODEL,
      max_completion_tokens: 3,
      messages: [{ role: "user", content: "count" }],
    });
    assert.equal(r.choices[0].message.content, "one two three");
    assert.equal(r.choices[0].finish_reason, "length");
    assert.equal(r.usage?.completion_tokens, 3);
  });
});

Deno.test("openai stand-in: embeddings as floats and as the SDK's default base64 agree", async () => {
  await withOpenAI(async ({ llm, client }) => {
    const floats = await client.embeddings.create({
      model: "text-embedding-3-small",
      input: ["a red chair", "a blue table"],
      dimensions: 8,
      encoding_format: "float",
    });
    assert.equal(floats.object, "list");
    assert.equal(floats.model, "text-embedding-3-small");
    assert.equal(floats.data.length, 2);
    assert.deepEqual(floats.data.map((d) => [d.object, d.index]), [["embedding", 0], ["embedding", 1]]);
    assert.equal(floats.usage.prompt_tokens, 6);
    assert.equal(floats.usage.total_tokens, 6);
    for (const d of floats.data) {
      assert.equal(d.embedding.length, 8);
      assert.ok(Math.abs(Math.hypot(...d.embedding) - 1) < 1e-9, "unit length");
    }
    assert.notDeepEqual(floats.data[0].embedding, floats.data[1].embedding);

    // The SDK asks for base64 by default and decodes little-endian float32.
    const b64 = await client.embeddings.create({
      model: "text-embedding-3-small",
      input: "a red chair",
      dimensions: 8,
    });
    assert.equal(
      (llm.captures.requests().at(-1)!.body as { encoding_format?: string }).encoding_format,
      "base64",
    );
    assert.equal(b64.data[0].embedding.length, 8);
    b64.data[0].embedding.forEach((x, i) => assert.ok(Math.abs(x - floats.data[0].embedding[i]) < 1e-6));

    // Without dimensions: the model's own (1536 for text-embedding-3-small).
    const full = await client.embeddings.create({ model: "text-embedding-3-small", input: "x" });
    assert.equal(full.data[0].embedding.length, 1536);
    assert.equal(llm.calls.all().at(-1)?.kind, "embeddings");
    assert.equal(llm.captures.last()?.rule, "hash-vectors");
  });
});

Deno.test("openai stand-in: the platform's embeddings provider can be pointed at it (EMBEDDINGS_*)", async () => {
  await withOpenAI(async ({ llm }) => {
    const vars: Record<string, string> = {
      EMBEDDINGS_PROVIDER: "openai",
      EMBEDDINGS_BASE_URL: llm.baseUrl,
      EMBEDDINGS_API_KEY: "sk-test-key",
    };
    const provider = embeddingsFromEnv((n) => vars[n]);
    const [a, b, again] = await provider.embed(["oak plank", "steel beam", "oak plank"], "document");
    assert.equal(a.length, provider.dimensions);
    assert.deepEqual(a, again, "the same text gives the same vector");
    assert.notDeepEqual(a, b);
    assert.equal(llm.calls.all()[0].embeddings?.dimensions, provider.dimensions);
  });
});

Deno.test("openai stand-in: the wire body of base64 embeddings is a base64 string", async () => {
  await withOpenAI(async ({ llm }) => {
    const res = await fetch(`${llm.baseUrl}/embeddings`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hello", dimensions: 4, encoding_format: "base64" }),
    });
    const body = await res.json();
    const b64 = body.data[0].embedding;
    assert.equal(typeof b64, "string");
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    assert.equal(bytes.length, 16);
  });
});

Deno.test("openai stand-in: errors in OpenAI's shape naming the parameter", async () => {
  await withOpenAI(async ({ llm, client }) => {
    const noKey = await fetch(`${llm.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(noKey.status, 401);
    const noKeyBody = await noKey.json();
    assert.deepEqual(Object.keys(noKeyBody.error).sort(), ["code", "message", "param", "type"]);
    assert.equal(noKeyBody.error.type, "invalid_request_error");
    assert.match(noKeyBody.error.message, /didn't provide an API key/);

    const bad = async (body: Record<string, unknown>, param: string | null, message: RegExp) => {
      const err = await client.chat.completions.create(body as never).then(
        () => assert.fail("accepted"),
        (e) => e,
      );
      assert.ok(err instanceof OpenAI.BadRequestError, String(err));
      assert.equal(err.status, 400);
      assert.equal(err.type, "invalid_request_error");
      assert.equal(err.param, param);
      assert.match(err.message, message);
    };
    await bad({ messages: [{ role: "user", content: "hi" }] }, null, /you must provide a model parameter/);
    await bad({ model: MODEL, messages: [] }, "messages", /empty array/);
    await bad({ model: MODEL, messages: [{ role: "robot", content: "hi" }] }, "messages[0].role", /'robot'/);
    await bad(
      { model: MODEL, tool_choice: "required", messages: [{ role: "user", content: "hi" }] },
      "tool_choice",
      /only allowed when 'tools' are specified/,
    );
    await bad(
      {
        model: MODEL,
        tools: [WEATHER_TOOL],
        tool_choice: { type: "function", function: { name: "nope" } },
        messages: [{ role: "user", content: "hi" }],
      },
      "tool_choice",
      /'nope' is not among the provided tools/,
    );
    await bad(
      {
        model: MODEL,
        messages: [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "x", content: "r" }],
      },
      "messages[1].role",
      /must be a response to a preceeding message with 'tool_calls'/,
    );
    const dims = await client.embeddings.create({
      model: "text-embedding-3-small",
      input: "x",
      dimensions: 5000,
    })
      .then(() => assert.fail("accepted"), (e) => e);
    assert.equal(dims.status, 400);
    assert.equal(dims.param, "dimensions");
    assert.equal(llm.calls.all().length, 0, "refused requests are not model calls");

    // Injected failures (failNext) are OpenAI's error JSON too, and listed as model calls.
    llm.failNext(503);
    const down = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
    })
      .then(() => assert.fail("accepted"), (e) => e);
    assert.ok(down instanceof OpenAI.APIError);
    assert.equal(down.status, 503);
    assert.equal(down.type, "server_error");
    assert.equal(llm.calls.all()[0].rule, "injected");
    assert.equal(llm.calls.all()[0].error?.status, 503);
  });
});

platformTest(
  "functions and the AI backend are pointed at the openai stand-in through their environment",
  async (p) => {
    const entry = p.sandbox!.entries().find((e) => e.def.name === "openai");
    assert.equal(entry?.sandboxed, true, "a test platform never uses a real key");
    assert.equal(p.env.OPENAI_BASE_URL, `${p.sandbox!.url}/openai/v1`);
    assert.equal(p.env.OPENAI_API_KEY, "sk-openai-sandbox-local-placeholder");
    p.sandbox!.get("openai").reset();
    p.sandbox!.get("openai").reply("from the sandbox");
    const r = await runWithEnv(
      p.env,
      () =>
        new OpenAI({ maxRetries: 0, baseURL: env("OPENAI_BASE_URL"), apiKey: env("OPENAI_API_KEY") })
          .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "who are you?" }] }),
    );
    assert.equal(r.choices[0].message.content, "from the sandbox");
  },
);
