/**
 * price_list documents that are not tables: one product per prose line.
 *
 *   - MP-100 Keraflex Maxi S1 grey 25 kg: 12,50 € / bag
 *   Ardex X 77 adhesive 25 kg (AX-77) ........ EUR 18.90 per bag
 *   Art.-Nr. JOLLY-A100: Schlüter JOLLY 10 mm - 7,95 EUR/piece
 *   - TR-20 Treverk Home 20x120: 39,90            (currency and unit declared for the document)
 *   - FL-B60 Buxy 60x60: 34,00 €/m², from 100 m² 31,50 €/m²   (a second price needs its quantity)
 *
 * A line is a price line when it holds an amount with a currency, or ends in a bare amount written
 * like a price (cents, "45.-", or a unit) after ":", "=", a dash or dot leaders; currency and unit
 * then come from the document's declarations (context.ts). The article is the SKU (labelled, in
 * brackets, or the line's first token when it is shaped like one: capitals and digits with a
 * digit and a letter or dash) and the words before the amount. A date range on the line beats the
 * document's validity. Reference prices ("instead of 13,50 €") and order-level lines ("Minimum
 * order value", "Freight") are not product prices. A price line the parser cannot read with
 * certainty (ambiguous separator, two prices without quantities, a bare whole number after an
 * article, no article) is reported with its line, never guessed.
 */
import {
  type ParseIssue,
  type PriceDocumentInput,
  type PriceListEntry,
  type PriceTier,
  sourceRef,
} from "../entries.ts";
import { CURRENCY_DECL, declarationAt, type DocumentContext, vatAt } from "./context.ts";
import { MONEY_PATTERN, parseAmount, parseQuantityRange, type SeparatorStyle } from "./amount.ts";
import { dateSpans, findDateRange } from "./dates.ts";
import { normalizeUnit } from "../normalize.ts";
import { isSkuShaped } from "./scope.ts";

