/**
 * Structured product data in a web page, before any language model: schema.org JSON-LD
 * (Product / ProductGroup variants, found anywhere in a block: top level, arrays, `@graph`,
 * nested values such as ItemList elements), schema.org microdata (`itemscope
 * itemtype=".../Product"` with nested Offer / Brand scopes) and OpenGraph product tags
 * (`og:type` product, `product:price:amount` ...).
 *
 * Order and de-duplication: JSON-LD products first, then microdata products not already seen
 * (same sku, else same name), then the OpenGraph product only when neither of the others found
 * one (OpenGraph describes the page's one main item, which the others already name).
 *
 * Prices come back as decimal strings ("1234.50"): numbers are printed without exponent,
 * strings are cleaned of currency symbols, spaces and thousands separators ("1,234.50",
 * "1.234,50" and "12,5" are understood). Offers: the first Offer with a price; an
 * AggregateOffer gives its lowPrice; a priceSpecification is read when the offer has no price.
 * Availability is the schema.org term without its URL ("InStock"). URLs (url, image) are made
 * absolute against the page URL. A JSON-LD block that is not valid JSON is skipped (pages often
 * carry broken blocks next to good ones); `structuredDataIssues` reports them for callers that log.
 *
 * Used by the scraping pipeline and by price monitoring: keep `extractStructuredProducts` stable.
 */
import { type HTMLElement, parse } from "node-html-parser";

export type StructuredSource = "json-ld" | "microdata" | "opengraph";

export interface StructuredProduct {
  name: string;
  description?: string;
  sku?: string;
  brand?: string;
  /** Decimal string, "." as separator, e.g. "19.90". */
  price?: string;
  /** ISO 4217 code as the page gives it (upper-cased). */
  currency?: string;
  /** schema.org ItemAvailability term, e.g. "InStock", "OutOfStock". */
  availability?: string;
  image?: string;
  url?: string;
  /** Global trade item number when the page gives one (gtin13, gtin, ...). */
  gtin?: string;
  /** Manufacturer part number. */
  mpn?: string;
  source: StructuredSource;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function text(v: Json | undefined): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "string") {
    const t = v.replace(/\s+/g, " ").trim();
    return t === "" ? undefined : t;
  }
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) {
    for (const x of v) {
      const t = text(x);
      if (t) return t;
    }
    return undefined;
  }
  // A nested thing (Brand, Organization, ImageObject): its name, else url, else @id.
  return text(v.name) ?? text(v.url) ?? text(v.contentUrl) ?? text(v["@id"]);
}

function absolute(u: string | undefined, base: string): string | undefined {
  if (!u) return undefined;
  try {
    return new URL(u, base).toString();
  } catch {
    return u; // not resolvable (base itself unparsable): keep what the page said
  }
}

/** A price as a decimal string, or undefined when the value holds no number. */
export function normalizePrice(v: Json | undefined): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "number") {
    if (!Number.isFinite(v) || v < 0) return undefined;
    return v.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 10 });
  }
  if (typeof v !== "string") return undefined;
  let s = v.replace(/[^\d.,-]/g, "");
  if (!/\d/.test(s) || s.startsWith("-")) return undefined;
  const lastDot = s.lastIndexOf(".");
  const lastComma = s.lastIndexOf(",");
  if (lastDot >= 0 && lastComma >= 0) {
    // The later one is the decimal separator, the other groups thousands.
    s = lastComma > lastDot ? s.replace(/\./g, "").replace(",", ".") : s.replace(/,/g, "");
  } else if (lastComma >= 0) {
    const decimals = s.length - lastComma - 1;
    const commas = s.split(",").length - 1;
    s = commas === 1 && decimals !== 3 ? s.replace(",", ".") : s.replace(/,/g, "");
  } else if (s.split(".").length > 2) {
    s = s.replace(/\./g, ""); // "1.234.567" groups thousands
  }
  s = s.replace(/^0+(?=\d)/, "");
  if (!/^\d+(\.\d+)?$/.test(s)) return undefined;
  return s;
}

