/**
 * One-URL operations: scrape-preview (what a page offers before a session is set up),
 * suggest-fields (which fields to extract), scrape-single-page (process one page of a session
 * now) and the runner dependencies every entry point builds. Shapes the spec leaves open are
 * declared here and in the notes.
 *
 * scrape-preview answer: {success, url, finalUrl, httpStatus, title, description, language,
 *   products: StructuredProduct[], structuredData: {jsonLd, microdata, openGraph} (how many of
 *   each), links: {total, sameHost: string[] (first 100)}, textSample (first 1000 characters)}.
 * suggest-fields answer: {success, url, fields: [{name, type, description, example?, source:
 *   structured|llm}], llmUsed}.
 *
 * Model calls go through the platform's model layer (../llm: a forced submit_fields /
 * submit_materials tool call, one corrective retry; failures model_unavailable / model_bad_output)
 * and are billed to `deps.payer` (billing.ts: 1 credit each, debited before the call, a short
 * balance is 402 with no model call, refunded once when the model fails): suggest-fields' one
 * answer, scrape-single-page's extraction of a page without structured data.
 */
import { z } from "@hono/zod-openapi";
import type { SupabaseClient } from "@supabase/supabase-js";
import { parse as parseHtml } from "node-html-parser";
import { DomainError } from "../errors.ts";
import { env } from "../env.ts";
import { scraperConfig, scrapingLlm } from "./config.ts";
import { type ExtractOptions, pageText, schemaValidator } from "./extract.ts";
import { fetchProblem, politeFetch } from "./fetcher.ts";
import { createProducts, type PageOutcome, type RunnerDeps, scrapePage } from "./runner.ts";
import { billedModelCall, type Payer } from "./billing.ts";
import { extractStructuredProducts, type StructuredProduct } from "./structured.ts";

/**
 * Runner dependencies from a variable reader (env() in functions, the backend's secrets there).
 * `payer`: who pays for model calls (billing.ts), the signed-in caller; null where no model is
 * called (preview, sitemap) or where the session's recorded payer takes over (runners).
 */
export function runnerDeps(
  service: SupabaseClient,
  get: (n: string) => string | undefined = env,
  payer: Payer | null = null,
): RunnerDeps {
  const cfg = scraperConfig(get);
  return { service, cfg, llm: scrapingLlm(get, cfg.model), payer };
}

async function fetchHtml(url: string, deps: RunnerDeps) {
  let res;
  try {
    res = await politeFetch(url, deps.cfg);
  } catch (err) {
    throw fetchProblem(err, url);
  }
  if (res.status < 200 || res.status >= 300) {
    throw new DomainError("upstream", "fetch_failed", `Fetching ${url} failed: HTTP ${res.status}`);
  }
  return res;
}

export async function previewPage(url: string, deps: RunnerDeps) {
  const res = await fetchHtml(url, deps);
  const root = parseHtml(res.body, { comment: false });
  const products: StructuredProduct[] = extractStructuredProducts(res.body, res.url);
  const count = (source: StructuredProduct["source"]) => products.filter((p) => p.source === source).length;
  const host = new URL(res.url).host;
  const sameHost = new Set<string>();
  let total = 0;
  for (const a of root.querySelectorAll("a[href]")) {
    total++;
    try {
      const u = new URL(a.getAttribute("href")!, res.url);
      u.hash = "";
      if ((u.protocol === "http:" || u.protocol === "https:") && u.host === host && sameHost.size < 100) {
        sameHost.add(u.toString());
      }
    } catch {
      // an href that is not a URL is not a link to follow; it is still counted in total
    }
  }
  return {
    success: true as const,
    url,
    finalUrl: res.url,
    httpStatus: res.status,
    title: root.querySelector("title")?.text.trim() || null,
    description: root.querySelector('meta[name="description"]')?.getAttribute("content") ?? null,
    language: root.querySelector("html")?.getAttribute("lang") ?? null,
    products,
    structuredData: {
      jsonLd: count("json-ld"),
      microdata: count("microdata"),
      openGraph: count("opengraph"),
    },
    links: { total, sameHost: [...sameHost] },
    textSample: pageText(res.body).slice(0, 1000),
  };
}

const FieldType = z.enum(["string", "number", "boolean", "array"]);
export const SuggestedField = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/),
  type: FieldType,
  description: z.string().max(500).default(""),
  example: z.unknown().optional(),
  source: z.enum(["structured", "llm"]).default("llm"),
});
const Suggestions = z.object({ fields: z.array(SuggestedField.omit({ source: true })).max(40) });

const STRUCTURED_FIELDS: [keyof StructuredProduct, string, z.infer<typeof FieldType>][] = [
  ["name", "Product name", "string"],
  ["description", "Product description", "string"],
  ["sku", "Stock keeping unit", "string"],
  ["brand", "Brand or manufacturer", "string"],
  ["price", "Price as a decimal", "number"],
  ["currency", "ISO 4217 currency code", "string"],
  ["availability", "Stock availability", "string"],
  ["image", "Main image URL", "string"],
  ["gtin", "Global trade item number", "string"],
];

