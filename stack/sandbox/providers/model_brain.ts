/**
 * The sandbox model: what the model stand-ins (Anthropic's Messages API in anthropic.ts, OpenAI's
 * chat completions in openai.ts) answer when nothing is scripted. It is provider-neutral: each
 * stand-in turns its wire request into a BrainRequest and the BrainReply back into its wire
 * answer, so both play the platform the same way. It is deterministic (the same request gets the
 * same answer) and a forced tool's input is always valid against the tool's input_schema (checked
 * with zod's z.fromJSONSchema; a meaningful answer that would not be valid falls back to the
 * generic instance). It reads the request, never the platform's code: the forced tool's schema
 * (property names, enums), the system prompt and the user text (model_rules.ts has the readers).
 *
 * Rules, tried in this order; every reply names its rule (BrainReply.rule, shown in the capture):
 *
 * | rule               | fires when                                           | answers                                                                 |
 * |--------------------|------------------------------------------------------|-------------------------------------------------------------------------|
 * | rerank             | forced tool with an array-of-strings property named  | every candidate id once (the JSON array of {id,...} or `[id]` lines of    |
 * |                    | *ids/order/rank*, and candidates in the text         | the prompt), by word overlap with the "Query:" line, ties in input order; |
 * |                    |                                                      | `explanations` (when asked) name the shared words                         |
 * | rag-answer         | forced tool, and the text holds `[S1] (...)` sources | found true, the sentence of the source with the best word overlap with    |
 * |                    | and a "Question:" (rag/answer.ts)                    | the question, quoted with its [Sn] marker, cited in the array property;   |
 * |                    |                                                      | no overlap at all: found false, no citation                               |
 * | captions           | forced tool with an array of objects that have a     | minItems (else 3) variants "Discover <product>: <topic>" and two other    |
 * |                    | caption/text/post property                           | angles, within the "up to N characters" of the prompt, each with exactly  |
 * |                    |                                                      | the hashtag count asked ("exactly N ... hashtags") made of their words    |
 * | catalogue-products | forced tool with an array of objects with page_start | the products of the `--- Page N ---` text: the entries of its index page  |
 * |                    | and page_end (product discovery, boundaries)         | (name .... page), else each page's heading, each running to the last page |
 * |                    |                                                      | that still names it; index_pages = the contents/index pages               |
 * | product-list       | forced tool with an array of objects with a name     | one item per line of the text with a name and a code or a price, each     |
 * |                    | property (scraped materials, extracted products)     | filled like `extract` from its own line                                   |
 * | classify           | forced tool with an enum property                    | the enum value whose words overlap the user text most (ties: the first);  |
 * |                    |                                                      | confidence 0.9 when a word matched, 0.6 when not (inside the bounds)      |
 * | extract            | forced tool whose properties name values in the text | "Label: value" lines, table rows and "label value" phrases whose label     |
 * |                    | (metadata, product records, facts)                   | matches the property (name, sku, manufacturer, price, currency, unit ...); |
 * |                    |                                                      | numbers parsed; lists of dimensions, colors, materials, finishes,         |
 * |                    |                                                      | applications, certifications found in the text (empty when none)          |
 * | schema-instance    | any other forced tool                                | the generic instance of anthropic_tools.ts `instanceOf`                   |
 * | agent-price-lookup | tools offered, none forced, the last user message is | a `price_lookup` call with product_name, sku, quantity, unit (and a       |
 * |                    | a text asking a price ("how much", "price of",       | customer named "for customer X") read from the message, only the keys    |
 * |                    | "cost", "quote")                                     | its input_schema has                                                      |
 * | agent-search       | tools offered, none forced, the message asks to find | product_search (knowledge_base_search for how-to/guide questions, or the  |
 * |                    | ("find", "search", "show me", "do you have")         | first *search* tool) with the message's search words as query             |
 * | agent-tool-result  | the last user message carries tool_result blocks and | a short text from the result: the price_proposal's product, unit price,   |
 * |                    | no tool is forced                                    | currency and total; a search's first names; an error said as such         |
 * | text-description   | no tool, the system asks for a product description   | 2-3 sentences from the "Product facts" JSON (name, SKU, category,         |
 * |                    | and the text carries product facts as JSON           | attributes), nothing invented                                             |
 * | text               | anything else (tool_choice none included)            | "This is the local sandbox model replying to: "<last user text>""          |
 */
