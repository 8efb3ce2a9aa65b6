/**
 * What the prose lines of a Pricing document declare for the whole document or the part below
 * them: manufacturer ("Manufacturer: X"), currency and unit ("All prices in EUR per m2", a heading
 * "(EUR / m2)", a caption under a table), validity ("valid from 2026-01-01") and whether prices
 * include VAT ("incl. 19% VAT", "brutto") or not ("net", "excl. VAT"). A line stating an amount
 * is a price or a condition, never a declaration - except an explicit currency declaration
 * ("All prices in EUR; minimum order value 500", "Currency: CHF"), which holds whatever else the line
 * carries. A position takes the nearest declaration above it, else the first one below it.
 *
 * Also read here: customers ("Customer: Bauhaus Weber GmbH", "Kunde: ...", "Cliente: ..."), a
 * minimum order quantity stated in a note ("Minimum order: 20 m² per article", "MOQ 5 pallets",
 * "Mindestabnahme 10 Stk", "Ordine minimo 30 mq"; for one article when the note names its SKU),
 * unit conversions ("1 box = 1.44 m²", "1 Palette = 40 Sack", "Confezione: 1,44 mq" after a
 * box unit) and section headings naming a product group ("## Wall tiles", "**Fliesenkleber**").
 */
import { currenciesIn, CURRENCY_PATTERN, isKnownUnit, normalizeUnit, skuKey } from "../normalize.ts";
import { findPercents, MONEY_PATTERN, parseNumber } from "./amount.ts";
import { dateSpans, findDateRange } from "./dates.ts";
import { extractCustomers, isSkuShaped } from "./scope.ts";
import type { ParseIssue, PriceListEntry } from "../entries.ts";
import { dec, decToString } from "../../money.ts";

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
  /** "Customer: X": the customer contract terms below it were agreed for. */
  customer: Declaration<string>[];
  /** Minimum order quantities from notes; `sku` set when the note names one article. */
  moq: Array<{ line: number; snippet: string; quantity: string; unit: string | null; sku: string | null }>;
  /** "1 box = 1.44 m²": 1 unit = factor to_unit; `sku` set when the line names one article. */
  conversions: Array<
    { line: number; snippet: string; unit: string; to_unit: string; factor: string; sku: string | null }
  >;
  /** Section headings naming a product group ("## Wall tiles"); group null ends a section. */
  sections: Declaration<string | null>[];
}

const CUSTOMER_DECL =
  /^\s*(?:[-*]\s*)?(?:customer|client|kunde|cliente|buyer|abnehmer)(?:\s*(?:name|no\.?|nr\.?|number))?\s*[:\-–]\s*(.+?)\s*$/i;
// "All prices in EUR", "Prices in euro", "Currency: CHF", "Preise in EUR", "prezzi in euro", "prix en euros".
export const CURRENCY_DECL =
  /\b(?:(?:all\s+)?prices?\s+(?:are\s+)?(?:in|en)|currency\s*:|währung\s*:|valuta\s*:|devise\s*:|preise\s+in|prezzi\s+in|prix\s+en|amounts?\s+in)\s*(US\$|€|\$|£|[A-Za-z]{3}\b|euros?|dollars?|pounds?\s+sterling|swiss\s+francs?)/i;
