/**
 * What one page yields: structured data first (structured.ts: JSON-LD, microdata, OpenGraph); only
 * when that finds no product, the language model reads the page's text with the caller's prompt,
 * system prompt and JSON Schema (options). The model must answer `{"materials": [...]}`; each
 * material is validated with zod (a non-empty `name`, and the caller's schema through
 * z.fromJSONSchema when one is given). A malformed answer (not JSON, or not matching) is sent back
 * once with the problem; a second malformed answer fails the page (`llm_invalid_output`).
 *
 * The model: Anthropic's Messages API through the official SDK (agent/llm.ts anthropicFromEnv:
 * ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), model SCRAPER_MODEL. Every model extraction is billed
 * through the caller's `bill` (billing.ts: 1 credit, refunded when it fails); structured data is
 * free.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { parse as parseHtml } from "node-html-parser";
import { z } from "zod";
import { DomainError } from "../errors.ts";
import { extractStructuredProducts, normalizePrice, type StructuredProduct } from "./structured.ts";

export interface ExtractOptions {
  prompt?: string;
  systemPrompt?: string;
  /** JSON Schema of one material (the model's `materials` items). */
  schema?: Record<string, unknown>;
  /** Deadline for the model call, ms. */
  timeout?: number;
}

export type MaterialSource = StructuredProduct["source"] | "llm";

/** One extracted material, as scraping_complete_page stores it. */
export interface Material {
  name: string;
  description?: string;
  sku?: string;
  brand?: string;
  price?: string;
  currency?: string;
  source_url: string;
  source: MaterialSource;
  data: Record<string, unknown>;
}

export interface PageExtraction {
  method: MaterialSource | "none";
  materials: Material[];
}

const MAX_TEXT_CHARS = 30_000;
const DEFAULT_SYSTEM =
  "You extract building-material and product listings from web pages for a materials catalog. " +
  "Answer with one JSON object only, no prose.";
const DEFAULT_PROMPT = "List every product or material this page offers, with its price when shown.";

/** Validates a caller's JSON Schema up front (400 when zod cannot use it). */
export function schemaValidator(schema: Record<string, unknown> | undefined): z.ZodType | null {
  if (!schema) return null;
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    throw DomainError.invalid(`options.schema: not a usable JSON Schema (${(err as Error).message})`);
  }
}

/** The readable text of a page: title, description and body text without scripts and styles. */
export function pageText(html: string): string {
  const root = parseHtml(html, { comment: false });
  for (const el of root.querySelectorAll("script, style, noscript, svg, template")) el.remove();
  const title = root.querySelector("title")?.text.trim() ?? "";
  const description = root.querySelector('meta[name="description"]')?.getAttribute("content") ?? "";
  const body = (root.querySelector("body") ?? root).structuredText.replace(/[ \t]+/g, " ").replace(
    /\n{3,}/g,
    "\n\n",
  );
  return [title && `Title: ${title}`, description && `Description: ${description}`, body.trim()]
    .filter(Boolean).join("\n").slice(0, MAX_TEXT_CHARS);
}

function fromStructured(p: StructuredProduct, pageUrl: string): Material {
  const { name, description, sku, brand, price, currency, source, ...rest } = p;
  const m: Material = { name, source_url: p.url ?? pageUrl, source, data: { ...rest } };
  if (description) m.description = description;
  if (sku) m.sku = sku;
  if (brand) m.brand = brand;
  if (price) m.price = price;
  if (currency) m.currency = currency;
  return m;
}

const Named = z.looseObject({ name: z.string().trim().min(1).max(500) });
const Answer = z.object({ materials: z.array(z.unknown()).max(200) });

/** The first {...} object in a reply (models sometimes wrap JSON in prose or a code fence). */
function firstObject(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("no JSON object in the answer");
  return JSON.parse(text.slice(start, end + 1));
}

function issue(err: z.ZodError, at: string): string {
  const i = err.issues[0];
  return `${at}${i?.path.length ? "." + i.path.join(".") : ""}: ${i?.message ?? "invalid"}`;
}