import { instanceOf, wordsOf } from "./anthropic_tools.ts";
import {
  asksPrice,
  asksSearch,
  candidatesIn,
  catalogueProducts,
  certificationsIn,
  clip,
  currencyIn,
  dimensionsIn,
  fits,
  type FoundProduct,
  isIndexPage,
  labelsFor,
  labelValue,
  listedProducts,
  numberIn,
  overlap,
  pagesIn,
  priceIn,
  priceQuestion,
  propertiesOf,
  queryIn,
  resolve,
  type Schema,
  searchQuery,
  sentencesOf,
  skuIn,
  sourcesIn,
  termsOf,
  typeOf,
  validAgainst,
  vocabIn,
} from "./model_rules.ts";

export interface BrainTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export type BrainBlock =
  | { type: "text"; text: string }
  | { type: "image" }
  | { type: "document"; text?: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean };

export interface BrainMessage {
  role: "user" | "assistant";
  blocks: BrainBlock[];
}

export type BrainToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "any" }
  | { type: "tool"; name: string };

export interface BrainRequest {
  model: string;
  /** The system prompt as one text. */
  system: string;
  messages: BrainMessage[];
  tools: BrainTool[];
  toolChoice: BrainToolChoice;
  /** Deterministic seed of the request (same request, same answer). */
  seed: number;
}

export interface BrainReply {
  text?: string;
  toolUse?: { name: string; input: Record<string, unknown> }[];
  /** Which rule produced the reply (shown in the sandbox's captures). */
  rule: string;
}

/** The text of a message's text blocks (and tool results), joined. */
export function messageText(m: BrainMessage): string {
  return m.blocks.map((b) =>
    b.type === "text"
      ? b.text
      : b.type === "tool_result"
      ? b.content
      : b.type === "document"
      ? b.text ?? ""
      : ""
  ).filter(Boolean).join("\n");
}

/** The tool the request makes the model call, or null when it may answer in text. */
export function forcedToolOf(req: BrainRequest): BrainTool | null {
  if (req.toolChoice.type === "tool") {
    const name = req.toolChoice.name;
    return req.tools.find((t) => t.name === name) ?? null;
  }
  if (req.toolChoice.type === "any") return req.tools[0] ?? null;
  return null;
}

/** The sandbox model's answer to an unscripted request (see the rules in the module doc). */
export function think(req: BrainRequest): BrainReply {
  const users = req.messages.filter((m) => m.role === "user");
  const last = users.at(-1);
  const userText = last ? messageText(last) : "";
  const results = (last?.blocks ?? []).filter((b) => b.type === "tool_result");
  if (req.toolChoice.type === "tool") {
    const tool = forcedToolOf(req);
    if (tool) return forcedAnswer(req, tool, userText);
  }
  const agentic = req.tools.length > 0 && req.toolChoice.type !== "none";
  if (agentic && !results.length) {
    const call = chooseTool(req.tools, userText);
    if (call) return call;
  }
  if (req.toolChoice.type === "any" && req.tools.length) return forcedAnswer(req, req.tools[0], userText);
  if (results.length) return { text: resultAnswer(req, results), rule: "agent-tool-result" };
  const description = /description/i.test(req.system) ? describeFacts(userText) : null;
  if (description) return { text: description, rule: "text-description" };
  return { text: `This is the local sandbox model replying to: "${userText.slice(0, 200)}"`, rule: "text" };
}

// ---- forced tools -------------------------------------------------------------------------------

interface Focus {
  /** The text values are read from (the user text, or one product's line). */
  text: string;
  terms: Set<string>;
  product?: FoundProduct;
}

interface Fill {
  root: Schema;
  user: string;
  /** Rules that contributed, in the order they fired. */
  fired: string[];
}

function fire(f: Fill, rule: string): void {
  if (!f.fired.includes(rule)) f.fired.push(rule);
}

function focusOn(text: string, product?: FoundProduct): Focus {
  return { text, terms: new Set(termsOf(text)), product };
}