// "Minimum order: 20 m²", "MOQ 5 pallets", "Mindestabnahme: 10 Stk", "ordine minimo 30 mq",
// "commande minimum : 10 pièces", "min. order quantity per article 50 pcs".
const MOQ_NOTE = new RegExp(
  String
    .raw`\b(?:moq|min(?:imum|\.)?\s*order(?:\s*(?:quantity|qty))?|minimum\s+purchase|mindestabnahme(?:menge)?|mindestbestellmenge|mindestmenge|ordine\s+minimo|quantit[àa]\s+minima|commande\s+minimum|minimum\s+de\s+commande|quantit[ée]\s+minimum)\b[^€$£]{0,40}?(?<![\p{L}\p{N}.,-])(\d[\d.,']*)\s*([\p{L}²³][\p{L}\p{N}²³.]*(?:\s+(?:met(?:er|re)s?|quadrat[oi]|lineare))?)?`,
  "iu",
);
// "1 box = 1.44 m²", "1 Karton = 1,44 m²", "1 Palette = 40 Sack", "1.44 m² per box", "1,44 mq/scatola".
const CONVERSION_EQ =
  /\b1\s*([\p{L}²³][\p{L}\p{N}²³]*)\s*(?:=|equals|entspricht|corrisponde a|contains|contiene|enthält)\s*(\d[\d.,]*)\s*([\p{L}²³][\p{L}\p{N}²³]*)/iu;
const CONVERSION_PER =
  /\b(\d[\d.,]*)\s*(m2|m²|mq|sqm|m|pcs|pz|Stk|pieces|kg|l)\s*(?:\/|per|pro|je|a|al|à)\s*([\p{L}]+)\b/iu;
const SECTION_DOC_WORDS =
  /price|preis|listino|prezz|tarif|catalog|katalog|discount|rabatt|sconto|remise|terms|condition|kondition|condizion|promo|aktion|offer|angebot|offert|valid|gültig|contract|vertrag|contratto|note|hinweis|customer|kunde|client|dealer|händler|rivendit|general|allgemein|generali|\b(?:19|20)\d\d\b/i;

const MANUFACTURER_DECL =
  /^\s*(?:[-*]\s*)?(?:manufacturer|brand|supplier|vendor|hersteller|marke|contract partner|contract with)\s*[:\-–]\s*(.+?)\s*$/i;
/** A line about the document's prices (a heading, a caption, a note), not a price itself. */
const PRICE_WORDS = /price|preis|currency|währung|amount|tarif|cost|prezz|prix|listino|valuta|devise/i;
const UNIT_DECL =
  /(?:\/|\bper\b|\bje\b|\bpro\b|\bal\b|\balla\b|\ba\b|\bau\b|\bà la\b|\ble\b|\bla\b|\bpar\b)\s*([\p{L}²³][\p{L}\p{N}²³]*(?:\s+(?:met(?:er|re)s?|quadrat[oi]|lineare|carr[eé]|lin[eé]aire))?)|,\s*(each)\b/iu;
const VAT_INCLUDED =
  /\b(?:incl(?:\.|uding|usive)?|inkl\.?|including)\s*(?:\d{1,2}(?:[.,]\d)?\s*%\s*)?(?:VAT|MwSt\.?|USt\.?|IVA|TVA|GST|sales tax)\b|\bgross prices?\b|\bbrutto\b/i;
const VAT_EXCLUDED =
  /\b(?:excl(?:\.|uding|usive)?|exkl\.?|zzgl\.?|plus|ex\.?)\s*(?:\d{1,2}(?:[.,]\d)?\s*%\s*)?(?:VAT|MwSt\.?|USt\.?|IVA|TVA|GST|sales tax)\b|\bnet(?:to)?\b/i;

/** The one article number a note names, if any. */
function skuIn(text: string): string | null {
  const found = text.split(/[\s,;:()]+/).filter((t) => /\d/.test(t) && isSkuShaped(t));
  return found.length === 1 ? found[0].replace(/[.,:;]+$/, "") : null;
}

/** Whether a text holds an amount of money (a number next to a currency). */
export function hasMoney(text: string): boolean {
  return [...text.matchAll(MONEY_PATTERN)].length > 0;
}

