/**
 * The sandbox model (stack/sandbox/providers/model_brain.ts): each rule of its table on requests
 * shaped like the platform's (zod schemas turned into tool input_schemas with z.toJSONSchema, the
 * call sites' prompts), pure and without a platform; then one agent turn through the official
 * SDK against a started Sandbox (price_lookup call, then the answer from its tool_result).
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import {
  type BrainMessage,
  type BrainReply,
  type BrainRequest,
  think,
} from "../../../../../stack/sandbox/providers/model_brain.ts";
import { Sandbox } from "../../../../../stack/sandbox/sandbox.ts";
import { PROVIDERS } from "../../../../../stack/sandbox/registry.ts";
import type { AnthropicStandIn } from "../../../../../stack/sandbox/providers/anthropic.ts";
import { PriceLookupParamsSchema } from "@shared/pricing/schemas.ts";
import { toolDefinitions, TOOLS } from "@shared/agent/tools/mod.ts";

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest;
}

const user = (text: string): BrainMessage => ({ role: "user", blocks: [{ type: "text", text }] });

/** A request forcing one tool whose input_schema is `schema`. */
function forced(schema: z.ZodType, text: string, system = "", name = "submit"): BrainRequest {
  return {
    model: "claude-sonnet-4-6",
    system,
    messages: [user(text)],
    tools: [{ name, description: `Submit the ${name}`, input_schema: jsonSchema(schema) }],
    toolChoice: { type: "tool", name },
    seed: 7,
  };
}

function input(reply: BrainReply): Record<string, unknown> {
  assert.equal(reply.toolUse?.length, 1, JSON.stringify(reply));
  return reply.toolUse![0].input;
}

// ---- schemas as the call sites declare them ----

const DOCUMENT_TYPES = [
  "product_catalog",
  "price_list",
  "technical_datasheet",
  "certificate",
  "installation_guide",
  "brochure",
  "invoice",
  "other",
] as const;
const DocumentClassification = z.object({
  document_type: z.enum(DOCUMENT_TYPES),
  confidence: z.number().min(0).max(1),
  language: z.string().trim().min(2).max(35).nullable().default(null),
  summary: z.string().trim().max(2000).default(""),
}).meta({ id: "DocumentClassification" });
const ImageVerdict = z.object({
  category: z.enum(["material", "certificate", "logo", "specification", "other"]),
  confidence: z.number().min(0).max(1),
});
const listOf = z.array(z.string()).optional();
const Metadata = z.object({
  dimensions: listOf,
  colors: listOf,
  patterns: listOf,
  materials: listOf,
  finishes: listOf,
  applications: listOf,
  certifications: listOf,
}).catchall(z.unknown());
const ProductRecord = z.object({
  product_name: z.string().min(1),
  sku: z.string().optional(),
  manufacturer: z.string().optional(),
  unit_price: z.number().positive().optional(),
  currency: z.string().length(3).optional(),
  color: z.string().optional(),
});
const Discovery = z.object({
  products: z.array(z.object({
    name: z.string().trim().min(1).max(300),
    page_start: z.number().int().min(1),
    page_end: z.number().int().min(1),
  })).max(1000),
  index_pages: z.array(z.number().int().min(1)).default([]),
});
const Materials = z.object({
  materials: z.array(z.object({
    name: z.string().min(1),
    sku: z.string().optional(),
    price: z.string().optional(),
    currency: z.string().optional(),
  })).max(200),
});
const Captions = z.object({
  variants: z.array(
    z.object({ caption: z.string().trim().min(1), hashtags: z.array(z.string()).default([]) }),
  )
    .length(3),
});
const RagReply = z.object({
  found: z.boolean(),
  answer: z.string().min(1).max(20_000),
  citations: z.array(z.string().max(200)).max(100).default([]),
});
const Ranking = z.object({ ranked_ids: z.array(z.string()).describe("every candidate id exactly once") });
const Review = z.object({
  summary: z.string().min(1).max(2000),
  tone_matches_brief: z.boolean(),
  issues: z.array(z.object({ issue: z.string().min(1).max(500), suggestion: z.string().min(1).max(1000) }))
    .max(20),
});