function genericOf(schema: unknown, req: BrainRequest, tool: BrainTool, userText: string): unknown {
  const earlier = req.messages.filter((m) => m.role === "user").map(messageText).reverse();
  const words = [userText, ...earlier, tool.description, tool.name].map(wordsOf).find((w) => w.length) ?? [];
  return instanceOf(schema, { seed: req.seed, words });
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : { value: v };
}

function forcedAnswer(req: BrainRequest, tool: BrainTool, userText: string): BrainReply {
  const root = tool.input_schema;
  const base = asObject(genericOf(root, req, tool, userText));
  const schema = resolve(root, root);
  const f: Fill = { root, user: userText, fired: [] };
  const reply = (input: Record<string, unknown>, rule: string): BrainReply => ({
    toolUse: [{ name: tool.name, input }],
    rule,
  });
  if (typeOf(schema) === "object") {
    for (const [rule, special] of SPECIALS) {
      const value = special(schema, base, f);
      if (value && validAgainst(value, root)) return reply(value, rule);
    }
    const filled = fillObject(schema, base, focusOn(userText), f, 0);
    const order = ["catalogue-products", "product-list", "classify", "extract"];
    const rule = order.find((r) => f.fired.includes(r));
    if (rule && validAgainst(filled, root)) return reply(filled, rule);
  }
  return reply(base, "schema-instance");
}

type Special = (schema: Schema, base: Record<string, unknown>, f: Fill) => Record<string, unknown> | null;

function arrayItems(raw: unknown, root: Schema): Schema | null {
  const s = resolve(raw, root);
  return typeOf(s) === "array" ? resolve(s.items, root) : null;
}

const rerankRule: Special = (schema, base, f) => {
  const entry = propertiesOf(schema).find(([k, raw]) =>
    /ids?$|order|rank/i.test(k) && typeOf(arrayItems(raw, f.root) ?? {}) === "string"
  );
  const candidates = candidatesIn(f.user);
  if (!entry || !candidates.length) return null;
  const query = termsOf(queryIn(f.user) ?? f.user);
  const scored = candidates.map((c, i) => {
    const terms = new Set(termsOf(c.text));
    return { ...c, i, shared: query.filter((t, j) => terms.has(t) && query.indexOf(t) === j) };
  });
  const ranked = [...scored].sort((a, b) => b.shared.length - a.shared.length || a.i - b.i);
  const out: Record<string, unknown> = { ...base, [entry[0]]: ranked.map((c) => c.id) };
  const explain = propertiesOf(schema).find(([k]) => /explanation/i.test(k));
  if (explain) {
    out[explain[0]] = Object.fromEntries(ranked.map((c) => [
      c.id,
      c.shared.length
        ? `Shares ${c.shared.length} of the query's words (${c.shared.join(", ")}).`
        : "Shares no word with the query; kept in first-pass order.",
    ]));
  }
  return out;
};

const ragRule: Special = (schema, base, f) => {
  const found = sourcesIn(f.user);
  if (!found) return null;
  const question = termsOf(found.question);
  let best = { score: 0, label: "", sentence: "" };
  for (const s of found.sources) {
    for (const sentence of sentencesOf(s.content)) {
      const score = overlap(question, new Set(termsOf(`${s.heading} ${sentence}`)));
      if (score > best.score) best = { score, label: s.label, sentence };
    }
  }
  const out: Record<string, unknown> = { ...base };
  for (const [key, raw] of propertiesOf(schema)) {
    const s = resolve(raw, f.root);
    const type = typeOf(s);
    if (type === "boolean") out[key] = best.score > 0;
    else if (type === "string" && /answer|text|response|reply/i.test(key)) {
      const max = typeof s.maxLength === "number" ? s.maxLength : 2000;
      out[key] = best.score > 0
        ? `${clip(best.sentence, max - best.label.length - 3)} [${best.label}]`
        : "The retrieved sources do not answer this question.";
    } else if (type === "array" && /citation|source|reference/i.test(key)) {
      out[key] = best.score > 0 ? [best.label] : [];
    }
  }
  return out;
};

const FALLBACK_TAGS = ["BuildingMaterials", "InteriorDesign", "Renovation", "HomeDesign", "Architecture"];