const LABELLED_SKU =
  /(?:^|[\s(])(?:sku|art(?:icle)?\.?\s*-?\s*(?:no|nr|number|#)\.?|artikel-?nr\.?|item\s*(?:no|nr|number|code|#)\.?|item|product\s+code|code|ref\.?)\s*[:#]?\s*([A-Z0-9][A-Za-z0-9._/-]*\d[A-Za-z0-9._/-]*|[A-Z0-9]+-[A-Z0-9-]+)/i;
const BRACKETED_SKU = /\(\s*([A-Z0-9][A-Z0-9._/-]*)\s*\)/;
const BARE_AMOUNT =
  /(?:[:=]|\s[-–—]|\.{2,}|…)\s*(\d[\d.,'\u00a0]*(?:[.,][-–])?)\s*(?:(?:\/|\bper\b|\bpro\b|\bje\b)\s*([\p{L}²³][\p{L}\p{N}²³]*))?\s*\.?$/u;
const TIER_BEFORE =
  /(?:\b(?:from|ab|over|above|at least|min\.?)\s*(\d[\d.,]*)\s*([\p{L}²³][\p{L}\p{N}²³]*)?|≥\s*(\d[\d.,]*)\s*([\p{L}²³][\p{L}\p{N}²³]*)?|\b(\d[\d.,]*)\s*\+\s*([\p{L}²³][\p{L}\p{N}²³]*)?)\s*[:=]?\s*$/iu;
const REFERENCE_BEFORE = /(?:instead of|statt|was|regular(?: price)?|rrp|normally|reg\.)\s*:?\s*\(?$/i;
/** Lines about an order as a whole, not a product price. */
const NOT_A_PRODUCT =
  /^(?:min(?:imum)?\.?\s+order|orders?\b|order value|handling|freight|shipping|delivery|carriage|surcharge|total|vat|pallet|fracht|versand|mindest|toll|deposit)/i;

interface Amount {
  index: number;
  length: number;
  text: string;
  value: string;
  currency: string | null;
  unit: string | null;
}

export function parseProseList(
  doc: PriceDocumentInput,
  lines: readonly string[],
  skipLines: ReadonlySet<number>,
  ctx: DocumentContext,
  style: SeparatorStyle | null,
): { entries: PriceListEntry[]; issues: ParseIssue[] } {
  const entries: PriceListEntry[] = [];
  const issues: ParseIssue[] = [];
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (skipLines.has(line) || !raw.trim()) return;
    const skip = (code: string, message: string) =>
      issues.push({ severity: "warning", code, message, line, snippet: raw.trim() });
    const plain = raw.replace(/\*\*|__|`/g, "").replace(/^\s*(?:#+|[-*+>•]|\d+[.)])\s+/, "").trim();
    // Order-level lines and declarations ("All prices in EUR; minimum order value 250 EUR") are not
    // product prices; their amounts are reported by coverage.ts.
    if (NOT_A_PRODUCT.test(plain) || CURRENCY_DECL.exec(plain)?.index === 0) return;
    // Dates are not amounts: blank them (keeping offsets) before looking for prices.
    let text = plain;
    for (const d of dateSpans(plain)) {
      text = text.slice(0, d.index) + " ".repeat(d.length) + text.slice(d.index + d.length);
    }
    const found = [...text.matchAll(MONEY_PATTERN)].filter((m) =>
      !REFERENCE_BEFORE.test(text.slice(0, m.index))
    );
    const amounts: Amount[] = [];
    for (const m of found) {
      const a = parseAmount(m[0], style);
      if (!a.ok) return skip("bad_price", `${a.reason}; line skipped`);
      amounts.push({
        index: m.index!,
        length: m[0].length,
        text: m[0],
        value: a.value,
        currency: a.currency,
        unit: a.unit,
      });
    }
    if (!amounts.length) {
      const bare = BARE_AMOUNT.exec(text);
      // A bare number is a price only when written like one: with cents ("39,90", "45.-") or per unit.
      if (!bare || !/[\p{L}]/u.test(text.slice(0, bare.index))) return;
      if (!/[.,](?:\d{2}|[-–])$/.test(bare[1]) && !bare[2]) {
        if (!isSkuShaped(/^\s*(\S+)/.exec(text)?.[1] ?? "")) return;
        return skip(
          "bare_number",
          `"${bare[1]}" has no currency, cents or unit, so it is not read as a price; write e.g. "${
            bare[1]
          },00" or "${bare[1]} EUR"`,
        );
      }
      const a = parseAmount(bare[1], style);
      if (!a.ok) return skip("bad_price", `${a.reason}; line skipped`);
      amounts.push({
        index: bare.index + bare[0].indexOf(bare[1]),
        length: bare[0].length,
        text: bare[0].replace(/^[\s:=.…–—-]+/, ""),
        value: a.value,
        currency: null,
        unit: bare[2] ? normalizeUnit(bare[2]) : null,
      });
    }
    const head = text.slice(0, amounts[0].index);
    // Every price after the first needs the quantity it starts from ("from 100 m² 31,50 €").
    const tiers: PriceTier[] = [{
      min_qty: "0",
      min_exclusive: false,
      max_qty: null,
      price: amounts[0].value,
      column: amounts[0].text.trim(),
      line,
      snippet: raw.trim(),
    }];
    const units = new Set<string>();
    const currencies = new Set<string>();
    for (const [k, a] of amounts.entries()) {
      if (a.unit) units.add(a.unit);
      if (a.currency) currencies.add(a.currency);
      if (k === 0) continue;
      const before = text.slice(amounts[k - 1].index + amounts[k - 1].length, a.index);
      const t = TIER_BEFORE.exec(before);
      const qty = t ? (t[1] ?? t[3] ?? t[5]) : null;
      const range = qty ? parseQuantityRange(qty, style) : null;
      if (!range) {
        return skip(
          "several_prices",
          "line states several prices without the quantity each applies from; which one is the list price cannot be told; line skipped",
        );
      }
      const tierUnit = t![2] ?? t![4] ?? t![6];
      if (tierUnit && normalizeUnit(tierUnit)) units.add(normalizeUnit(tierUnit)!);
      tiers.push({
        ...tiers[0],
        min_qty: range.min,
        price: a.value,
        column: `${qty} ${tierUnit ?? ""}`.trim(),
      });
    }
    if (new Set(tiers.map((t) => t.min_qty)).size !== tiers.length) {
      return skip("duplicate_tier", "two prices for the same quantity on one line; line skipped");
    }
    if (units.size > 1) return skip("unit_conflict", "line states more than one unit; skipped");
    if (currencies.size > 1) return skip("currency_conflict", "line states more than one currency; skipped");

    const { sku, name } = articleOf(head);
    if (!sku && !name) {
      return skip("row_without_article", "price line names neither a SKU nor a product; skipped");
    }
    // "valid until 30.06.2026" on the line itself beats the document's validity.
    const validity = findDateRange(plain) ?? declarationAt(ctx.validity, line)?.value ??
      { from: null, to: null };
    entries.push({
      kind: "price_list",
      source: sourceRef(doc, line, raw.trim()),
      sku,
      product_name: name,
      manufacturer: declarationAt(ctx.manufacturer, line)?.value ?? null,
      currency: [...currencies][0] ?? declarationAt(ctx.currency, line)?.value ?? null,
      unit: [...units][0] ?? declarationAt(ctx.unit, line)?.value ?? null,
      min_order_qty: null,
      tiers,
      valid_from: validity.from,
      valid_to: validity.to,
      vat_included: vatAt(ctx, line),
    });
  });
  return { entries, issues };
}

/** SKU and product name from the words before a price. */
function articleOf(head: string): { sku: string | null; name: string | null } {
  let rest = head;
  let sku: string | null = null;
  const labelled = LABELLED_SKU.exec(rest);
  const bracketed = BRACKETED_SKU.exec(rest);
  const first = /^\s*(\S+)/.exec(rest);
  if (labelled) {
    sku = labelled[1].replace(/[.,:;]+$/, "");
    rest = rest.slice(0, labelled.index) + " " + rest.slice(labelled.index + labelled[0].length);
  } else if (bracketed && isSkuShaped(bracketed[1])) {
    sku = bracketed[1];
    rest = rest.slice(0, bracketed.index) + " " + rest.slice(bracketed.index + bracketed[0].length);
  } else if (first && isSkuShaped(first[1])) {
    sku = first[1].replace(/[.,:;]+$/, "");
    rest = rest.slice(first[0].length);
  }
  const name = rest.replace(/\.{2,}|…/g, " ").replace(/\s+/g, " ")
    .replace(/^[\s:;,–—-]+|[\s:;,=–—-]+$/g, "")
    .replace(/\b(?:special price|price|preis|costs?|at)$/i, "").trim();
  return { sku, name: /\p{L}/u.test(name) ? name : null };
}