const PAGES = [
  "--- Page 1 ---\nContents\nOak Floor Natur ........ 2\nSlate Tile Anthracite ........ 3",
  "--- Page 2 ---\nOak Floor Natur\nOak Floor Natur is a solid European oak plank, brushed and oiled, 20 mm " +
  "thick with a 6 mm wear layer. Every plank is 180 mm wide and 1800 mm long.",
  "--- Page 3 ---\nSlate Tile Anthracite\nSlate Tile Anthracite is a natural cleft slate tile for floors and " +
  "walls, 60 x 30 cm and 10 mm thick. It carries CE marking under EN 12057.",
  "--- Page 4 ---\nSlate Tile Anthracite - laying and care\nLay Slate Tile Anthracite on a flat bed.",
].join("\n\n");

interface Case {
  name: string;
  req: BrainRequest;
  schema: z.ZodType;
  rule: string;
  check: (v: Record<string, unknown>) => void;
}

const CASES: Case[] = [
  {
    name: "document classification: the type whose words the text uses, confident, language, summary",
    req: forced(
      DocumentClassification,
      "Price list 2026. All prices in EUR per m2, valid from 1 March. Oak Parquet OP-123 42.50 EUR/m2.",
    ),
    schema: DocumentClassification,
    rule: "classify",
    check: (v) => {
      assert.equal(v.document_type, "price_list");
      assert.equal(v.confidence, 0.9);
      assert.equal(v.language, "en");
      assert.match(String(v.summary), /Price list 2026/);
    },
  },
  {
    name: "image classification: a word of the request names the class",
    req: forced(ImageVerdict, "Image logo_acme.png from page 1."),
    schema: ImageVerdict,
    rule: "classify",
    check: (v) => assert.deepEqual(v, { category: "logo", confidence: 0.9 }),
  },
  {
    name: "image classification: no word matches: the first class, with low confidence",
    req: forced(ImageVerdict, "Image img_p2_1.png from page 2."),
    schema: ImageVerdict,
    rule: "classify",
    check: (v) => assert.deepEqual(v, { category: "material", confidence: 0.6 }),
  },
  {
    name: "metadata: lists found in the product's pages, empty when absent",
    req: forced(Metadata, `Product: Oak Floor Natur\n\n${PAGES.split("\n\n")[1]}`),
    schema: Metadata,
    rule: "extract",
    check: (v) => {
      assert.deepEqual(v.materials, ["oak"]);
      assert.deepEqual(v.finishes, ["brushed", "oiled"]);
      assert.deepEqual(v.dimensions, ["20 mm thick", "180 mm wide", "1800 mm long"]);
      assert.deepEqual(v.certifications, []);
    },
  },
  {
    name: "extraction: labelled values, numbers parsed",
    req: forced(
      ProductRecord,
      "Product name: Oak Parquet Rustic\nSKU: OP-123\nBrand: Parkett AG\nPrice: 42.50 EUR per m2\nColour: natural",
    ),
    schema: ProductRecord,
    rule: "extract",
    check: (v) =>
      assert.deepEqual(v, {
        product_name: "Oak Parquet Rustic",
        sku: "OP-123",
        manufacturer: "Parkett AG",
        unit_price: 42.5,
        currency: "EUR",
        color: "natural",
      }),
  },
  {
    name: "product discovery: the index's products with their page ranges, the index page",
    req: forced(Discovery, PAGES, "You find the products in a building-materials catalogue."),
    schema: Discovery,
    rule: "catalogue-products",
    check: (v) =>
      assert.deepEqual(v, {
        products: [
          { name: "Oak Floor Natur", page_start: 2, page_end: 2 },
          { name: "Slate Tile Anthracite", page_start: 3, page_end: 4 },
        ],
        index_pages: [1],
      }),
  },
  {
    name: "product discovery without an index: page headings",
    req: forced(Discovery, PAGES.split("\n\n").slice(1).join("\n\n")),
    schema: Discovery,
    rule: "catalogue-products",
    check: (v) =>
      assert.deepEqual(v, {
        products: [
          { name: "Oak Floor Natur", page_start: 2, page_end: 2 },
          { name: "Slate Tile Anthracite", page_start: 3, page_end: 4 },
        ],
        index_pages: [],
      }),
  },
  {
    name: "a product list: one item per line with a name and a code or a price",
    req: forced(
      Materials,
      "List every product.\n\nOur floors\n- Oak Parquet Rustic - OP-123 - €42.50 per m2\n- Walnut Plank WP-7 " +
        "- €61.00 per m2\nFree delivery from 500 m2.",
    ),
    schema: Materials,
    rule: "product-list",
    check: (v) =>
      assert.deepEqual(v.materials, [
        { name: "Oak Parquet Rustic", sku: "OP-123", price: "42.50", currency: "EUR" },
        { name: "Walnut Plank", sku: "WP-7", price: "61.00", currency: "EUR" },
      ]),
  },
  {
    name: "captions: 3 variants about the product and topic, the hashtag count asked, within the limit",
    req: forced(
      Captions,
      "Platform: twitter (captions up to 280 characters including hashtags).\nTopic: Spring sale on oak floors\n" +
        "Tone: friendly\nProduct: Oak Parquet Rustic (flooring)\nGive exactly 4 relevant hashtags per variant.",
    ),
    schema: Captions,
    rule: "captions",
    check: (v) => {
      const variants = v.variants as { caption: string; hashtags: string[] }[];
      assert.equal(variants.length, 3);
      assert.equal(variants[0].caption, "Discover Oak Parquet Rustic: Spring sale on oak floors.");
      assert.equal(new Set(variants.map((x) => x.caption)).size, 3, "three different angles");
      for (const x of variants) {
        assert.equal(x.hashtags.length, 4);
        assert.ok(x.hashtags.every((h) => /^#[\p{L}\p{N}]+$/u.test(h)), x.hashtags.join(" "));
        assert.ok(x.caption.length + x.hashtags.join(" ").length + 2 <= 280);
      }
      assert.deepEqual(variants[0].hashtags, ["#Parquet", "#Rustic", "#Spring", "#Sale"]);
    },
  },
  {
    name: "RAG answer: quotes the source with the best overlap and cites it",
    req: forced(
      RagReply,
      "Sources:\n\n[S1] (oak.pdf, page 2, product Oak Floor Natur)\nOak Floor Natur is brushed and oiled.\n\n" +
        "[S2] (slate.pdf, pages 3-4)\nSlate Tile Anthracite is frost resistant. It is 10 mm thick.\n\n" +
        "Question: Is the slate tile frost resistant?",
      "You answer questions about building-materials documents using ONLY the numbered sources given.",
    ),
    schema: RagReply,
    rule: "rag-answer",
    check: (v) =>
      assert.deepEqual(v, {
        found: true,
        answer: "Slate Tile Anthracite is frost resistant. [S2]",
        citations: ["S2"],
      }),
  },
  {
    name: "RAG answer: no source shares a word with the question: not found",
    req: forced(
      RagReply,
      "Sources:\n\n[S1] (a.pdf, page 1)\nOak is brushed.\n\nQuestion: Which glue for vinyl?",
    ),
    schema: RagReply,
    rule: "rag-answer",
    check: (v) => assert.deepEqual(v, { found: false, answer: v.answer, citations: [] }),
  },
  {
    name: "re-rank: every id once, by overlap with the query, ties in input order",
    req: forced(
      Ranking,
      'Query: "grey ceramic floor tiles"\nCandidates (4, first-pass order):\n' +
        JSON.stringify([
          { id: "p1", name: "Oak floor", description: "Wood plank", relevanceScore: 0.9 },
          { id: "p2", name: "Grey ceramic tile", description: "Floor tile", relevanceScore: 0.8 },
          { id: "p3", name: "Wall paint", description: "White", relevanceScore: 0.7 },
          { id: "p4", name: "Ceramic tile", description: "Wall", relevanceScore: 0.6 },
        ]) + "\nDo not give explanations.",
      "You re-rank search results",
      "submit_ranking",
    ),
    schema: Ranking,
    rule: "rerank",
    check: (v) => assert.deepEqual(v.ranked_ids, ["p2", "p4", "p1", "p3"]),
  },
  {
    name: "a review: its summary from the text",
    req: forced(Review, "Review this article about ceramic tiles for bathrooms."),
    schema: Review,
    rule: "extract",
    check: (v) => assert.equal(v.summary, "Review this article about ceramic tiles for bathrooms."),
  },
  {
    name: "anything else: the generic schema instance",
    req: forced(z.object({ slug: z.string().regex(/^[a-z-]+$/), weight: z.number().min(1).max(9) }), "hello"),
    schema: z.object({ slug: z.string().regex(/^[a-z-]+$/), weight: z.number().min(1).max(9) }),
    rule: "schema-instance",
    check: () => {},
  },
];

for (const c of CASES) {
  Deno.test(`forced tool, ${c.name}`, () => {
    const reply = think(c.req);
    assert.equal(reply.rule, c.rule);
    const v = input(reply);
    const parsed = c.schema.safeParse(v);
    assert.ok(parsed.success, `schema-valid: ${JSON.stringify(v)} ${parsed.error?.message}`);
    c.check(v);
    assert.deepEqual(think(c.req), reply, "the same request gets the same answer");
  });
}

// ---- the agent loop ----

const AGENT_TOOLS = toolDefinitions(Object.values(TOOLS)).map((d) => ({
  name: d.name,
  description: d.description ?? "",
  input_schema: d.input_schema as Record<string, unknown>,
}));

function agent(
  messages: BrainMessage[],
  toolChoice: BrainRequest["toolChoice"] = { type: "auto" },
): BrainRequest {
  return {
    model: "claude-sonnet-4-6",
    system: "You are the workspace assistant.",
    messages,
    tools: AGENT_TOOLS,
    toolChoice,
    seed: 1,
  };
}

const PRICE_CASES: [string, Record<string, unknown>][] = [
  ["how much is Oak Parquet SKU-123 for 40 m2?", {
    product_name: "Oak Parquet",
    sku: "SKU-123",
    quantity: 40,
    unit: "m2",
  }],
  ["What is the price of Slate Tile Anthracite?", { product_name: "Slate Tile Anthracite" }],
  ["what does Walnut Plank WP-7 cost?", { product_name: "Walnut Plank", sku: "WP-7" }],
  ["Quote for 12 boxes of Oak Parquet Rustic for customer Acme Builders", {
    product_name: "Oak Parquet Rustic",
    quantity: 12,
    unit: "box",
    customer: "Acme Builders",
  }],
];

for (const [message, expected] of PRICE_CASES) {
  Deno.test(`agent: "${message}" calls price_lookup with what the message names`, () => {
    const reply = think(agent([user(message)]));
    assert.equal(reply.rule, "agent-price-lookup");
    assert.deepEqual(reply.toolUse, [{ name: "price_lookup", input: expected }]);
    assert.ok(PriceLookupParamsSchema.safeParse(reply.toolUse![0].input).success);
  });
}

Deno.test("agent: a search calls product_search, a how-to question knowledge_base_search", () => {
  const find = think(agent([user("Do you have grey ceramic floor tiles?")]));
  assert.equal(find.rule, "agent-search");
  assert.deepEqual(find.toolUse, [{ name: "product_search", input: { query: "grey ceramic floor tiles" } }]);
  const howTo = think(agent([user("Find the installation guide for slate tiles")]));
  assert.deepEqual(howTo.toolUse, [{
    name: "knowledge_base_search",
    input: { query: "installation guide slate tiles" },
  }]);
});

Deno.test("agent: small talk and tool_choice none answer in text, saying it is the sandbox model", () => {
  const hello = think(agent([user("Hello, who are you?")]));
  assert.deepEqual(hello, {
    text: 'This is the local sandbox model replying to: "Hello, who are you?"',
    rule: "text",
  });
  const none = think(agent([user("how much is Oak Parquet?")], { type: "none" }));
  assert.equal(none.rule, "text");
  assert.equal(none.toolUse, undefined);
});

Deno.test("agent: a tool_result is answered in text from the result, without another call", () => {
  const proposal = {
    type: "price_proposal",
    product_name: "Oak Parquet",
    list_price: 50,
    discount_percent: 15,
    final_unit_price: 42.5,
    currency: "EUR",
    unit: "m2",
    quantity_applied: 40,
    total: 1700,
    source_doc_ids: [],
    source_titles: [],
    reasoning_chain: [],
    warnings: [],
    confidence: "high",
    effective_through: null,
  };
  const turn = (content: string, is_error = false) =>
    think(agent([
      user("how much is Oak Parquet SKU-123 for 40 m2?"),
      { role: "assistant", blocks: [{ type: "tool_use", id: "toolu_1", name: "price_lookup", input: {} }] },
      { role: "user", blocks: [{ type: "tool_result", tool_use_id: "toolu_1", content, is_error }] },
    ]));
  const priced = turn(JSON.stringify({ note: "n", price_proposal: proposal, top_matches: [] }));
  assert.deepEqual(priced, {
    text: "Oak Parquet: 42.50 EUR per m2 (list price 50 EUR, 15% discount); for 40 m2 the total is 1700 EUR.",
    rule: "agent-tool-result",
  });
  const none = turn(JSON.stringify({ price_proposal: { ...proposal, final_unit_price: null, total: null } }));
  assert.equal(none.text, "I found no price for Oak Parquet in the Pricing documents.");
  const found = turn(
    JSON.stringify({ products: [{ name: "Oak Parquet", sku: "OP-1" }, { name: "Oak Plank" }] }),
  );
  assert.equal(found.text, "I found 2 products: Oak Parquet (SKU OP-1), Oak Plank.");
  assert.equal(
    turn("the workspace has no Pricing documents", true).text,
    "The price_lookup call failed: the workspace has no Pricing documents",
  );
});

Deno.test("text: a product description from the product's facts", () => {
  const reply = think({
    model: "claude-haiku-4-5",
    system: "You write product descriptions for a building-materials catalog. Use only the facts given.",
    messages: [
      user(
        'Language: en\nProduct facts (JSON):\n{"name":"Oak Parquet","sku":"OP-1","category":"flooring","attributes":{"finish":"oiled"}}',
      ),
    ],
    tools: [],
    toolChoice: { type: "auto" },
    seed: 3,
  });
  assert.deepEqual(reply, {
    text: "Oak Parquet is a product of our flooring range (SKU OP-1). Its attributes: finish oiled. " +
      "Ask us for samples and availability of Oak Parquet.",
    rule: "text-description",
  });
});

// ---- through the official SDK against a started Sandbox ----

Deno.test({
  name: "SDK: an agent turn unscripted: price_lookup with the message's product, 40 m2; then the price",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const sandbox = Sandbox.start({ providers: PROVIDERS.filter((d) => d.name === "anthropic") });
    try {
      const llm: AnthropicStandIn = sandbox.get("anthropic");
      const client = new Anthropic({ baseURL: llm.baseUrl, apiKey: "sk-test-key", maxRetries: 0 });
      const tools = AGENT_TOOLS.map((t) => ({
        ...t,
        input_schema: t.input_schema as Anthropic.Tool.InputSchema,
      }));
      const question = "how much is Oak Parquet SKU-123 for 40 m2?";
      const first = await client.messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 1024,
        system: "You are the workspace assistant.",
        tools,
        messages: [{ role: "user", content: question }],
      });
      assert.equal(first.stop_reason, "tool_use");
      const call = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
      assert.ok(call);
      assert.equal(call.name, "price_lookup");
      assert.deepEqual(call.input, { product_name: "Oak Parquet", sku: "SKU-123", quantity: 40, unit: "m2" });
      assert.equal(llm.captures.requests().at(-1)?.rule, "agent-price-lookup");

      const second = await client.messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 1024,
        system: "You are the workspace assistant.",
        tools,
        messages: [
          { role: "user", content: question },
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{
              type: "tool_result",
              tool_use_id: call.id,
              content: JSON.stringify({
                price_proposal: {
                  type: "price_proposal",
                  product_name: "Oak Parquet",
                  list_price: 42.5,
                  discount_percent: null,
                  final_unit_price: 42.5,
                  currency: "EUR",
                  unit: "m2",
                  quantity_applied: 40,
                  total: 1700,
                  confidence: "high",
                },
              }),
            }],
          },
        ],
      });
      assert.equal(second.stop_reason, "end_turn");
      assert.deepEqual(second.content, [{
        type: "text",
        text: "Oak Parquet: 42.50 EUR per m2; for 40 m2 the total is 1700 EUR.",
      }]);
      assert.equal(llm.captures.requests().at(-1)?.rule, "agent-tool-result");
    } finally {
      await sandbox.stop();
    }
  },
});