/** Context declared by the prose (non-table) lines of a document. */
export function readDocumentContext(
  lines: readonly string[],
  tableLines: ReadonlySet<number>,
): DocumentContext {
  const ctx: DocumentContext = {
    manufacturer: [],
    currency: [],
    unit: [],
    validity: [],
    vat: [],
    customer: [],
    moq: [],
    conversions: [],
    sections: [],
  };
  lines.forEach((text, i) => {
    const line = i + 1;
    if (tableLines.has(line) || !text.trim()) return;
    const plain = text.replace(/\*\*|__|`|^\s*\*|\*\s*$/g, "").replace(/^\s*#+\s*/, "");
    const mfr = MANUFACTURER_DECL.exec(plain);
    if (mfr) ctx.manufacturer.push({ line, value: mfr[1].replace(/[.;]$/, "") });
    const cust = CUSTOMER_DECL.exec(plain);
    if (cust) ctx.customer.push({ line, value: cust[1].replace(/[.;]$/, "") });
    else if (!hasMoney(plain) && !findPercents(plain).length) {
      // "Contract terms agreed with our customer Bauhaus Weber GmbH:" declares the customer too.
      const named = extractCustomers(plain).customers;
      if (named.length) ctx.customer.push({ line, value: named[0] });
    }
    const section = sectionOf(text);
    if (section !== undefined) ctx.sections.push({ line, value: section });
    const moq = MOQ_NOTE.exec(plain);
    if (moq && !hasMoney(plain.slice(moq.index, moq.index + moq[0].length + 4))) {
      const n = parseNumber(moq[1].replace(/[.,]$/, ""));
      const unit = moq[2] && isKnownUnit(moq[2].replace(/\.$/, ""))
        ? normalizeUnit(moq[2].replace(/\.$/, ""))
        : null;
      const sku = skuIn(plain);
      if (n.ok) {
        ctx.moq.push({ line, snippet: text.trim(), quantity: n.value, unit, sku: sku ? skuKey(sku) : null });
      }
    }
    const conv = CONVERSION_EQ.exec(plain);
    const convPer = conv ? null : CONVERSION_PER.exec(plain);
    if ((conv || convPer) && !hasMoney(plain)) {
      const [unitRaw, num, toRaw] = conv
        ? [conv[1], conv[2], conv[3]]
        : [convPer![3], convPer![1], convPer![2]];
      const n = parseNumber(num.replace(/[.,]$/, ""));
      if (
        n.ok && isKnownUnit(unitRaw) && isKnownUnit(toRaw) && normalizeUnit(unitRaw) !== normalizeUnit(toRaw)
      ) {
        const sku = skuIn(plain.replace((conv ?? convPer)![0], " "));
        ctx.conversions.push({
          line,
          snippet: text.trim(),
          unit: normalizeUnit(unitRaw)!,
          to_unit: normalizeUnit(toRaw)!,
          factor: n.value,
          sku: sku ? skuKey(sku) : null,
        });
      }
    }
    const undated = dateSpans(plain).reduce(
      (t, d) => t.slice(0, d.index) + " ".repeat(d.length) + t.slice(d.index + d.length),
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
    const explicit = CURRENCY_DECL.exec(plain);
    const explicitCur = explicit ? currenciesIn(explicit[1])[0] ?? null : null;
    if (explicitCur) ctx.currency.push({ line, value: explicitCur });
    else if (declares && cur.length === 1) ctx.currency.push({ line, value: cur[0] });
    if (declares || explicitCur) {
      // On a declaration that also carries an amount, the amount (with its own unit) is left out.
      const u = UNIT_DECL.exec(undated.replace(MONEY_PATTERN, " ").replace(CURRENCY_PATTERN, " "));
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

/**
 * A heading's product group: "## Wall tiles" -> "wall tiles"; a heading about the document
 * ("# Price list 2026", "## Conditions") -> null (it ends the section); not a heading -> undefined.
 */
export function sectionOf(raw: string): string | null | undefined {
  const h = /^\s*(#{1,6})\s+(.+?)\s*#*\s*$/.exec(raw) ?? /^\s*(\*\*|__)([^*_]+?)\1\s*:?\s*$/.exec(raw);
  if (!h) return undefined;
  const text = h[2].replace(/\*\*|__|`/g, "").replace(/[([].*?[)\]]/g, " ").trim();
  if (hasMoney(text) || findPercents(text).length) return undefined;
  if (SECTION_DOC_WORDS.test(text) || MANUFACTURER_DECL.test(text) || currenciesIn(text).length) return null;
  const words = text.replace(/[:–—-]+\s*$/, "").trim();
  return /^[\p{L}][\p{L}\s,&/'’-]*$/u.test(words) && words.length <= 60 ? words.toLowerCase() : null;
}

/** The section (product group) a line stands under, if any. */
export function sectionAt(ctx: DocumentContext, line: number): string | null {
  let cur: string | null = null;
  for (const d of ctx.sections) if (d.line < line) cur = d.value;
  return cur;
}

/** The minimum order a note states for an article (its SKU's note, else the general one governing it). */
export function moqAt(
  ctx: DocumentContext,
  line: number,
  sku: string | null,
): { line: number; snippet: string; quantity: string; unit: string | null } | null {
  const own = sku ? ctx.moq.find((m) => m.sku === skuKey(sku)) : undefined;
  if (own) return own;
  const general = ctx.moq.filter((m) => m.sku === null);
  return declarationAt(general.map((m) => ({ line: m.line, value: m })), line)?.value ?? null;
}

/** Whether a minimum-order note is for one article (a general note in m² says nothing of boxes). */
function isOwnNote(ctx: DocumentContext, moq: { line: number }): boolean {
  return ctx.moq.some((m) => m.line === moq.line && m.sku !== null);
}

/**
 * What notes and headings add to a price-list entry: a minimum order from a note (when the entry
 * has no MOQ column value), the unit conversions that concern it, its section's product group.
 * A minimum order in another unit is converted when the document states the conversion (rounded
 * up to whole units); otherwise the entry is dropped (null) and its line reported: quoting it
 * without its minimum order could price below it.
 */
export function extrasAt(
  ctx: DocumentContext,
  line: number,
  e: PriceListEntry,
  issues: ParseIssue[],
): Partial<PriceListEntry> | null {
  const out: Partial<PriceListEntry> = {};
  const group = sectionAt(ctx, line);
  if (group) out.product_group = group;
  const conv = ctx.conversions.filter((c) =>
    (c.sku === null || (e.sku && c.sku === skuKey(e.sku))) &&
    (c.unit === e.unit || c.to_unit === e.unit)
  );
  if (conv.length) {
    out.conversions = conv.map((c) => ({
      unit: c.unit,
      to_unit: c.to_unit,
      factor: c.factor,
      line: c.line,
      snippet: c.snippet,
    }));
  }
  if (e.min_order_qty === null) {
    const moq = moqAt(ctx, line, e.sku);
    if (moq) {
      if (moq.unit && e.unit && moq.unit !== e.unit) {
        const c = conv.find((x) => x.unit === e.unit && x.to_unit === moq.unit);
        // A general note in another unit is about the articles sold in that unit.
        if (!c && !isOwnNote(ctx, moq)) return out;
        if (!c) {
          issues.push({
            severity: "warning",
            code: "moq_unit_mismatch",
            message:
              `the minimum order on line ${moq.line} («${moq.snippet}») is in ${moq.unit}, this price is per ${e.unit}, and no conversion is stated; row skipped`,
            line,
            snippet: e.source.snippet.split("\n")[0],
          });
          return null;
        }
        // "min. 20 m²" with "1 box = 1.44 m²": 20 / 1.44 boxes, rounded up to whole units.
        const f = dec(c.factor);
        out.min_order_qty = decToString(((dec(moq.quantity) + f - 1n) / f) * 10_000n);
      } else out.min_order_qty = moq.quantity;
      out.min_order_source = { line: moq.line, snippet: moq.snippet };
    }
  }
  return out;
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
