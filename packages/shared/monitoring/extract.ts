/**
 * Reading a competitor's price off its page (stage "extract" of a check). In order:
 * 1. the source's `price_selector` hint: the first element it matches, its `content` attribute
 *    (meta tags) or else its text, as a decimal (currency: a `data-currency` / `itemprop
 *    priceCurrency` next to it is not guessed - the source's default_currency applies);
 * 2. the page's structured data (scraping/structured.ts: JSON-LD, microdata, OpenGraph): the
 *    product whose sku / mpn / gtin equals `sku_hint`, else whose name contains `name_hint`, else
 *    - with no hint - the first product with a price.
 * A hint that matches nothing is "no price", never another product's price.
 */
import { parse } from "node-html-parser";
import { extractStructuredProducts, normalizePrice } from "../scraping/structured.ts";
import type { SourceResult } from "./schemas.ts";

export interface ExtractionHints {
  price_selector: string | null;
  sku_hint: string | null;
  name_hint: string | null;
  default_currency: string | null;
}

export type Extracted =
  | { ok: true; price: string; currency: string | null; via: NonNullable<SourceResult["via"]> }
  | { ok: false; reason: string };

/** Largest price numeric(14, 4) holds. */
const PRICE = /^\d{1,10}(\.\d+)?$/;

function usable(price: string | undefined): string | null {
  if (!price || !PRICE.test(price)) return null;
  // Four decimals at most (price_history.price), half-up.
  const [int, frac = ""] = price.split(".");
  if (frac.length <= 4) return price;
  const scaled = BigInt(int + frac.slice(0, 4)) + (Number(frac[4]) >= 5 ? 1n : 0n);
  const s = scaled.toString().padStart(5, "0");
  return `${s.slice(0, -4)}.${s.slice(-4)}`;
}

export function extractPrice(html: string, pageUrl: string, hints: ExtractionHints): Extracted {
  const fallbackCurrency = hints.default_currency;
  if (hints.price_selector) {
    let node;
    try {
      node = parse(html).querySelector(hints.price_selector);
    } catch (err) {
      return { ok: false, reason: `price_selector is not a valid CSS selector: ${(err as Error).message}` };
    }
    if (!node) {
      return { ok: false, reason: `price_selector ${hints.price_selector} matches nothing on the page` };
    }
    const raw = node.getAttribute("content") ?? node.textContent;
    const price = usable(normalizePrice(raw));
    if (!price) {
      return {
        ok: false,
        reason: `price_selector ${hints.price_selector} holds no price: ${raw.trim().slice(0, 80)}`,
      };
    }
    return { ok: true, price, currency: fallbackCurrency, via: "selector" };
  }
  const products = extractStructuredProducts(html, pageUrl).filter((p) => usable(p.price));
  if (products.length === 0) {
    return { ok: false, reason: "the page has no structured product price (JSON-LD, microdata, OpenGraph)" };
  }
  let chosen = products[0];
  if (hints.sku_hint) {
    const sku = hints.sku_hint.trim().toLowerCase();
    const hit = products.find((p) => [p.sku, p.mpn, p.gtin].some((v) => v?.trim().toLowerCase() === sku));
    if (!hit) return { ok: false, reason: `no product with sku ${hints.sku_hint} on the page` };
    chosen = hit;
  } else if (hints.name_hint) {
    const name = hints.name_hint.trim().toLowerCase();
    const hit = products.find((p) => p.name.toLowerCase().includes(name));
    if (!hit) return { ok: false, reason: `no product named like ${hints.name_hint} on the page` };
    chosen = hit;
  }
  return {
    ok: true,
    price: usable(chosen.price)!,
    currency: chosen.currency ?? fallbackCurrency,
    via: chosen.source,
  };
}
