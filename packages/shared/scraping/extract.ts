/**
 * What one page yields: structured data first (structured.ts: JSON-LD, microdata, OpenGraph); only
 * when that finds no product, the language model reads the page's text with the caller's prompt,
 * system prompt and JSON Schema (options). The model submits `{materials: [...]}` through a forced
 * submit_materials tool call (the platform's model layer, ../llm: `llm.structured`), each material
 * validated with zod (a non-empty `name`, and the caller's schema through z.fromJSONSchema when one
 * is given); a malformed answer is sent back once, a second one fails the page
 * (`model_bad_output`), a provider failure or the options.timeout deadline is `model_unavailable`.
 *
 * The model: SCRAPER_MODEL (default vendor-haiku-4-5). Every model extraction is billed through
 * the caller's `bill` (billing.ts: 1 credit, refunded when it fails); structured data is free.
 */
import { parse as parseHtml } from "node-html-parser";
import { z } from "zod";
import { DomainError } from "../errors.ts";
import type { Llm } from "../llm/mod.ts";
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
  "You extract building-material and product listings from web pages for a materials catalog.";
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
/** A material as the model submits it without a caller's schema (only `name` is required). */
const DefaultMaterial = z.looseObject({
  name: z.string().trim().min(1).max(500),
  description: z.string().optional(),
  sku: z.string().optional(),
  brand: z.string().optional(),
  price: z.union([z.string(), z.number()]).optional().describe("decimal string, e.g. 41.00"),
  currency: z.string().optional().describe("ISO 4217"),
  category: z.string().optional(),
  image: z.string().optional(),
});

/** The submit_materials input: the default material, or the caller's schema plus a `name`. */
function answerSchema(validator: z.ZodType | null) {
  return z.object({ materials: z.array(validator ? Named.and(validator) : DefaultMaterial).max(200) });
}

/** One submitted material as scraping_complete_page stores it. */
export function toMaterial(item: Record<string, unknown>, pageUrl: string): Material {
  const s = (
    k: string,
  ) => (typeof item[k] === "string" && (item[k] as string).trim() ? (item[k] as string).trim() : undefined);
  const m: Material = {
    name: String(item.name).trim(),
    source_url: pageUrl,
    source: "llm",
    data: { ...item },
  };
  for (const k of ["description", "sku", "brand"] as const) {
    const v = s(k);
    if (v) m[k] = v;
  }
  const price = normalizePrice(item.price as never);
  if (price) m.price = price;
  const currency = s("currency");
  if (currency) m.currency = currency.toUpperCase().slice(0, 8);
  return m;
}

/** The model (the platform's layer) and the model id extraction asks (SCRAPER_MODEL). */
export interface LlmDeps {
  llm: Llm;
  model: string;
}

/** The model's materials for a page (a submit_materials tool call; one corrective retry). */
export async function extractWithLlm(
  html: string,
  pageUrl: string,
  opts: ExtractOptions,
  deps: LlmDeps,
): Promise<Material[]> {
  const validator = schemaValidator(opts.schema);
  const schemaLine = opts.schema
    ? `Each material must match this JSON Schema and also have a "name": ${JSON.stringify(opts.schema)}`
    : 'Each material has a "name"; give "description", "sku", "brand", "price" (decimal string), ' +
      '"currency" (ISO 4217), "category" and "image" when the page shows them.';
  const purpose = "Scraping page extraction";
  const r = await deps.llm.structured(answerSchema(validator), {
    model: deps.model,
    purpose,
    system: opts.systemPrompt ?? DEFAULT_SYSTEM,
    prompt: `${opts.prompt ?? DEFAULT_PROMPT}\n\nSubmit them with submit_materials (an empty list when ` +
      `the page shows no product). ${schemaLine}\n\nPage URL: ${pageUrl}\n\n${pageText(html)}`,
    tool: "submit_materials",
    description: "Submit the products or materials this page offers",
    maxTokens: 4096,
    timeoutMs: opts.timeout ?? 60_000,
  });
  return r.value.materials.map((item) => toMaterial(item as Record<string, unknown>, pageUrl));
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