/** Parses and validates one model answer; throws Error(message) naming the problem. */
export function parseModelAnswer(text: string, validator: z.ZodType | null, pageUrl: string): Material[] {
  let raw: unknown;
  try {
    raw = firstObject(text);
  } catch (err) {
    throw new Error(`the answer is not JSON (${(err as Error).message})`);
  }
  const answer = Answer.safeParse(raw);
  if (!answer.success) throw new Error(issue(answer.error, "answer"));
  return answer.data.materials.map((item, i) => {
    const named = Named.safeParse(item);
    if (!named.success) throw new Error(issue(named.error, `materials.${i}`));
    if (validator) {
      const ok = validator.safeParse(item);
      if (!ok.success) throw new Error(issue(ok.error, `materials.${i}`));
    }
    const o = named.data as Record<string, unknown>;
    const s = (
      k: string,
    ) => (typeof o[k] === "string" && (o[k] as string).trim() ? (o[k] as string).trim() : undefined);
    const m: Material = { name: named.data.name, source_url: pageUrl, source: "llm", data: { ...o } };
    for (const k of ["description", "sku", "brand"] as const) {
      const v = s(k);
      if (v) m[k] = v;
    }
    const price = normalizePrice(o.price as never);
    if (price) m.price = price;
    const currency = s("currency");
    if (currency) m.currency = currency.toUpperCase().slice(0, 8);
    return m;
  });
}

export interface LlmDeps {
  client: () => Anthropic;
  model: string;
}

/** The model's materials for a page (one corrective retry on a malformed answer). */
export async function extractWithLlm(
  html: string,
  pageUrl: string,
  opts: ExtractOptions,
  deps: LlmDeps,
): Promise<Material[]> {
  const validator = schemaValidator(opts.schema);
  const client = deps.client();
  const schemaLine = opts.schema
    ? `Each material must match this JSON Schema and also have a "name": ${JSON.stringify(opts.schema)}`
    : 'Each material: {"name", "description", "sku", "brand", "price" (decimal string), "currency" (ISO 4217), "category", "image"}; only "name" is required.';
  const messages: Anthropic.MessageParam[] = [{
    role: "user",
    content:
      `${
        opts.prompt ?? DEFAULT_PROMPT
      }\n\nAnswer with {"materials": [...]} (an empty list when the page shows ` +
      `no product). ${schemaLine}\n\nPage URL: ${pageUrl}\n\n${pageText(html)}`,
  }];
  let problem = "";
  for (let attempt = 1; attempt <= 2; attempt++) {
    let text: string;
    try {
      const res = await client.messages.create(
        { model: deps.model, max_tokens: 4096, system: opts.systemPrompt ?? DEFAULT_SYSTEM, messages },
        { timeout: opts.timeout ?? 60_000 },
      );
      text = res.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new DomainError("upstream", "llm_error", `The language model failed: ${(err as Error).message}`);
    }
    try {
      return parseModelAnswer(text, validator, pageUrl);
    } catch (err) {
      problem = (err as Error).message;
      messages.push(
        { role: "assistant", content: text || "(empty)" },
        {
          role: "user",
          content: `That answer is not valid: ${problem}. Answer again with only the JSON object.`,
        },
      );
    }
  }
  throw new DomainError(
    "upstream",
    "llm_invalid_output",
    `The language model's answer was not valid twice: ${problem}`,
  );
}

/** Wraps one model call in its billing (scraping/billing.ts: debit first, refund on failure). */
export type ModelBilling = <T>(call: () => Promise<T>) => Promise<T>;

/**
 * Structured data first (free), then the model when that finds nothing (and a model is
 * configured), through `bill`.
 */
export async function extractPage(
  html: string,
  pageUrl: string,
  opts: ExtractOptions,
  deps: LlmDeps | null,
  bill: ModelBilling,
): Promise<PageExtraction> {
  const structured = extractStructuredProducts(html, pageUrl);
  if (structured.length > 0) {
    return { method: structured[0].source, materials: structured.map((p) => fromStructured(p, pageUrl)) };
  }
  if (!deps) return { method: "none", materials: [] };
  const materials = await bill(() => extractWithLlm(html, pageUrl, opts, deps));
  return { method: "llm", materials };
}