function hashtagsFor(words: string[], count: number): string[] {
  const tags: string[] = [];
  const push = (t: string) => {
    if (t && !tags.some((x) => x.toLowerCase() === t.toLowerCase())) tags.push(t);
  };
  for (const w of words) {
    if (w.length > 3 && /^[\p{L}\p{N}]+$/u.test(w)) push(w[0].toUpperCase() + w.slice(1).toLowerCase());
  }
  for (const t of FALLBACK_TAGS) push(t);
  for (let i = 1; tags.length < count; i++) push(`Sandbox${i}`);
  return tags.slice(0, count).map((t) => `#${t}`);
}

const captionsRule: Special = (schema, base, f) => {
  const entry = propertiesOf(schema).find(([, raw]) => {
    const items = arrayItems(raw, f.root);
    return items && propertiesOf(items).some(([k]) => /caption|^text$|post|copy/i.test(k));
  });
  if (!entry) return null;
  const arr = resolve(entry[1], f.root);
  const items = resolve(arr.items, f.root);
  const count = Math.min(
    typeof arr.minItems === "number" && arr.minItems > 0 ? arr.minItems : 3,
    typeof arr.maxItems === "number" ? arr.maxItems : 10,
  );
  const topic = labelValue(f.user, ["topic", "subject", "theme"]) ?? sentencesOf(f.user)[0] ?? "our range";
  const product = labelValue(f.user, ["product", "product name"])?.replace(/\s*\(.*\)$/, "") ?? null;
  const limit = Number(/up to (\d+) characters/i.exec(f.user)?.[1] ?? 280);
  const noTags = /\bno hashtags\b/i.test(f.user);
  const tagCount = noTags ? 0 : Number(/exactly (\d+)[^.\n]*hashtags/i.exec(f.user)?.[1] ?? 3);
  const subject = product ?? topic;
  const angles = [
    `Discover ${subject}: ${topic}.`,
    `${topic} - made for your next project${product ? ` with ${product}` : ""}.`,
    `Why choose ${subject}? ${topic}. Ask us for samples.`,
    `Behind the surface: ${subject}. ${topic}.`,
    `Planning a renovation? ${topic} with ${subject}.`,
  ];
  const tags = hashtagsFor(wordsOf(`${product ?? ""} ${topic}`), tagCount);
  const room = Math.max(10, limit - (tags.length ? tags.join(" ").length + 2 : 0));
  const variants = Array.from({ length: count }, (_, i) => {
    const caption = clip(angles[i % angles.length].replace(/\.\./g, "."), room);
    const item: Record<string, unknown> = {};
    for (const [key, raw] of propertiesOf(items)) {
      const s = resolve(raw, f.root);
      if (typeOf(s) === "string" && /caption|^text$|post|copy/i.test(key)) item[key] = caption;
      else if (typeOf(s) === "array" && /hashtag|tag/i.test(key)) item[key] = tags;
    }
    return item;
  });
  return { ...base, [entry[0]]: variants };
};

const SPECIALS: [string, Special][] = [["rerank", rerankRule], ["rag-answer", ragRule], [
  "captions",
  captionsRule,
]];

const NAME_KEY = /^(name|product_?name|title|product)$/i;

function fillObject(s: Schema, base: Record<string, unknown>, focus: Focus, f: Fill, depth: number) {
  const out: Record<string, unknown> = { ...base };
  const state = { matched: false, hadEnum: false };
  // Enums first: a confidence says how sure the classification in the same object is.
  const props = propertiesOf(s).sort(([, a], [, b]) =>
    Number(Array.isArray(resolve(b, f.root).enum)) - Number(Array.isArray(resolve(a, f.root).enum))
  );
  for (const [key, raw] of props) {
    const v = fillValue(key, resolve(raw, f.root), out[key], focus, f, depth, state);
    if (v !== undefined && fits(v, raw, f.root)) out[key] = v;
  }
  return out;
}

function confidenceIn(s: Schema, state: { matched: boolean; hadEnum: boolean }): number {
  const p = state.hadEnum ? (state.matched ? 0.9 : 0.6) : 0.85;
  const lo = typeof s.minimum === "number" ? s.minimum : 0;
  const hi = typeof s.maximum === "number" ? s.maximum : 1;
  const v = hi > 1 ? lo + p * (hi - lo) : p;
  const scaled = typeOf(s) === "integer" ? Math.round(v) : Math.round(v * 100) / 100;
  return Math.min(Math.max(scaled, lo), hi);
}

