/**
 * What the prose lines of a Pricing document declare for the whole document or the part below
 * them: manufacturer ("Manufacturer: X"), currency and unit ("All prices in EUR per m2", a heading
 * "(EUR / m2)", a caption under a table), validity ("valid from 2026-01-01") and whether prices
 * include VAT ("incl. 19% VAT", "brutto") or not ("net", "excl. VAT"). A line stating an amount
 * is a price or a condition, never a declaration. A position takes the nearest declaration above
 * it, else the first one below it.
 */
import { currenciesIn, CURRENCY_PATTERN, isKnownUnit, normalizeUnit } from "../normalize.ts";
import { findPercents, MONEY_PATTERN } from "./amount.ts";
import { findDateRange, findDates } from "./dates.ts";

export interface Declaration<T> {
  line: number;
  value: T;
}

export interface DocumentContext {
  manufacturer: Declaration<string>[];
  currency: Declaration<string>[];
  /** "All prices in EUR per m2", "(EUR / m²)", "prices in USD, each". */
  unit: Declaration<string>[];
  validity: Declaration<{ from: string | null; to: string | null }>[];
  /** Lines saying the prices include VAT (gross) or exclude it (net). */
  vat: Declaration<{ included: boolean; snippet: string }>[];
}

const MANUFACTURER_DECL =
  /^\s*(?:[-*]\s*)?(?:manufacturer|brand|supplier|vendor|hersteller|marke|contract partner|contract with)\s*[:\-–]\s*(.+?)\s*$/i;
/** A line about the document's prices (a heading, a caption, a note), not a price itself. */
const PRICE_WORDS = /price|preis|currency|währung|amount|tarif|cost/i;
const UNIT_DECL = /(?:\/|\bper\b|\bje\b|\bpro\b)\s*([\p{L}²³][\p{L}\p{N}²³]*)|,\s*(each)\b/iu;
const VAT_INCLUDED =
  /\b(?:incl(?:\.|uding|usive)?|inkl\.?|including)\s*(?:\d{1,2}(?:[.,]\d)?\s*%\s*)?(?:VAT|MwSt\.?|USt\.?|IVA|TVA|GST|sales tax)\b|\bgross prices?\b|\bbrutto\b/i;
const VAT_EXCLUDED =
  /\b(?:excl(?:\.|uding|usive)?|exkl\.?|zzgl\.?|plus|ex\.?)\s*(?:\d{1,2}(?:[.,]\d)?\s*%\s*)?(?:VAT|MwSt\.?|USt\.?|IVA|TVA|GST|sales tax)\b|\bnet(?:to)?\b/i;

/** Whether a text holds an amount of money (a number next to a currency). */
export function hasMoney(text: string): boolean {
  return [...text.matchAll(MONEY_PATTERN)].length > 0;
}

/** Context declared by the prose (non-table) lines of a document. */
export function readDocumentContext(
  lines: readonly string[],
  tableLines: ReadonlySet<number>,
): DocumentContext {
  const ctx: DocumentContext = { manufacturer: [], currency: [], unit: [], validity: [], vat: [] };
  lines.forEach((text, i) => {
    const line = i + 1;
    if (tableLines.has(line) || !text.trim()) return;
    const plain = text.replace(/\*\*|__|`|^\s*\*|\*\s*$/g, "").replace(/^\s*#+\s*/, "");
    const mfr = MANUFACTURER_DECL.exec(plain);
    if (mfr) ctx.manufacturer.push({ line, value: mfr[1].replace(/[.;]$/, "") });
    const undated = findDates(plain).reduce(
      (t, d) => t.replace(plain.slice(d.index, d.index + d.length), ""),
      plain,
    );
    // A line stating an amount is a price or a condition, not a declaration about all prices.
    // A heading ("## Grande 2026 (EUR / m2)") or a caption ("*EUR per m²*") speaks for the table.
    const headingOrCaption = /^\s*#/.test(text) || /^\s*([*_]{1,2})[^*_].*\1\s*$/.test(text);
    const declares = (PRICE_WORDS.test(plain) || headingOrCaption) && !hasMoney(undated) &&
      !findPercents(
        undated.replace(VAT_INCLUDED, "")
          .replace(VAT_EXCLUDED, ""),
      ).length;
    const cur = currenciesIn(plain);
    if (declares && cur.length === 1) ctx.currency.push({ line, value: cur[0] });
    if (declares) {
      const u = UNIT_DECL.exec(undated.replace(CURRENCY_PATTERN, " "));
      const unit = u ? (u[2] ? "piece" : isKnownUnit(u[1]) ? normalizeUnit(u[1]) : null) : null;
      if (unit) ctx.unit.push({ line, value: unit });
    }
    // "incl. 19% VAT" is about all prices even without the word "price"; "net" needs it.
    if (!hasMoney(undated) && VAT_INCLUDED.test(plain)) {
      ctx.vat.push({ line, value: { included: true, snippet: text.trim() } });
    } else if (declares && VAT_EXCLUDED.test(plain)) {
      ctx.vat.push({ line, value: { included: false, snippet: text.trim() } });
    }
    // A line with a percent or an amount is a rule or a price carrying its own dates, not a
    // validity declaration for the rest of the document.
    const range = findPercents(plain.replace(VAT_INCLUDED, "")).length || hasMoney(undated)
      ? null
      : findDateRange(plain);
    if (range) ctx.validity.push({ line, value: { from: range.from, to: range.to } });
  });
  return ctx;
}

/** The declaration governing a position: nearest above, else first below. */
export function declarationAt<T>(decls: readonly Declaration<T>[], line: number): Declaration<T> | null {
  let above: Declaration<T> | null = null;
  for (const d of decls) if (d.line < line) above = d;
  return above ?? decls.find((d) => d.line > line) ?? null;
}

/** The VAT note governing a position, when it says the prices include VAT. */
export function vatAt(ctx: DocumentContext, line: number): { line: number; snippet: string } | null {
  const d = declarationAt(ctx.vat, line);
  return d && d.value.included ? { line: d.line, snippet: d.value.snippet } : null;
}
