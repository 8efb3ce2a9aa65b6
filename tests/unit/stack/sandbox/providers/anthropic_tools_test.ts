/**
 * The Anthropic stand-in's unscripted answer to forced tool calls (anthropic_tools.ts): a
 * deterministic input valid against the tool's input_schema, checked here against the zod
 * schemas the features validate with (SEO stages end to end through `structured`, re-rank,
 * agent tools, background-agent inputs), plus table-driven cases per JSON Schema keyword, the
 * streamed form, and that scripted replies and unforced requests behave as before.
 * No platform: the SDK talks to the stand-in through a fetch that calls it directly.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { AnthropicStandIn } from "../../../../../stack/sandbox/providers/anthropic.ts";
import { forcedTool, instanceOf, wordsOf } from "../../../../../stack/sandbox/providers/anthropic_tools.ts";
import { llmFromEnv } from "@shared/llm/mod.ts";
import { ArticleOutput, PlanOutput, ReviewOutput } from "@shared/seo/schemas.ts";
import { rerank } from "@shared/rerank/rerank.ts";
import { RerankRequest } from "@shared/rerank/schemas.ts";
import { toolDefinitions, TOOLS } from "@shared/agent/tools/mod.ts";
import { CATALOG } from "@shared/background_agents/catalog.ts";

const MODEL = "claude-sonnet-4-6";

function setup(): { llm: AnthropicStandIn; client: Anthropic } {
  const llm = new AnthropicStandIn();
  llm.baseUrl = "http://anthropic.sandbox.test";
  const client = new Anthropic({
    baseURL: llm.baseUrl,
    apiKey: "sk-test-key",
    maxRetries: 0,
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      const req = new Request(input, init);
      return llm.serve(req, new URL(req.url).pathname);
    },
  });
  return { llm, client };
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest;
}

function assertValid(schema: z.ZodType, value: unknown, label: string): void {
  const r = schema.safeParse(value);
  assert.ok(r.success, `${label}: ${JSON.stringify(value).slice(0, 300)} -> ${r.error?.message}`);
}

const WORDS = wordsOf("Ceramic floor tiles for a bathroom renovation in Lisbon");

Deno.test("generated inputs pass the features' own zod schemas, for many seeds", () => {
  // The JSON Schemas exactly as the features send them (SEO and background agents with io
  // "input", agent-chat tools through toolDefinitions).
  const schemas: [string, z.ZodType, Record<string, unknown>][] = [
    ["seo plan", PlanOutput, jsonSchema(PlanOutput)],
    ["seo article", ArticleOutput, jsonSchema(ArticleOutput)],
    ["seo review", ReviewOutput, jsonSchema(ReviewOutput)],
    ["rerank request", RerankRequest, jsonSchema(RerankRequest)],
    ...toolDefinitions(Object.values(TOOLS)).map((d): [string, z.ZodType, Record<string, unknown>] => [
      `agent tool ${d.name}`,
      TOOLS[d.name].schema,
      d.input_schema as Record<string, unknown>,
    ]),
    ...CATALOG.map((k): [string, z.ZodType, Record<string, unknown>] => [
      `agent kind ${k.id}`,
      k.input,
      jsonSchema(k.input),
    ]),
  ];
  assert.ok(schemas.length >= 9);
  for (const [label, schema, json] of schemas) {
    for (let seed = 0; seed < 40; seed++) {
      assertValid(schema, instanceOf(json, { seed, words: WORDS }), `${label} (seed ${seed})`);
    }
  }
});

Deno.test("keyword by keyword: the value satisfies the schema", () => {
  const cases: { name: string; schema: Record<string, unknown>; zod: z.ZodType }[] = [
    {
      name: "string lengths",
      schema: { type: "string", minLength: 200, maxLength: 210 },
      zod: z.string().min(200).max(210),
    },
    { name: "short max", schema: { type: "string", maxLength: 3 }, zod: z.string().max(3) },
    {
      name: "enum",
      schema: { enum: ["a", "b", 3] },
      zod: z.union([z.literal("a"), z.literal("b"), z.literal(3)]),
    },
    { name: "const", schema: { const: { k: [1] } }, zod: z.object({ k: z.tuple([z.literal(1)]) }).strict() },
    {
      name: "integer bounds",
      schema: { type: "integer", minimum: 20, maximum: 25 },
      zod: z.number().int().min(20).max(25),
    },
    {
      name: "exclusive number bounds and multipleOf",
      schema: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 },
      zod: z.number().gt(0).lt(1).multipleOf(0.25),
    },
    { name: "boolean", schema: { type: "boolean" }, zod: z.boolean() },
    { name: "nullable type list", schema: { type: ["null", "integer"] }, zod: z.number().int() },
    {
      name: "anyOf takes the first non-null branch",
      schema: { anyOf: [{ type: "null" }, { type: "string", format: "email" }] },
      zod: z.email(),
    },
    {
      name: "oneOf",
      schema: { oneOf: [{ type: "integer", minimum: 5 }, { type: "string" }] },
      zod: z.int().min(5),
    },
    {
      name: "array bounds and unique items",
      schema: {
        type: "array",
        items: { type: "integer", minimum: 0, maximum: 100 },
        minItems: 5,
        maxItems: 5,
        uniqueItems: true,
      },
      zod: z.array(z.int().min(0).max(100)).length(5).refine((a) => new Set(a).size === a.length, "unique"),
    },
    {
      name: "prefixItems tuple",
      schema: { type: "array", prefixItems: [{ type: "string" }, { type: "boolean" }], items: false },
      zod: z.tuple([z.string(), z.boolean()]),
    },
    {
      name: "formats",
      schema: {
        type: "object",
        properties: {
          email: { type: "string", format: "email" },
          url: { type: "string", format: "uri" },
          id: { type: "string", format: "uuid" },
          at: { type: "string", format: "date-time" },
          day: { type: "string", format: "date" },
          ip: { type: "string", format: "ipv4" },
        },
        required: ["email", "url", "id", "at", "day", "ip"],
      },
      zod: z.object({
        email: z.email(),
        url: z.url(),
        id: z.uuid(),
        at: z.iso.datetime(),
        day: z.iso.date(),
        ip: z.ipv4(),
      }),
    },
    {
      name: "patterns: words first, else from the regex",
      schema: {
        type: "object",
        properties: {
          slug: { type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$" },
          sid: { type: "string", pattern: "^HX[0-9a-fA-F]{32}$" },
          lang: { type: "string", pattern: "^[a-z]{2}(-[A-Za-z]{2,4})?$" },
        },
        required: ["slug", "sid", "lang"],
      },
      zod: z.object({
        slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
        sid: z.string().regex(/^HX[0-9a-fA-F]{32}$/),
        lang: z.string().regex(/^[a-z]{2}(-[A-Za-z]{2,4})?$/),
      }),
    },
    {
      name: "$ref into $defs, recursive, allOf merged",
      schema: {
        $defs: {
          node: {
            type: "object",
            properties: {
              name: { type: "string", minLength: 1 },
              children: { type: "array", items: { $ref: "#/$defs/node" } },
            },
            required: ["name", "children"],
          },
        },
        allOf: [{ $ref: "#/$defs/node" }, {
          properties: { extra: { type: "integer" } },
          required: ["extra"],
        }],
      },
      zod: z.object({
        name: z.string().min(1),
        children: z.array(
          z.lazy((): z.ZodType => z.object({ name: z.string().min(1), children: z.array(z.any()) })),
        ),
        extra: z.int(),
      }),
    },
    {
      name: "record with minProperties",
      schema: { type: "object", additionalProperties: { type: "number", minimum: 1 }, minProperties: 2 },
      zod: z.record(z.string(), z.number().min(1)).refine((o) => Object.keys(o).length >= 2, "two keys"),
    },
  ];
  for (const c of cases) {
    for (let seed = 0; seed < 25; seed++) {
      assertValid(c.zod, instanceOf(c.schema, { seed, words: WORDS }), `${c.name} (seed ${seed})`);
    }
  }
  // Same seed, same value; strings are made of the request's words.
  const schema = jsonSchema(PlanOutput);
  assert.deepEqual(
    instanceOf(schema, { seed: 7, words: WORDS }),
    instanceOf(schema, { seed: 7, words: WORDS }),
  );
  assert.notDeepEqual(
    instanceOf(schema, { seed: 7, words: WORDS }),
    instanceOf(schema, { seed: 8, words: WORDS }),
  );
  const title = (instanceOf(schema, { seed: 7, words: WORDS }) as { title: string }).title;
  assert.ok(title.split(" ").every((w) => WORDS.some((x) => x.startsWith(w))), title);
});

Deno.test("forcedTool: tool_choice tool or any forces; auto, none and no choice do not", () => {
  const tools = [
    { name: "web_search", type: "web_search_20250305" },
    { name: "a", input_schema: { type: "object" } },
    { name: "b", input_schema: { type: "object" } },
  ];
  assert.equal(forcedTool({ tools, tool_choice: { type: "tool", name: "b" } })?.name, "b");
  assert.equal(forcedTool({ tools, tool_choice: { type: "any" } })?.name, "a");
  assert.equal(forcedTool({ tools, tool_choice: { type: "auto" } }), null);
  assert.equal(forcedTool({ tools, tool_choice: { type: "none" } }), null);
  assert.equal(forcedTool({ tools }), null);
  assert.equal(forcedTool({ tools, tool_choice: { type: "tool", name: "missing" } }), null);
  assert.equal(forcedTool({ tool_choice: { type: "any" } }), null);
});

Deno.test("the stand-in answers forced tools unscripted, plain and streamed alike", async () => {
  const { llm, client } = setup();
  const tool = {
    name: "submit_plan",
    description: "Submit the plan",
    input_schema: jsonSchema(PlanOutput) as Anthropic.Tool.InputSchema,
  };
  const request = {
    model: MODEL,
    max_tokens: 4096,
    messages: [{ role: "user" as const, content: "Plan an article about ceramic floor tiles" }],
    tools: [tool],
    tool_choice: { type: "tool" as const, name: "submit_plan" },
  };
  const plain = await client.messages.create(request);
  assert.equal(plain.stop_reason, "tool_use");
  assert.equal(plain.content.length, 1);
  const use = plain.content[0] as Anthropic.ToolUseBlock;
  assert.equal(use.type, "tool_use");
  assert.equal(use.name, "submit_plan");
  assert.match(use.id, /^toolu_/);
  assertValid(PlanOutput, use.input, "plain");
  assert.ok(plain.usage.output_tokens > 0);

  const streamed = await client.messages.stream(request).finalMessage();
  assert.equal(streamed.stop_reason, "tool_use");
  const streamedUse = streamed.content[0] as Anthropic.ToolUseBlock;
  assert.equal(streamedUse.type, "tool_use");
  assert.deepEqual(streamedUse.input, use.input, "the same request gets the same input, streamed or not");
  assert.equal(streamed.usage.output_tokens, plain.usage.output_tokens);

  // The raw SSE carries the input as input_json_delta pieces.
  const raw = await client.messages.create({ ...request, stream: true });
  const partial: string[] = [];
  for await (const ev of raw) {
    if (ev.type === "content_block_delta" && ev.delta.type === "input_json_delta") {
      partial.push(ev.delta.partial_json);
    }
  }
  assert.ok(partial.length > 1);
  assert.deepEqual(JSON.parse(partial.join("")), use.input);

  // tool_choice any: the first tool; too few max_tokens: cut like the API, no tool call.
  const any = await client.messages.create({ ...request, tool_choice: { type: "any" } });
  assert.equal((any.content[0] as Anthropic.ToolUseBlock).name, "submit_plan");
  const short = await client.messages.create({ ...request, max_tokens: 5 });
  assert.equal(short.stop_reason, "max_tokens");
  assert.deepEqual(short.content, []);
  assert.equal(llm.pendingReplies, 0);
});

Deno.test("scripted replies still come first; unforced requests still get the text default", async () => {
  const { llm, client } = setup();
  const tools = [{
    name: "submit_plan",
    description: "d",
    input_schema: jsonSchema(PlanOutput) as Anthropic.Tool.InputSchema,
  }];
  llm.reply("a scripted text");
  const scripted = await client.messages.create({
    model: MODEL,
    max_tokens: 100,
    messages: [{ role: "user", content: "hello" }],
    tools,
    tool_choice: { type: "tool", name: "submit_plan" },
  });
  assert.deepEqual(scripted.content, [{ type: "text", text: "a scripted text" }]);
  assert.equal(scripted.stop_reason, "end_turn");
  for (const tool_choice of [undefined, { type: "auto" as const }]) {
    const msg = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: "user", content: "hello there" }],
      tools,
      ...(tool_choice ? { tool_choice } : {}),
    });
    assert.deepEqual(msg.content, [{
      type: "text",
      text: 'This is the local sandbox model replying to: "hello there"',
    }]);
    assert.equal(msg.stop_reason, "end_turn");
  }
});

Deno.test("features that force a tool work unscripted: SEO stages and re-rank", async () => {
  const { llm: standIn } = setup();
  // The platform's model layer, its SDK talking to the stand-in directly.
  const llm = llmFromEnv(
    (name) => ({ ANTHROPIC_API_KEY: "sk-test-key", ANTHROPIC_BASE_URL: standIn.baseUrl })[name],
    {
      fetch: (input: string | URL | Request, init?: RequestInit) => {
        const req = new Request(input, init);
        return standIn.serve(req, new URL(req.url).pathname);
      },
    },
  );
  for (
    const [tool, schema] of [["submit_plan", PlanOutput], ["submit_article", ArticleOutput], [
      "submit_review",
      ReviewOutput,
    ]] as const
  ) {
    const out = await llm.structured(schema as z.ZodType, {
      model: MODEL,
      purpose: "SEO",
      system: "You are an SEO writer.",
      prompt: "Keyword: ceramic floor tiles. Audience: homeowners renovating a bathroom.",
      tool,
      description: `Submit the ${tool.slice(7)}`,
      maxTokens: 8000,
    });
    assert.equal(out.calls, 1, `${tool} answered on the first call`);
    assertValid(schema, out.value, tool);
    assert.ok(out.usage.output_tokens > 0);
  }

  // Re-rank gets a permutation of its ids by word overlap with the query (model_brain.ts rerank).
  const req = RerankRequest.parse({
    query: "oak floors",
    results: [
      { id: "p1", name: "Ceramic tile", description: "Glazed", relevanceScore: 0.9 },
      { id: "p2", name: "Oak floor", description: "Wood", relevanceScore: 0.5 },
    ],
  });
  const ranked = await rerank(llm, req);
  assert.deepEqual(ranked.rerankedResults.map((r) => r.id), ["p2", "p1"]);
  assert.deepEqual(ranked.warnings, []);
});