const LIST_KINDS: [RegExp, (text: string) => string[]][] = [
  [/dimension|size/i, dimensionsIn],
  [/colou?r/i, (t) => vocabIn(t, "color")],
  [/material/i, (t) => vocabIn(t, "material")],
  [/finish/i, (t) => vocabIn(t, "finish")],
  [/pattern/i, (t) => vocabIn(t, "pattern")],
  [/application|usage|use_?case/i, (t) => vocabIn(t, "application")],
  [/texture/i, (t) => vocabIn(t, "texture")],
  [/certific|standard/i, certificationsIn],
];

function listFromLabel(text: string, key: string): string[] | null {
  const v = labelValue(text, labelsFor(key));
  return v ? v.split(/\s*(?:,|;|\/|\band\b)\s*/).map((x) => x.trim()).filter(Boolean).slice(0, 20) : null;
}

function fillValue(
  key: string,
  s: Schema,
  generic: unknown,
  focus: Focus,
  f: Fill,
  depth: number,
  state: { matched: boolean; hadEnum: boolean },
): unknown {
  const type = typeOf(s);
  if (Array.isArray(s.enum) && s.enum.length) {
    state.hadEnum = true;
    const values = s.enum.filter((v): v is string => typeof v === "string");
    if (!values.length) return undefined;
    const scored = values.map((v, i) => ({ v, i, score: overlap(termsOf(v), focus.terms) }));
    const best = [...scored].sort((a, b) => b.score - a.score || a.i - b.i)[0];
    if (best.score > 0) state.matched = true;
    fire(f, "classify");
    return best.v;
  }
  if (type === "number" || type === "integer") {
    if (/confidence|probability|certainty|score$/i.test(key)) return confidenceIn(s, state);
    if (/page/i.test(key) || !focus.text) return undefined;
    let n: number | null = null;
    if (/price|amount|cost/i.test(key)) n = priceIn(focus.text)?.amount ?? null;
    if (n === null) {
      const v = labelValue(focus.text, labelsFor(key));
      n = v === null ? null : numberIn(v);
    }
    if (n === null) return undefined;
    fire(f, "extract");
    return type === "integer" ? Math.round(n) : n;
  }
  if (type === "boolean") return /^(is_)?(valid|found|ok|correct)$/i.test(key) ? true : undefined;
  if (type === "string") {
    if (typeof s.format === "string") return undefined;
    const v = stringFor(key, s, focus);
    if (v !== null) fire(f, "extract");
    return v ?? undefined;
  }
  if (type === "array") {
    const items = resolve(s.items, f.root);
    if (typeOf(items) === "string" && !Array.isArray(items.enum)) {
      const list = listFromLabel(focus.text, key) ?? LIST_KINDS.find(([re]) => re.test(key))?.[1](focus.text);
      if (!list) return undefined;
      fire(f, "extract");
      return list;
    }
    if (typeOf(items) === "number" || typeOf(items) === "integer") {
      if (/index_?pages?/i.test(key)) {
        const pages = pagesIn(f.user);
        return pages.length ? pages.filter(isIndexPage).map((p) => p.number) : undefined;
      }
      return undefined;
    }
    if (typeOf(items) === "object" && depth < 4) {
      const props = propertiesOf(items).map(([k]) => k);
      if (!props.some((k) => NAME_KEY.test(k))) return undefined;
      const paged = props.includes("page_start") && props.includes("page_end");
      const pages = paged ? pagesIn(f.user) : [];
      const products = paged ? catalogueProducts(pages) : listedProducts(focus.text);
      if (paged && !pages.length) return undefined;
      if (!products.length && !paged) return undefined;
      fire(f, paged ? "catalogue-products" : "product-list");
      const max = typeof s.maxItems === "number" ? s.maxItems : 1000;
      return products.slice(0, max).map((p) => {
        const itemBase = asObject(Array.isArray(generic) && generic.length ? generic[0] : {});
        const item = fillObject(items, itemBase, focusOn(p.text, p), f, depth + 1);
        for (const k of props) {
          if (NAME_KEY.test(k)) item[k] = p.name;
          if (k === "page_start" && p.page_start !== undefined) item[k] = p.page_start;
          if (k === "page_end" && p.page_end !== undefined) item[k] = p.page_end;
        }
        return item;
      });
    }
    return undefined;
  }
  if (type === "object" && depth < 4) {
    return fillObject(s, asObject(generic ?? {}), focus, f, depth + 1);
  }
  return undefined;
}