function availabilityTerm(v: Json | undefined): string | undefined {
  const t = text(v);
  if (!t) return undefined;
  const term = t.replace(/^https?:\/\/schema\.org\//i, "").replace(/^schema:/i, "");
  return term || undefined;
}

function typesOf(node: JsonObject): string[] {
  const t = node["@type"];
  const list = Array.isArray(t) ? t : [t];
  return list.filter((x): x is string => typeof x === "string").map((x) =>
    x.replace(/^https?:\/\/schema\.org\//i, "").replace(/^schema:/i, "")
  );
}

interface OfferFacts {
  price?: string;
  currency?: string;
  availability?: string;
  url?: string;
}

function offerFacts(offers: Json | undefined): OfferFacts {
  const list = Array.isArray(offers) ? offers : offers === undefined ? [] : [offers];
  let fallback: OfferFacts = {};
  for (const o of list) {
    if (!isObject(o)) continue;
    const types = typesOf(o);
    let price = normalizePrice(o.price as Json);
    let currency = text(o.priceCurrency);
    if (!price && types.includes("AggregateOffer")) price = normalizePrice(o.lowPrice as Json);
    if (!price && o.priceSpecification !== undefined) {
      const specs = Array.isArray(o.priceSpecification) ? o.priceSpecification : [o.priceSpecification];
      for (const spec of specs) {
        if (!isObject(spec)) continue;
        price = normalizePrice(spec.price as Json);
        currency = currency ?? text(spec.priceCurrency);
        if (price) break;
      }
    }
    if (!price && types.includes("AggregateOffer") && o.offers !== undefined) {
      const inner = offerFacts(o.offers);
      if (inner.price) return { ...inner, currency: inner.currency ?? currency?.toUpperCase() };
    }
    const facts: OfferFacts = {
      price,
      currency: currency?.toUpperCase(),
      availability: availabilityTerm(o.availability),
      url: text(o.url),
    };
    if (price) return facts;
    if (!fallback.currency && !fallback.availability) fallback = facts;
  }
  return fallback;
}

function fromJsonLd(node: JsonObject, pageUrl: string): StructuredProduct | null {
  const name = text(node.name);
  if (!name) return null;
  const offer = offerFacts(node.offers);
  const p: StructuredProduct = { name, source: "json-ld" };
  const description = text(node.description);
  if (description) p.description = description;
  const sku = text(node.sku) ?? text(node.productID);
  if (sku) p.sku = sku;
  const brand = text(node.brand) ?? text(node.manufacturer);
  if (brand) p.brand = brand;
  if (offer.price) p.price = offer.price;
  if (offer.currency) p.currency = offer.currency;
  if (offer.availability) p.availability = offer.availability;
  const image = absolute(text(node.image), pageUrl);
  if (image) p.image = image;
  const url = absolute(text(node.url) ?? offer.url, pageUrl);
  if (url) p.url = url;
  const gtin = text(node.gtin13) ?? text(node.gtin) ?? text(node.gtin14) ?? text(node.gtin12) ??
    text(node.gtin8);
  if (gtin) p.gtin = gtin;
  const mpn = text(node.mpn);
  if (mpn) p.mpn = mpn;
  return p;
}

/** Every Product node in a JSON-LD value, depth-first, in document order. */
function walkJsonLd(v: Json, out: JsonObject[], depth = 0): void {
  if (depth > 32) return;
  if (Array.isArray(v)) {
    for (const x of v) walkJsonLd(x, out, depth + 1);
    return;
  }
  if (!isObject(v)) return;
  const types = typesOf(v);
  if (types.includes("Product") || types.includes("IndividualProduct") || types.includes("ProductModel")) {
    out.push(v);
    // A product's own nested values (offers, brand) hold no further products, but its variants may.
    if (v.hasVariant !== undefined) walkJsonLd(v.hasVariant, out, depth + 1);
    return;
  }
  for (const [k, x] of Object.entries(v)) {
    if (k === "@context") continue;
    walkJsonLd(x, out, depth + 1);
  }
}

const issues = new WeakMap<StructuredProduct[], string[]>();

/** Problems met while reading the last result (broken JSON-LD blocks), for logging. */
export function structuredDataIssues(result: StructuredProduct[]): string[] {
  return issues.get(result) ?? [];
}

function jsonLdProducts(root: HTMLElement, pageUrl: string, problems: string[]): StructuredProduct[] {
  const out: StructuredProduct[] = [];
  for (const script of root.querySelectorAll("script")) {
    const type = (script.getAttribute("type") ?? "").toLowerCase().trim();
    if (type !== "application/ld+json") continue;
    const raw = script.rawText.trim().replace(/^<!--|-->$/g, "").trim();
    if (!raw) continue;
    let data: Json;
    try {
      data = JSON.parse(raw);
    } catch (err) {
      problems.push(`invalid JSON-LD block: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const nodes: JsonObject[] = [];
    walkJsonLd(data, nodes);
    for (const n of nodes) {
      const p = fromJsonLd(n, pageUrl);
      if (p) out.push(p);
    }
  }
  return out;
}

// ---------- microdata ----------

function isScope(el: HTMLElement): boolean {
  return el.hasAttribute("itemscope");
}

function itemTypes(el: HTMLElement): string[] {
  return (el.getAttribute("itemtype") ?? "").split(/\s+/).filter(Boolean).map((t) =>
    t.replace(/^https?:\/\/schema\.org\//i, "")
  );
}

/** Properties of one itemscope: name -> elements, not descending into nested scopes. */
function scopeProps(scope: HTMLElement): Map<string, HTMLElement[]> {
  const props = new Map<string, HTMLElement[]>();
  const visit = (el: HTMLElement) => {
    for (const child of el.childNodes) {
      if (child.nodeType !== 1) continue;
      const c = child as HTMLElement;
      const prop = c.getAttribute("itemprop");
      if (prop) {
        for (const name of prop.split(/\s+/).filter(Boolean)) {
          const list = props.get(name) ?? [];
          list.push(c);
          props.set(name, list);
        }
      }
      if (!isScope(c)) visit(c);
    }
  };
  visit(scope);
  return props;
}

function propValue(el: HTMLElement, pageUrl: string): string | undefined {
  const tag = el.tagName?.toLowerCase();
  if (el.hasAttribute("content")) return text(el.getAttribute("content") ?? "");
  if (tag === "a" || tag === "link" || tag === "area") return absolute(el.getAttribute("href"), pageUrl);
  if (tag === "img" || tag === "audio" || tag === "video" || tag === "source" || tag === "embed") {
    return absolute(el.getAttribute("src"), pageUrl);
  }
  if (tag === "meta") return text(el.getAttribute("content") ?? "");
  if (tag === "data" || tag === "meter") return text(el.getAttribute("value") ?? el.text);
  if (tag === "time") return text(el.getAttribute("datetime") ?? el.text);
  return text(el.text);
}

function first(props: Map<string, HTMLElement[]>, name: string, pageUrl: string): string | undefined {
  for (const el of props.get(name) ?? []) {
    if (isScope(el)) {
      const nested = scopeProps(el);
      const v = first(nested, "name", pageUrl);
      if (v) return v;
      continue;
    }
    const v = propValue(el, pageUrl);
    if (v) return v;
  }
  return undefined;
}

function microdataProducts(root: HTMLElement, pageUrl: string): StructuredProduct[] {
  const out: StructuredProduct[] = [];
  for (const el of root.querySelectorAll("[itemscope]")) {
    const types = itemTypes(el);
    if (!types.some((t) => t === "Product" || t === "IndividualProduct" || t === "ProductModel")) continue;
    const props = scopeProps(el);
    const name = first(props, "name", pageUrl);
    if (!name) continue;
    const p: StructuredProduct = { name, source: "microdata" };
    const description = first(props, "description", pageUrl);
    if (description) p.description = description;
    const sku = first(props, "sku", pageUrl) ?? first(props, "productID", pageUrl);
    if (sku) p.sku = sku;
    const brand = first(props, "brand", pageUrl) ?? first(props, "manufacturer", pageUrl);
    if (brand) p.brand = brand;
    const image = first(props, "image", pageUrl);
    if (image) p.image = absolute(image, pageUrl);
    const url = first(props, "url", pageUrl);
    if (url) p.url = absolute(url, pageUrl);
    const gtin = first(props, "gtin13", pageUrl) ?? first(props, "gtin", pageUrl);
    if (gtin) p.gtin = gtin;
    const mpn = first(props, "mpn", pageUrl);
    if (mpn) p.mpn = mpn;
    // Offers: nested scopes (Offer / AggregateOffer) or plain properties on the product.
    const offerEls = props.get("offers") ?? [];
    const offers: JsonObject[] = offerEls.map((o) => {
      const op = isScope(o) ? scopeProps(o) : new Map<string, HTMLElement[]>();
      const types = isScope(o) ? itemTypes(o) : [];
      return {
        "@type": types[0] ?? "Offer",
        price: first(op, "price", pageUrl) ?? null,
        lowPrice: first(op, "lowPrice", pageUrl) ?? null,
        priceCurrency: first(op, "priceCurrency", pageUrl) ?? null,
        availability: first(op, "availability", pageUrl) ?? null,
      };
    });
    if (offers.length === 0 && props.has("price")) {
      offers.push({
        "@type": "Offer",
        price: first(props, "price", pageUrl) ?? null,
        priceCurrency: first(props, "priceCurrency", pageUrl) ?? null,
        availability: first(props, "availability", pageUrl) ?? null,
      });
    }
    const offer = offerFacts(offers);
    if (offer.price) p.price = offer.price;
    if (offer.currency) p.currency = offer.currency;
    if (offer.availability) p.availability = offer.availability;
    out.push(p);
  }
  return out;
}

// ---------- OpenGraph ----------

function openGraphProduct(root: HTMLElement, pageUrl: string): StructuredProduct | null {
  const meta = new Map<string, string>();
  for (const m of root.querySelectorAll("meta")) {
    const key = (m.getAttribute("property") ?? m.getAttribute("name") ?? "").toLowerCase().trim();
    const content = m.getAttribute("content");
    if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
  }
  const type = (meta.get("og:type") ?? "").toLowerCase();
  const price = normalizePrice(meta.get("product:price:amount") ?? meta.get("og:price:amount"));
  if (!type.startsWith("product") && !price) return null;
  const name = text(meta.get("og:title"));
  if (!name) return null;
  const p: StructuredProduct = { name, source: "opengraph" };
  const description = text(meta.get("og:description"));
  if (description) p.description = description;
  if (price) p.price = price;
  const currency = text(meta.get("product:price:currency") ?? meta.get("og:price:currency"));
  if (currency) p.currency = currency.toUpperCase();
  const availability = availabilityTerm(meta.get("product:availability") ?? meta.get("og:availability"));
  if (availability) p.availability = availability;
  const brand = text(meta.get("product:brand") ?? meta.get("og:brand"));
  if (brand) p.brand = brand;
  const sku = text(meta.get("product:retailer_item_id") ?? meta.get("product:sku"));
  if (sku) p.sku = sku;
  const image = absolute(text(meta.get("og:image") ?? meta.get("og:image:url")), pageUrl);
  if (image) p.image = image;
  const url = absolute(text(meta.get("og:url")), pageUrl);
  if (url) p.url = url;
  return p;
}

function sameProduct(a: StructuredProduct, b: StructuredProduct): boolean {
  if (a.sku && b.sku) return a.sku === b.sku;
  return a.name.toLowerCase() === b.name.toLowerCase();
}

/** The products a page describes in structured data (see the module doc for order and rules). */
export function extractStructuredProducts(html: string, pageUrl: string): StructuredProduct[] {
  const problems: string[] = [];
  const root = parse(html, { comment: false, blockTextElements: { script: true, style: false } });
  const found = jsonLdProducts(root, pageUrl, problems);
  for (const m of microdataProducts(root, pageUrl)) {
    if (!found.some((f) => sameProduct(f, m))) found.push(m);
  }
  if (found.length === 0) {
    const og = openGraphProduct(root, pageUrl);
    if (og) found.push(og);
  }
  if (problems.length) issues.set(found, problems);
  return found;
}
