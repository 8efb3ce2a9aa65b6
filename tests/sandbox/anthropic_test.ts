/**
 * The Anthropic stand-in, driven by the official SDK (@anthropic-ai/sdk) the way production code
 * drives the real API: scripted text and tool calls, plain and streamed, usage, errors.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import type { Platform } from "../../stack/platform.ts";
import type { AnthropicStandIn } from "../../stack/sandbox/providers/anthropic.ts";
import { platformTest } from "../helpers/platform.ts";
import { env, runWithEnv } from "@shared/env.ts";

const MODEL = "claude-sonnet-5-5";

function setup(p: Platform): { llm: AnthropicStandIn; client: Anthropic } {
  const llm = p.sandbox!.get("anthropic");
  llm.reset();
  return { llm, client: new Anthropic({ baseURL: llm.baseUrl, apiKey: "sk-test-key", maxRetries: 0 }) };
}

const WEATHER_TOOL = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

platformTest("a scripted text reply, not streamed", async (p) => {
  const { llm, client } = setup(p);
  llm.reply("Hello there, world!");
  const msg = await client.messages.create({
    model: MODEL,
    max_tokens: 100,
    messages: [{ role: "user", content: "Say hi to the world" }],
  });
  assert.match(msg.id, /^msg_/);
  assert.equal(msg.type, "message");
  assert.equal(msg.role, "assistant");
  assert.equal(msg.model, MODEL);
  assert.deepEqual(msg.content, [{ type: "text", text: "Hello there, world!" }]);
  assert.equal(msg.stop_reason, "end_turn");
  assert.equal(msg.stop_sequence, null);
  // Tokens: runs of letters/digits and single other characters.
  assert.equal(msg.usage.input_tokens, 5); // Say hi to the world
  assert.equal(msg.usage.output_tokens, 5); // Hello there , world !
});

platformTest("a scripted tool call, not streamed", async (p) => {
  const { llm, client } = setup(p);
  llm.reply({ text: "Let me check.", toolUse: [{ name: "get_weather", input: { city: "Paris" } }] });
  const msg = await client.messages.create({
    model: MODEL,
    max_tokens: 200,
    tools: [WEATHER_TOOL],
    messages: [{ role: "user", content: "Weather in Paris?" }],
  });
  assert.equal(msg.stop_reason, "tool_use");
  assert.equal(msg.content.length, 2);
  assert.deepEqual(msg.content[0], { type: "text", text: "Let me check." });
  const call = msg.content[1];
  assert.equal(call.type, "tool_use");
  if (call.type !== "tool_use") return;
  assert.match(call.id, /^toolu_/);
  assert.equal(call.name, "get_weather");
  assert.deepEqual(call.input, { city: "Paris" });
});

platformTest("replies are given in the order scripted, then the default reply", async (p) => {
  const { llm, client } = setup(p);
  llm.reply("first", { toolUse: [{ name: "get_weather", input: { city: "Oslo" }, id: "toolu_fixed" }] });
  const ask = (content: string) =>
    client.messages.create({
      model: MODEL,
      max_tokens: 100,
      tools: [WEATHER_TOOL],
      messages: [{ role: "user", content }],
    });
  assert.deepEqual((await ask("a")).content, [{ type: "text", text: "first" }]);
  assert.deepEqual((await ask("b")).content, [
    { type: "tool_use", id: "toolu_fixed", name: "get_weather", input: { city: "Oslo" } },
  ]);
  const d1 = await ask("What is the capital of Norway?");
  const d2 = await ask("What is the capital of Norway?");
  assert.equal(llm.pendingReplies, 0);
  assert.equal(d1.content[0].type, "text");
  assert.deepEqual(d1.content, d2.content, "the default reply is deterministic");
  assert.match((d1.content[0] as { text: string }).text, /sandbox.*What is the capital of Norway\?/);
});

platformTest("a streamed text reply (messages.stream)", async (p) => {
  const { llm, client } = setup(p);
  llm.reply("Streaming works one word at a time, in several chunks.");
  const deltas: string[] = [];
  const stream = client.messages.stream({
    model: MODEL,
    max_tokens: 100,
    messages: [{ role: "user", content: "Stream please" }],
  });
  stream.on("text", (t) => deltas.push(t));
  const msg = await stream.finalMessage();
  assert.ok(deltas.length > 1, "the text arrives in several deltas");
  assert.equal(deltas.join(""), "Streaming works one word at a time, in several chunks.");
  assert.deepEqual(msg.content, [{
    type: "text",
    text: "Streaming works one word at a time, in several chunks.",
  }]);
  assert.equal(msg.stop_reason, "end_turn");
  assert.equal(msg.usage.input_tokens, 2);
  assert.equal(msg.usage.output_tokens, 12);
});

platformTest("a streamed tool call (create with stream: true) has the API's event sequence", async (p) => {
  const { llm, client } = setup(p);
  llm.reply({ text: "Checking.", toolUse: [{ name: "get_weather", input: { city: "Lyon", days: [1, 2] } }] });
  const events = await client.messages.create({
    model: MODEL,
    max_tokens: 100,
    stream: true,
    tools: [WEATHER_TOOL],
    messages: [{ role: "user", content: "Weather?" }],
  });
  const seen: string[] = [];
  let json = "";
  let stop: string | null = null;
  for await (const ev of events) {
    seen.push(ev.type === "content_block_delta" ? `delta:${ev.delta.type}` : ev.type);
    if (ev.type === "content_block_delta" && ev.delta.type === "input_json_delta") {
      json += ev.delta.partial_json;
    }
    if (ev.type === "message_delta") stop = ev.delta.stop_reason;
  }
  const compact = seen.filter((t, i) => t !== seen[i - 1]);
  assert.deepEqual(compact, [
    "message_start",
    "content_block_start",
    "delta:text_delta",
    "content_block_stop",
    "content_block_start",
    "delta:input_json_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  assert.ok(seen.filter((t) => t === "delta:input_json_delta").length > 1, "input JSON in pieces");
  assert.deepEqual(JSON.parse(json), { city: "Lyon", days: [1, 2] });
  assert.equal(stop, "tool_use");

  llm.reply({ toolUse: [{ name: "get_weather", input: { city: "Nice" } }] });
  const final = await client.messages.stream({
    model: MODEL,
    max_tokens: 100,
    tools: [WEATHER_TOOL],
    messages: [{ role: "user", content: "Weather?" }],
  }).finalMessage();
  assert.equal(final.stop_reason, "tool_use");
  assert.deepEqual(final.content.map((b) => b.type === "tool_use" && b.input), [{ city: "Nice" }]);
});

platformTest("the capture shows what the SDK sent, with the key masked", async (p) => {
  const { llm, client } = setup(p);
  await client.messages.create({
    model: MODEL,
    max_tokens: 50,
    system: "Be brief.",
    messages: [{ role: "user", content: "Hello" }],
  });
  const [req] = llm.captures.requests();
  assert.equal(req.method, "POST");
  assert.equal(req.path, "/v1/messages");
  assert.equal(req.status, 200);
  assert.deepEqual(req.body, {
    model: MODEL,
    max_tokens: 50,
    system: "Be brief.",
    messages: [{ role: "user", content: "Hello" }],
  });
  assert.equal(req.headers.authorization, "[redacted]");
  assert.ok(req.headers["anthropic-version"]);
  assert.ok(!JSON.stringify(llm.captures.all()).includes("sk-test-key"));
});

platformTest("injected 500 and 429 surface as the SDK's APIError with that status", async (p) => {
  const { llm, client } = setup(p);
  const ask = () =>
    client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "x" }] });
  llm.failNext(500).failNext(429, { message: "slow down" });
  await assert.rejects(ask(), (err: unknown) => {
    assert.ok(err instanceof Anthropic.APIError);
    assert.ok(err instanceof Anthropic.InternalServerError);
    assert.equal(err.status, 500);
    return true;
  });
  await assert.rejects(ask(), (err: unknown) => {
    assert.ok(err instanceof Anthropic.RateLimitError);
    assert.equal(err.status, 429);
    assert.deepEqual((err.error as { error: unknown }).error, {
      type: "rate_limit_error",
      message: "slow down",
    });
    return true;
  });
  const ok = await ask();
  assert.equal(ok.type, "message", "faults are used up");
  assert.deepEqual(llm.captures.requests().map((c) => [c.status, !!c.fault]), [[500, true], [429, true], [
    200,
    false,
  ]]);
});

platformTest("latency can be injected", async (p) => {
  const { llm, client } = setup(p);
  llm.setLatency(300);
  const t0 = performance.now();
  await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "x" }] });
  assert.ok(performance.now() - t0 >= 290);
  llm.setLatency(0);
});

platformTest("max_tokens and stop_sequences end the reply like the API", async (p) => {
  const { llm, client } = setup(p);
  llm.reply("one two three four five", "alpha beta STOP gamma");
  const cut = await client.messages.create({
    model: MODEL,
    max_tokens: 3,
    messages: [{ role: "user", content: "count" }],
  });
  assert.deepEqual(cut.content, [{ type: "text", text: "one two three" }]);
  assert.equal(cut.stop_reason, "max_tokens");
  assert.equal(cut.usage.output_tokens, 3);
  const stopped = await client.messages.create({
    model: MODEL,
    max_tokens: 100,
    stop_sequences: ["STOP"],
    messages: [{ role: "user", content: "go" }],
  });
  assert.deepEqual(stopped.content, [{ type: "text", text: "alpha beta " }]);
  assert.equal(stopped.stop_reason, "stop_sequence");
  assert.equal(stopped.stop_sequence, "STOP");
});

platformTest("invalid requests get Anthropic's error JSON", async (p) => {
  const { llm } = setup(p);
  const post = (
    body: unknown,
    headers: Record<string, string> = { "x-api-key": "k", "anthropic-version": "2023-06-01" },
  ) =>
    fetch(`${llm.baseUrl}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const cases: [unknown, Record<string, string> | undefined, number, string, RegExp][] = [
    [
      { model: MODEL, messages: [{ role: "user", content: "x" }] },
      undefined,
      400,
      "invalid_request_error",
      /^max_tokens: Field required$/,
    ],
    [
      { max_tokens: 5, messages: [{ role: "user", content: "x" }] },
      undefined,
      400,
      "invalid_request_error",
      /^model: Field required$/,
    ],
    [{ model: MODEL, max_tokens: 5 }, undefined, 400, "invalid_request_error", /^messages: Field required$/],
    [
      { model: MODEL, max_tokens: 5, messages: [{ role: "bot", content: "x" }] },
      undefined,
      400,
      "invalid_request_error",
      /messages\.0\.role/,
    ],
    ["{not json", undefined, 400, "invalid_request_error", /parsing the body/],
    [
      { model: MODEL, max_tokens: 5, messages: [{ role: "user", content: "x" }] },
      { "anthropic-version": "2023-06-01" },
      401,
      "authentication_error",
      /x-api-key/,
    ],
    [
      { model: MODEL, max_tokens: 5, temperature: 0.2, messages: [{ role: "user", content: "x" }] },
      { authorization: "Bearer k", "anthropic-version": "2026-10-21" },
      400,
      "invalid_request_error",
      /^temperature:/,
    ],
  ];
  for (const [body, headers, status, type, message] of cases) {
    const res = await post(body, headers);
    const json = await res.json();
    assert.equal(res.status, status, JSON.stringify(body));
    assert.equal(json.type, "error");
    assert.equal(json.error.type, type);
    assert.match(json.error.message, message);
  }
  // x-api-key (SDK 0.x, curl) is as good as Bearer, and older versions still take temperature.
  const ok = await post({
    model: MODEL,
    max_tokens: 5,
    temperature: 0.2,
    messages: [{ role: "user", content: "x" }],
  });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  assert.equal(llm.pendingReplies, 0);
});

platformTest("count_tokens counts like the usage does", async (p) => {
  const { client } = setup(p);
  const r = await client.messages.countTokens({
    model: MODEL,
    messages: [{ role: "user", content: "Say hi to the world" }],
  });
  assert.equal(r.input_tokens, 5);
});

platformTest("functions are pointed at the sandbox through their environment", async (p) => {
  const entry = p.sandbox!.entries().find((e) => e.def.name === "anthropic");
  assert.equal(entry?.sandboxed, true, "a test platform never uses a real key");
  assert.equal(p.env.ANTHROPIC_BASE_URL, p.sandbox!.get("anthropic").baseUrl);
  assert.equal(p.env.ANTHROPIC_API_KEY, entry?.def.placeholderKey);
  // What a function does: read its environment through packages/shared/env.ts.
  const msg = await runWithEnv(
    p.env,
    () =>
      new Anthropic({ maxRetries: 0, baseURL: env("ANTHROPIC_BASE_URL"), apiKey: env("ANTHROPIC_API_KEY") })
        .messages.create({
          model: MODEL,
          max_tokens: 30,
          messages: [{ role: "user", content: "who are you?" }],
        }),
  );
  assert.match(
    (msg.content[0] as { text: string }).text,
    /local sandbox model replying to: "who are you\?"/,
  );
});