/** A JSON object of product facts in the text ({"name", "sku", "category", "attributes"}). */
function factsIn(text: string): Record<string, unknown> | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  try {
    const v = JSON.parse(text.slice(start, end + 1));
    return v && typeof v === "object" && typeof v.name === "string" ? v : null;
  } catch (_) {
    return null; // braces that are not JSON: there are no facts to describe
  }
}

/** A plain description from product facts (only what the facts say), or null without facts. */
function describeFacts(text: string): string | null {
  const facts = factsIn(text);
  if (!facts) return null;
  const name = String(facts.name);
  const category = typeof facts.category === "string" && facts.category ? facts.category : null;
  const sku = typeof facts.sku === "string" && facts.sku ? facts.sku : null;
  const attrs = Object.entries(
    facts.attributes && typeof facts.attributes === "object"
      ? facts.attributes as Record<string, unknown>
      : {},
  ).filter(([, v]) => v !== null && v !== "" && typeof v !== "object").slice(0, 6);
  const parts = [
    `${name} is ${category ? `a product of our ${category} range` : "a product of our catalog"}${
      sku ? ` (SKU ${sku})` : ""
    }.`,
  ];
  if (attrs.length) {
    parts.push(`Its attributes: ${attrs.map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ")}.`);
  }
  parts.push(`Ask us for samples and availability of ${name}.`);
  return parts.join(" ");
}

const LANGUAGES: [string, RegExp][] = [
  ["en", /\b(and|the|with|for|is|of)\b/gi],
  ["de", /\b(und|der|die|das|mit|für|ist)\b/gi],
  ["fr", /\b(et|le|la|les|avec|pour|est|des)\b/gi],
  ["es", /\b(y|el|los|las|con|para|es|del)\b/gi],
  ["it", /\b(il|gli|con|della|sono)\b/gi],
];

function languageOf(text: string): string {
  const counts = LANGUAGES.map(([code, re]) => ({ code, n: text.match(re)?.length ?? 0 }));
  return counts.sort((a, b) => b.n - a.n)[0].n > 0 ? counts[0].code : "en";
}

function stringFor(key: string, s: Schema, focus: Focus): string | null {
  const text = focus.text;
  const max = typeof s.maxLength === "number" ? s.maxLength : 2000;
  if (/^(language|lang|locale)$/i.test(key)) return languageOf(text);
  if (NAME_KEY.test(key)) {
    return focus.product?.name ?? labelValue(text, labelsFor(key)) ?? factsIn(text)?.name as string ?? null;
  }
  if (/^(sku|code|product_?code)$/i.test(key)) return labelValue(text, labelsFor(key)) ?? skuIn(text);
  if (/currency/i.test(key)) return priceIn(text)?.currency ?? currencyIn(text);
  if (/price|amount/i.test(key)) {
    const p = priceIn(text);
    return p ? p.amount.toFixed(2) : labelValue(text, labelsFor(key));
  }
  if (/material_?type/i.test(key)) return vocabIn(text, "material")[0] ?? null;
  const labelled = labelValue(text, labelsFor(key));
  if (labelled) return clip(labelled, max);
  if (/description|summary/i.test(key)) {
    const facts = describeFacts(text);
    if (facts) return clip(facts, max);
    const about = focus.product
      ? sentencesOf(text).filter((x) => x.toLowerCase().includes(focus.product!.name.toLowerCase()))
      : sentencesOf(text);
    return about.length ? clip(about.slice(0, 2).join(" "), max) : null;
  }
  return null;
}

// ---- tools the model chooses --------------------------------------------------------------------

