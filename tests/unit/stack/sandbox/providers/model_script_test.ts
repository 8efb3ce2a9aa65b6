/**
 * Scripting the model stand-ins over HTTP (POST/GET/DELETE /_models/script on the sandbox server)
 * for both providers - in order, per model, error statuses, latency, malformed output - and the
 * "Model calls" viewer (GET /_models, ?call=<id>, GET /_models/calls) showing what was asked and
 * answered, escaped, with the rule that answered it.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { Sandbox } from "../../../../../stack/sandbox/sandbox.ts";
import { PROVIDERS } from "../../../../../stack/sandbox/registry.ts";
import { MALFORMED_TEXT } from "../../../../../stack/sandbox/providers/model_script.ts";

const CLAUDE = "claude-sonnet-4-6";
const GPT = "gpt-4o-mini";

interface Ctx {
  sandbox: Sandbox;
  claude: Anthropic;
  gpt: OpenAI;
  script(body: unknown, headers?: Record<string, string>): Promise<Response>;
}

async function withModels(fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  const sandbox = Sandbox.start({
    providers: PROVIDERS.filter((d) => d.name === "anthropic" || d.name === "openai"),
  });
  try {
    await fn({
      sandbox,
      claude: new Anthropic({ baseURL: sandbox.get("anthropic").baseUrl, apiKey: "sk-test", maxRetries: 0 }),
      gpt: new OpenAI({ baseURL: sandbox.get("openai").baseUrl, apiKey: "sk-test", maxRetries: 0 }),
      script: (body, headers = { "content-type": "application/json" }) =>
        fetch(`${sandbox.url}/_models/script`, {
          method: "POST",
          headers,
          redirect: "manual",
          body: typeof body === "string" ? body : JSON.stringify(body),
        }),
    });
  } finally {
    await sandbox.stop();
  }
}

const WEATHER = {
  name: "get_weather",
  description: "Current weather for a city",
  schema: {
    type: "object" as const,
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city", "days"],
  },
};
const claudeTool = { name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.schema };
const gptTool = {
  type: "function" as const,
  function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema },
};

async function claudeAsk(c: Ctx, content: string, extra: Record<string, unknown> = {}) {
  return await c.claude.messages.create({
    model: CLAUDE,
    max_tokens: 200,
    messages: [{ role: "user", content }],
    ...extra,
  } as Anthropic.MessageCreateParamsNonStreaming);
}

async function gptAsk(c: Ctx, content: string, extra: Record<string, unknown> = {}, model = GPT) {
  return await c.gpt.chat.completions.create({
    model,
    messages: [{ role: "user", content }],
    ...extra,
  } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
}

Deno.test("model script: replies queued over HTTP answer both providers in order, then the sandbox model", async () => {
  await withModels(async (c) => {
    const res = await c.script({
      provider: "anthropic",
      replies: [{ text: "first" }, {
        text: "Checking.",
        tool_call: { name: "get_weather", input: { city: "Oslo", days: 2 } },
      }],
    });
    assert.equal(res.status, 201);
    const queued = await res.json();
    assert.equal(queued.provider, "anthropic");
    assert.equal(queued.queued, 2);
    assert.equal(queued.pending.length, 2);
    assert.equal(
      (await c.script({
        provider: "openai",
        replies: [{
          tool_call: [{ name: "get_weather", input: { city: "Rome", days: 1 } }, {
            name: "get_weather",
            input: { city: "Milan", days: 1 },
          }],
        }],
      })).status,
      201,
    );

    const listed = await (await fetch(`${c.sandbox.url}/_models/script`)).json();
    assert.deepEqual(listed, {
      anthropic: [
        { model: null, text: "first" },
        {
          model: null,
          text: "Checking.",
          tool_call: { name: "get_weather", input: { city: "Oslo", days: 2 } },
        },
      ],
      openai: [{
        model: null,
        tool_call: [{ name: "get_weather", input: { city: "Rome", days: 1 } }, {
          name: "get_weather",
          input: { city: "Milan", days: 1 },
        }],
      }],
    });

    assert.deepEqual((await claudeAsk(c, "hi")).content, [{ type: "text", text: "first" }]);
    const tool = await claudeAsk(c, "weather?", { tools: [claudeTool] });
    assert.equal(tool.stop_reason, "tool_use");
    assert.deepEqual(tool.content.map((b) => b.type === "tool_use" ? b.input : b), [
      { type: "text", text: "Checking." },
      { city: "Oslo", days: 2 },
    ]);
    const two = await gptAsk(c, "weather?", { tools: [gptTool] });
    assert.equal(two.choices[0].finish_reason, "tool_calls");
    assert.deepEqual(
      two.choices[0].message.tool_calls?.map((t) =>
        t.type === "function" && JSON.parse(t.function.arguments)
      ),
      [{ city: "Rome", days: 1 }, { city: "Milan", days: 1 }],
    );
    // The queue is used up: the sandbox model answers, and says which rule did.
    await claudeAsk(c, "again");
    const rules = c.sandbox.modelCalls().map((m) => [m.provider, m.rule]);
    assert.deepEqual(rules.slice(1), [["openai", "scripted"], ["anthropic", "scripted"], [
      "anthropic",
      "scripted",
    ]]);
    assert.notEqual(rules[0][1], "scripted");
    assert.equal(c.sandbox.captures("anthropic")[0].rule, rules[0][1]);
    assert.deepEqual(await (await fetch(`${c.sandbox.url}/_models/script`)).json(), {
      anthropic: [],
      openai: [],
    });
  });
});

Deno.test("model script: a reply for a model goes only to that model; model-less ones to any", async () => {
  await withModels(async (c) => {
    await c.script({ provider: "openai", model: "gpt-b", replies: [{ text: "for b" }] });
    await c.script({ provider: "openai", replies: [{ text: "for anyone" }] });
    await c.script({ provider: "anthropic", model: "claude-haiku-4-5", replies: [{ text: "for haiku" }] });
    assert.equal((await gptAsk(c, "q", {}, "gpt-a")).choices[0].message.content, "for anyone");
    assert.equal((await gptAsk(c, "q", {}, "gpt-b")).choices[0].message.content, "for b");
    const sonnet = await claudeAsk(c, "q");
    assert.notEqual((sonnet.content[0] as { text: string }).text, "for haiku");
    const haiku = await c.claude.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 50,
      messages: [{ role: "user", content: "q" }],
    });
    assert.deepEqual(haiku.content, [{ type: "text", text: "for haiku" }]);
    // In process, reply() takes a model too.
    c.sandbox.get("openai").reply({ model: "gpt-c", text: "in process for c" });
    assert.notEqual((await gptAsk(c, "q", {}, "gpt-a")).choices[0].message.content, "in process for c");
    assert.equal((await gptAsk(c, "q", {}, "gpt-c")).choices[0].message.content, "in process for c");
  });
});

Deno.test("model script: an error reply is the provider's error JSON with that status", async () => {
  await withModels(async (c) => {
    await c.script({ provider: "openai", replies: [{ error: { status: 429, message: "slow down" } }] });
    await c.script({ provider: "anthropic", replies: [{ error: { status: 529 } }] });
    const rate = await gptAsk(c, "q").then(() => assert.fail("answered"), (e) => e);
    assert.ok(rate instanceof OpenAI.RateLimitError);
    assert.equal(rate.status, 429);
    assert.deepEqual(rate.error, {
      message: "slow down",
      type: "requests",
      param: null,
      code: "rate_limit_exceeded",
    });
    const overloaded = await claudeAsk(c, "q").then(() => assert.fail("answered"), (e) => e);
    assert.ok(overloaded instanceof Anthropic.APIError);
    assert.equal(overloaded.status, 529);
    assert.equal((overloaded.error as { error: { type: string } }).error.type, "overloaded_error");
    const [claudeCall, gptCall] = c.sandbox.modelCalls();
    assert.equal(claudeCall.rule, "scripted:error");
    assert.equal(claudeCall.error?.status, 529);
    assert.deepEqual(gptCall.error, { status: 429, message: "slow down" });
    assert.equal(gptCall.reply, null);
  });
});

Deno.test("model script: latency_ms delays the reply it belongs to, alone or with content", async () => {
  await withModels(async (c) => {
    await c.script({ provider: "openai", replies: [{ text: "late", latency_ms: 300 }, { latency_ms: 200 }] });
    let started = performance.now();
    assert.equal((await gptAsk(c, "q")).choices[0].message.content, "late");
    assert.ok(performance.now() - started >= 290, "the first reply waited");
    started = performance.now();
    const second = await gptAsk(c, "q");
    assert.ok(performance.now() - started >= 190, "the delay-only reply waited");
    assert.notEqual(second.choices[0].message.content, "late");
    assert.notEqual(
      c.sandbox.modelCalls()[0].rule,
      "scripted",
      "a delay alone lets the sandbox model answer",
    );
    started = performance.now();
    await gptAsk(c, "q");
    assert.ok(performance.now() - started < 190, "no delay once the queue is empty");
  });
});

Deno.test("model script: malformed breaks the forced tool's schema, or answers text instead of it", async () => {
  await withModels(async (c) => {
    await c.script({ provider: "openai", replies: [{ malformed: true }, { malformed: "text" }] });
    await c.script({ provider: "anthropic", replies: [{ malformed: true }, { malformed: true }] });
    const forced = { tools: [gptTool], tool_choice: { type: "function", function: { name: "get_weather" } } };
    const broken = await gptAsk(c, "weather in Oslo", forced);
    const call = broken.choices[0].message.tool_calls?.[0];
    assert.equal(call?.type === "function" && call.function.name, "get_weather");
    const args = JSON.parse(call?.type === "function" ? call.function.arguments : "{}");
    assert.ok(!("city" in args), "the first required property is left out");
    const text = await gptAsk(c, "weather in Oslo", forced);
    assert.equal(text.choices[0].message.tool_calls, undefined);
    assert.equal(text.choices[0].message.content, MALFORMED_TEXT);
    assert.equal(text.choices[0].finish_reason, "stop");

    const claudeBroken = await claudeAsk(c, "weather in Oslo", {
      tools: [claudeTool],
      tool_choice: { type: "tool", name: "get_weather" },
    });
    const use = claudeBroken.content.find((b) => b.type === "tool_use");
    assert.equal(use?.type === "tool_use" && use.name, "get_weather");
    assert.ok(use?.type === "tool_use" && !("city" in (use.input as object)));
    // Nothing forced: malformed is text that is not valid JSON.
    const claudeText = await claudeAsk(c, "give JSON");
    assert.deepEqual(claudeText.content, [{ type: "text", text: MALFORMED_TEXT }]);
    assert.throws(() => JSON.parse(MALFORMED_TEXT));
    assert.deepEqual(c.sandbox.modelCalls().map((m) => m.rule), Array(4).fill("scripted:malformed"));
  });
});

Deno.test("model script: bad script requests get 400 naming the problem; DELETE clears", async () => {
  await withModels(async (c) => {
    const refused = async (body: unknown, message: RegExp) => {
      const res = await c.script(body);
      assert.equal(res.status, 400);
      assert.match((await res.json()).error, message);
    };
    await refused("{not json", /body: must be JSON/);
    await refused(
      { provider: "stripe", replies: [{ text: "x" }] },
      /provider: must be one of anthropic, openai/,
    );
    await refused({ provider: "openai", replies: [] }, /replies: must be a non-empty list/);
    await refused({ provider: "openai", replies: [{ txt: "x" }] }, /replies\.0\.txt: unknown field/);
    await refused({ provider: "openai", replies: [{}] }, /replies\.0: give text, tool_call/);
    await refused(
      { provider: "openai", replies: [{ text: "x", error: { status: 500 } }] },
      /error cannot be combined/,
    );
    await refused(
      { provider: "openai", replies: [{ error: { status: 200 } }] },
      /error\.status: must be an HTTP error status/,
    );
    await refused(
      { provider: "openai", replies: [{ malformed: "yes" }] },
      /malformed: must be true or "text"/,
    );
    await refused(
      { provider: "openai", replies: [{ tool_call: { name: "f", input: [1] } }] },
      /tool_call\.input: must be a JSON object/,
    );
    await refused({ provider: "openai", replies: [{ latency_ms: -1 }] }, /latency_ms: must be an integer/);
    await refused(
      { provider: "anthropic", model: "claude-nonexistent", replies: [{ text: "x" }] },
      /model: the anthropic stand-in does not serve claude-nonexistent/,
    );
    assert.deepEqual(await (await fetch(`${c.sandbox.url}/_models/script`)).json(), {
      anthropic: [],
      openai: [],
    });

    await c.script({ provider: "openai", replies: [{ text: "a" }, { text: "b" }] });
    await c.script({ provider: "anthropic", replies: [{ text: "c" }] });
    const one = await fetch(`${c.sandbox.url}/_models/script?provider=openai`, { method: "DELETE" });
    assert.deepEqual(await one.json(), { cleared: { openai: 2 } });
    const all = await fetch(`${c.sandbox.url}/_models/script`, { method: "DELETE" });
    assert.deepEqual(await all.json(), { cleared: { anthropic: 1, openai: 0 } });
    const unknown = await fetch(`${c.sandbox.url}/_models/script?provider=jina`, { method: "DELETE" });
    assert.equal(unknown.status, 400);
    await unknown.body?.cancel();
  });
});

Deno.test("model viewer: the page lists a call and its detail shows system, tools, the forced one and the reply, escaped", async () => {
  await withModels(async (c) => {
    await c.script({
      provider: "anthropic",
      replies: [{
        text: "Here <b>it</b> is.",
        tool_call: { name: "get_weather", input: { city: "Oslo & Bergen", days: 2 } },
      }],
    });
    await c.claude.messages.create({
      model: CLAUDE,
      max_tokens: 300,
      system: "You are <script>alert(1)</script> a weather bot.",
      tools: [claudeTool],
      tool_choice: { type: "tool", name: "get_weather" },
      messages: [{ role: "user", content: "Weather in Oslo?" }],
    });
    await gptAsk(c, "plain question");
    const [gptCall, claudeCall] = c.sandbox.modelCalls();

    const list = await (await fetch(`${c.sandbox.url}/_models`)).text();
    assert.match(list, /Model calls/);
    assert.ok(
      list.indexOf(`/_models?call=${gptCall.id}`) < list.indexOf(`/_models?call=${claudeCall.id}`),
      "newest first",
    );
    assert.match(list, new RegExp(`<td>anthropic</td><td>${CLAUDE}</td>`));
    assert.match(list, /<code>scripted<\/code>/);
    assert.match(list, new RegExp(`<code>${gptCall.rule}</code>`));

    const detail = await (await fetch(`${c.sandbox.url}/_models?call=${claudeCall.id}`)).text();
    assert.ok(!detail.includes("<script>alert(1)</script>"), "the system prompt is escaped");
    assert.match(detail, /You are &#60;script&#62;alert\(1\)&#60;\/script&#62; a weather bot\./);
    assert.match(detail, /Weather in Oslo\?/);
    assert.match(detail, /forced tool: <b>get_weather<\/b>/);
    assert.match(detail, /Current weather for a city/);
    assert.match(detail, /Here &#60;b&#62;it&#60;\/b&#62; is\./);
    assert.match(detail, /Oslo &#38; Bergen/);
    assert.match(detail, /the sandbox: scripted/);
    assert.match(detail, new RegExp(`${claudeCall.inputTokens} in, ${claudeCall.outputTokens} out`));
    assert.match(detail, /estimate at Claude Sonnet list prices: \$3 in \/ \$15 out per million tokens/);

    // The inbox page carries the viewer too, and each capture says the sandbox answered.
    const inbox = await (await fetch(`${c.sandbox.url}/?call=${claudeCall.id}`)).text();
    assert.match(inbox, /Model calls/);
    assert.match(inbox, /forced tool: <b>get_weather<\/b>/);
    assert.match(inbox, /answered by the sandbox: scripted/);

    // JSON with the cost estimate.
    const calls = await (await fetch(`${c.sandbox.url}/_models/calls?provider=anthropic`)).json();
    assert.equal(calls.length, 1);
    assert.equal(calls[0].system, "You are <script>alert(1)</script> a weather bot.");
    assert.equal(calls[0].forcedTool, "get_weather");
    assert.deepEqual(calls[0].reply.toolUse, [{
      name: "get_weather",
      input: { city: "Oslo & Bergen", days: 2 },
    }]);
    assert.equal(calls[0].cost.usd, (claudeCall.inputTokens * 3 + claudeCall.outputTokens * 15) / 1e6);
    const one = await fetch(`${c.sandbox.url}/_models/calls/${gptCall.id}`);
    assert.equal((await one.json()).provider, "openai");
    const none = await fetch(`${c.sandbox.url}/_models/calls/999999`);
    assert.equal(none.status, 404);
    await none.body?.cancel();
  });
});

Deno.test("model viewer: the page's form queues a reply through the same endpoint", async () => {
  await withModels(async (c) => {
    const form = new URLSearchParams({
      provider: "openai",
      model: "",
      kind: "tool_call",
      tool_name: "get_weather",
      tool_input: '{"city": "Lima", "days": 3}',
      latency_ms: "",
    });
    const res = await c.script(form.toString(), { "content-type": "application/x-www-form-urlencoded" });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/_models");
    await res.body?.cancel();
    const page = await (await fetch(`${c.sandbox.url}/_models`)).text();
    assert.match(page, /<b>openai<\/b>: 1 queued/);
    assert.match(page, /<form class="script" method="post" action="\/_models\/script">/);
    const r = await gptAsk(c, "weather?", { tools: [gptTool] });
    const call = r.choices[0].message.tool_calls?.[0];
    assert.equal(call?.type === "function" && call.function.arguments, '{"city":"Lima","days":3}');

    const bad = await c.script(
      new URLSearchParams({ provider: "openai", kind: "tool_call", tool_name: "f", tool_input: "{oops" })
        .toString(),
      { "content-type": "application/x-www-form-urlencoded" },
    );
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error, /tool_input: not valid JSON/);

    await c.script("provider=anthropic&kind=error&status=500", {
      "content-type": "application/x-www-form-urlencoded",
    })
      .then((r) => r.body?.cancel());
    const cleared = await fetch(`${c.sandbox.url}/_models/script/clear`, {
      method: "POST",
      redirect: "manual",
    });
    assert.equal(cleared.status, 303);
    await cleared.body?.cancel();
    assert.deepEqual(await (await fetch(`${c.sandbox.url}/_models/script`)).json(), {
      anthropic: [],
      openai: [],
    });
  });
});