/**
 * Fields structured data shows, then what the model proposes for `context` (one corrective retry),
 * billed to `deps.payer` as one call; `referenceId` (the request id) goes on the usage log.
 */
export async function suggestFields(
  url: string,
  context: string | undefined,
  deps: RunnerDeps,
  referenceId: string | null = null,
) {
  const res = await fetchHtml(url, deps);
  const products = extractStructuredProducts(res.body, res.url);
  const fields: z.infer<typeof SuggestedField>[] = [];
  const first = products[0];
  if (first) {
    for (const [key, description, type] of STRUCTURED_FIELDS) {
      if (first[key] !== undefined) {
        fields.push({ name: key, type, description, example: first[key], source: "structured" });
      }
    }
  }
  const llm = deps.llm;
  if (!llm) return { success: true as const, url, fields, llmUsed: false };
  return await billedModelCall(
    deps.service,
    deps.payer,
    "suggest_fields",
    referenceId,
    () => proposeFields(llm, res.url, pageText(res.body), context, fields),
  ).then((all) => ({ success: true as const, url, fields: all, llmUsed: true }));
}

/** The model's proposals after `fields` (names already there are kept once); throws on failure. */
async function proposeFields(
  llm: NonNullable<RunnerDeps["llm"]>,
  pageUrl: string,
  text: string,
  context: string | undefined,
  fields: z.infer<typeof SuggestedField>[],
): Promise<z.infer<typeof SuggestedField>[]> {
  const r = await llm.llm.structured(Suggestions, {
    model: llm.model,
    purpose: "Scraping field suggestions",
    system: "You design extraction schemas for product web pages.",
    prompt: `Propose the fields worth extracting from product pages like this one for a building-materials ` +
      `catalog${context ? ` (context: ${context.slice(0, 2000)})` : ""}. Submit them with submit_fields: ` +
      `each a snake_case name, a type, a description and an example.\n\nPage URL: ${pageUrl}\n\n` +
      text.slice(0, 15_000),
    tool: "submit_fields",
    description: "Submit the proposed extraction fields",
    maxTokens: 2048,
  });
  const out = [...fields];
  for (const f of r.value.fields) {
    if (!out.some((x) => x.name === f.name)) out.push({ ...f, source: "llm" });
  }
  return out;
}

/**
 * scrape-single-page: processes one page of a session now, whatever the session's state (a page a
 * runner is processing is a 409). The page is claimed atomically under a one-off worker id, so a
 * runner cannot take it meanwhile; the outcome is stored like a runner's (page, materials,
 * counters in one transaction) and products are created with the same retries. When the page
 * needs the model and `deps.payer` cannot pay, the claim is released (the page keeps its status)
 * and the 402 is thrown: nothing is stored.
 */
export async function scrapeSinglePage(
  deps: RunnerDeps,
  page: { id: string; session_id: string; url: string },
  options: ExtractOptions,
): Promise<PageOutcome> {
  schemaValidator(options.schema);
  const worker = `single-${crypto.randomUUID()}`;
  const before = await deps.service.from("scraping_pages").select("status").eq("id", page.id).maybeSingle();
  if (before.error) {
    throw new DomainError("internal", "db_error", `Reading the page: ${before.error.message}`);
  }
  const previous = (before.data?.status as string | undefined) ?? "pending";
  // Compare-and-set on the status read: a runner claiming the page meanwhile makes this a 409.
  const { data, error } = await deps.service.from("scraping_pages")
    .update({ status: "processing", claimed_by: worker, claimed_at: new Date().toISOString() })
    .eq("id", page.id).eq("status", previous).neq("status", "processing").select("id");
  if (error) throw new DomainError("internal", "db_error", `Claiming the page: ${error.message}`);
  if (!data?.length) throw new DomainError("conflict", "page_busy", "The page is being processed right now");
  const t0 = performance.now();
  let out: Awaited<ReturnType<typeof scrapePage>>;
  try {
    out = await scrapePage(deps, page, options);
  } catch (err) {
    const released = await deps.service.from("scraping_pages")
      .update({ status: previous, claimed_by: null, claimed_at: null })
      .eq("id", page.id).eq("claimed_by", worker);
    if (released.error) {
      console.error(`scraping: releasing page ${page.id} failed: ${released.error.message}`);
    }
    throw err;
  }
  const processingTimeMs = Math.round(performance.now() - t0);
  const stored = await deps.service.rpc("scraping_complete_page", {
    p_page: page.id,
    p_worker: worker,
    p_ok: out.ok,
    p_result: { httpStatus: out.httpStatus, method: out.method, processingTimeMs, error: out.error },
    p_materials: out.materials,
    p_now: new Date().toISOString(),
  });
  if (stored.error) {
    throw new DomainError("internal", "db_error", `Storing the page: ${stored.error.message}`);
  }
  const ids = (stored.data ?? []) as string[];
  const productsCreated = ids.length ? await createProducts(deps, ids) : 0;
  return {
    ok: out.ok,
    pageId: page.id,
    materialsFound: out.materials.length,
    productsCreated,
    processingTimeMs,
    httpStatus: out.httpStatus,
    method: out.method,
    error: out.error,
  };
}