/** The call the message asks for (price or search), or null to answer in text. */
function chooseTool(tools: BrainTool[], text: string): BrainReply | null {
  if (!text.trim()) return null;
  const byName = (re: RegExp) => tools.find((t) => re.test(t.name));
  const price = byName(/^price_lookup$/) ?? byName(/price/);
  if (price && asksPrice(text)) {
    const q = priceQuestion(text);
    const props = new Set(propertiesOf(resolve(price.input_schema, price.input_schema)).map(([k]) => k));
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(q)) {
      if (v !== undefined && props.has(k)) input[k] = v;
    }
    if (!props.has("product_name") && props.has("query")) input.query = q.product_name;
    if (validAgainst(input, price.input_schema)) {
      return { toolUse: [{ name: price.name, input }], rule: "agent-price-lookup" };
    }
  }
  if (asksSearch(text)) {
    const howTo =
      /\b(how|install|guide|manual|instructions?|documentation|datasheet|specifications?|maintain|clean|care)\b/i
        .test(text);
    const search = (howTo ? byName(/knowledge|kb/) : undefined) ?? byName(/^product_search$/) ??
      byName(/search/);
    if (search) {
      const schema = resolve(search.input_schema, search.input_schema);
      const key = propertiesOf(schema).find(([k, raw]) =>
        /query|q|search|text/i.test(k) && typeOf(resolve(raw, search.input_schema)) === "string"
      )?.[0];
      const input = key ? { [key]: clip(searchQuery(text), 200) } : {};
      if (validAgainst(input, search.input_schema)) {
        return { toolUse: [{ name: search.name, input }], rule: "agent-search" };
      }
    }
  }
  return null;
}

function money(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

/** A short answer written from the tool results of the last user message. */
function resultAnswer(req: BrainRequest, results: BrainBlock[]): string {
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  for (const m of req.messages) {
    for (const b of m.blocks) if (b.type === "tool_use") calls.set(b.id, b);
  }
  return results.map((b) => {
    if (b.type !== "tool_result") return "";
    const call = calls.get(b.tool_use_id);
    const name = call?.name ?? "the tool";
    if (b.is_error) return `The ${name} call failed: ${clip(b.content, 300)}`;
    let data: Record<string, unknown> | null = null;
    try {
      const parsed = JSON.parse(b.content);
      data = parsed && typeof parsed === "object" ? parsed : null;
    } catch (_) {
      data = null; // a plain-text result is quoted as it is below
    }
    const proposal = data?.price_proposal as Record<string, unknown> | undefined;
    if (proposal) {
      const product = String(proposal.product_name ?? call?.input.product_name ?? "the product");
      const currency = String(proposal.currency ?? "");
      const unit = proposal.unit ? ` per ${proposal.unit}` : "";
      if (typeof proposal.final_unit_price !== "number") {
        const warnings = (proposal.warnings as string[] | undefined)?.join("; ");
        return `I found no price for ${product} in the Pricing documents${warnings ? ` (${warnings})` : ""}.`;
      }
      let out = `${product}: ${money(proposal.final_unit_price)} ${currency}${unit}`;
      if (typeof proposal.discount_percent === "number" && proposal.discount_percent > 0) {
        out += ` (list price ${
          money(proposal.list_price as number)
        } ${currency}, ${proposal.discount_percent}% discount)`;
      }
      if (typeof proposal.total === "number" && typeof proposal.quantity_applied === "number") {
        out += `; for ${proposal.quantity_applied}${proposal.unit ? ` ${proposal.unit}` : ""} the total is ${
          money(proposal.total)
        } ${currency}`;
      }
      if (proposal.confidence === "low") out += ". This is a candidate price only: please check it";
      return `${out}.`;
    }
    const products = data?.products as Record<string, unknown>[] | undefined;
    if (Array.isArray(products)) {
      if (!products.length) return "I found no matching products in the catalog.";
      const names = products.slice(0, 5).map((p) => `${p.name}${p.sku ? ` (SKU ${p.sku})` : ""}`);
      return `I found ${products.length} product${products.length === 1 ? "" : "s"}: ${names.join(", ")}.`;
    }
    const passages = data?.passages as Record<string, unknown>[] | undefined;
    if (Array.isArray(passages)) {
      if (!passages.length) return "The knowledge base has nothing on this.";
      const p = passages[0];
      return `From "${p.document_title}": ${clip(sentencesOf(String(p.content ?? ""))[0] ?? "", 300)}`;
    }
    return `The ${name} tool answered: ${clip(b.content, 300)}`;
  }).filter(Boolean).join("\n");
}
