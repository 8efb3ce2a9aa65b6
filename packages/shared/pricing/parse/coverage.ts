/**
 * The ingest principle: every line of a price document that carries an amount or a percentage is
 * either understood - it became an entry (a price row, a rule), or a declaration the entries use
 * (currency, VAT, validity, minimum order, conversion) - or reported. This stage finds the lines
 * no parser used and reports each (an issue naming the line and why), and turns every reported
 * line into an UnparsedLineEntry stored with the entries, so that a lookup it may concern says so
 * (lookup.ts) instead of silently quoting without it.
 *
 * Reasons: a percent in a price list ("discounts belong in a discount_rule document"); an
 * order-level amount (freight, minimum order value, surcharge: understood, not part of a unit
 * price, so only mentioned at lookup); a payment discount or tax rate (likewise); anything else
 * is "not understood".
 */
import {
  type ParseIssue,
  type PriceDocType,
  type PriceEntry,
  sourceRef,
  type UnparsedLineEntry,
} from "../entries.ts";
import { skuKey } from "../normalize.ts";
import { findPercents, MONEY_PATTERN } from "./amount.ts";
import type { DocumentContext } from "./context.ts";
import { dateSpans } from "./dates.ts";
import { isSkuShaped } from "./scope.ts";

const ORDER_LEVEL =
  /\b(?:min(?:imum|\.)?\s*order\s*value|order value|orders?\s+(?:above|over|below|under|from)|freight|shipping|delivery|carriage|surcharge|handling|deposit|toll|pallet charge|fracht|versand|lieferung|zuschlag|mindermengenzuschlag|mindestbestellwert|pfand|trasporto|spedizione|consegna|porto franco|franco|supplemento|frais de port|livraison|franco de port|minimum de commande)\b/i;
const PAYMENT_OR_TAX =
  /\b(?:skonto|cash discount|early[- ]payment discount|prompt[- ]payment discount|sconto cassa|escompte|vat|iva|mwst|ust|tva|gst|sales tax)\b/i;

const NO_AMOUNT_CODES = new Set(["table_not_price_list", "no_price", "row_without_article", "no_amount"]);

/** Whether a line states an amount of money or a percentage (dates are not amounts). */
export function carriesAmount(text: string): boolean {
  let t = text;
  for (const d of dateSpans(text)) {
    t = t.slice(0, d.index) + " ".repeat(d.length) + t.slice(d.index + d.length);
  }
  return findPercents(t).length > 0 || [...t.matchAll(MONEY_PATTERN)].length > 0;
}

/** Words a line names that tell which products it may concern: SKUs, capitalised names, group words. */
export function mentionsOf(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.replace(/\*\*|__|`/g, "").split(/[\s,;:()[\]|/]+/)) {
    const t = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if (!t) continue;
    if (/\d/.test(t) && isSkuShaped(t)) out.add(`sku:${skuKey(t)}`);
    else if (/^\p{Lu}[\p{L}&'-]{2,}$/u.test(t)) {
      out.add(t.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase());
    }
  }
  return [...out];
}

export function reportUncovered(
  doc: { id: string; title: string; price_doc_type: PriceDocType },
  lines: readonly string[],
  entries: readonly PriceEntry[],
  issues: ParseIssue[],
  ctx: DocumentContext | null,
): UnparsedLineEntry[] {
  const used = new Set<number>();
  for (const e of entries) {
    used.add(e.source.line);
    if (e.kind === "price_list") {
      for (const t of e.tiers) used.add(t.line);
      if (e.min_order_source) used.add(e.min_order_source.line);
      for (const c of e.conversions ?? []) used.add(c.line);
      if (e.vat_included) used.add(e.vat_included.line);
      // Merged table rows: each row is a line of the snippet.
      e.source.snippet.split("\n").forEach((_, k) => used.add(e.source.line + k));
    }
  }
  if (ctx) {
    for (const list of [ctx.validity, ctx.vat, ctx.manufacturer, ctx.customer]) {
      for (const d of list) used.add(d.line);
    }
    // "All prices in EUR; minimum order value 250 EUR": the declaration is used, its amount is not.
    for (const list of [ctx.currency, ctx.unit]) {
      for (const d of list) if (!carriesAmount(lines[d.line - 1] ?? "")) used.add(d.line);
    }
    for (const m of ctx.moq) used.add(m.line);
    for (const c of ctx.conversions) used.add(c.line);
  }
  const reported = new Set(issues.filter((i) => i.line !== null).map((i) => i.line!));
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (used.has(line) || reported.has(line) || !raw.trim() || !carriesAmount(raw)) return;
    const text = raw.trim();
    const orderLevel = ORDER_LEVEL.test(text);
    const paymentOrTax = !orderLevel && PAYMENT_OR_TAX.test(text);
    const message = orderLevel
      ? "an order-level amount (freight, minimum order value, surcharge), not part of a unit price; not used in prices"
      : paymentOrTax
      ? "a payment discount or tax rate, not a price discount; not used in prices"
      : doc.price_doc_type === "price_list" && findPercents(text).length
      ? "a percentage in a price list is not applied (put discounts in a discount_rule, contract_terms or promotion document)"
      : "states an amount or a percentage the engine could not read (no price row, rule or declaration recognised)";
    issues.push({
      severity: "warning",
      code: orderLevel ? "order_level_amount" : paymentOrTax ? "payment_or_tax" : "line_not_understood",
      message,
      line,
      snippet: text,
    });
  });
  const source = (line: number, snippet: string) => sourceRef(doc, line, snippet);
  const seen = new Set<number>();
  const out: UnparsedLineEntry[] = [];
  for (const i of issues) {
    if (i.line === null || i.severity !== "warning" || seen.has(i.line)) continue;
    seen.add(i.line);
    const snippet = i.snippet ?? lines[i.line - 1]?.trim() ?? "";
    // A skipped line that states no amount (a table without a price column, a row "on request")
    // is named at ingest only: it cannot have changed a price.
    if (!carriesAmount(lines[i.line - 1] ?? "") && NO_AMOUNT_CODES.has(i.code)) continue;
    out.push({
      kind: "unparsed_line",
      source: source(i.line, snippet),
      code: i.code,
      reason: i.message,
      severity: i.code === "order_level_amount" || i.code === "payment_or_tax" ? "info" : "caveat",
      mentions: mentionsOf(snippet),
    });
  }
  return out;
}
