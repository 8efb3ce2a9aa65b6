/**
 * discount_rule, contract_terms and promotion documents -> RuleEntry[].
 *
 * Each prose line (bullets, headings and emphasis stripped) that states a percent - or, in a
 * promotion, a price with a currency - yields one rule per percent/price; a line with several
 * ("10% on Mapei, 15% on Kerakoll") is cut between them, and a piece without its own scope takes
 * the line's. Scope and conditions: see scope.ts. Validity: the piece's own date range, else the
 * line's, else the document's declaration (nearest above, else first below; see price_list.ts).
 * Tables with a manufacturer or SKU column and a discount (or, for promotions, price) column
 * yield one rule per row.
 *
 * A promotion must have an effective date range with both ends; a line without one is skipped with
 * a warning naming it (validatePriceDocument rejects the document only when no line is usable). A
 * fixed promotion price must name its SKUs: a line keyed by an article number ("MP-100: 10% off,
 * valid ...", "MZ-1 Grande 120x240: 59.00 EUR per m2, valid ...") names it.
 */
import type {
  DecimalString,
  ParseIssue,
  PriceDocumentInput,
  RuleEntry,
  RuleScope,
  SourceRef,
} from "../entries.ts";
import { currenciesIn, normalizeUnit } from "../normalize.ts";
import {
  detectSeparatorStyle,
  findPercents,
  MONEY_PATTERN as MONEY,
  parseAmount,
  parsePercentCell,
  type SeparatorStyle,
} from "./amount.ts";
import { findDateRange, findDates, parseDate } from "./dates.ts";
import { declarationAt, readDocumentContext } from "./context.ts";
import { extractConditions, extractScope, isEmptyScope } from "./scope.ts";
import { classifyColumns, column, isBlankCell, readMarkdownTables } from "./table.ts";

interface Piece {
  start: number;
  text: string;
  percent: DecimalString | null;
  money: string | null;
}

interface Draft {
  source: SourceRef;
  scope: RuleScope;
  conditionsText: string;
  percent: DecimalString | null;
  money: string | null;
  from: string | null;
  to: string | null;
}

/** Blanks out spans so that later extractors do not read their digits or words again. */
function blank(text: string, spans: Array<{ index: number; length: number }>): string {
  let out = text;
  for (const s of spans) out = out.slice(0, s.index) + " ".repeat(s.length) + out.slice(s.index + s.length);
  return out;
}

/** Cuts a line so that each piece holds one percent or price. */
function splitPieces(line: string, isPromotion: boolean): Piece[] {
  const marks = [
    ...findPercents(line).map((p) => ({ index: p.index, length: p.length, percent: p.value, money: null })),
    // "9,90 € instead of 12,50 €": the reference price is not an offer of its own.
    ...(isPromotion ? [...line.matchAll(MONEY)] : []).filter((m) =>
      !/(?:instead of|statt|was|regular(?: price)?|list price|normally|reg\.)\s*:?\s*\(?$/i.test(
        line.slice(0, m.index),
      )
    ).map((m) => ({
      index: m.index!,
      length: m[0].length,
      percent: null,
      money: m[0],
    })),
  ].sort((a, b) => a.index - b.index);
  const pieces: Piece[] = [];
  let start = 0;
  marks.forEach((m, i) => {
    const next = marks[i + 1];
    let end = line.length;
    if (next) {
      const between = line.slice(m.index + m.length, next.index);
      const sep = Math.max(between.lastIndexOf(";"), between.lastIndexOf(","), between.lastIndexOf(" and "));
      end = sep >= 0 ? m.index + m.length + sep : next.index;
    }
    pieces.push({ start, text: line.slice(start, end), percent: m.percent, money: m.money });
    start = end;
  });
  return pieces;
}

export function parseRuleDocument(doc: PriceDocumentInput): { entries: RuleEntry[]; issues: ParseIssue[] } {
  const lines = doc.content.split(/\r?\n/);
  const tables = readMarkdownTables(lines);
  const tableLines = new Set<number>();
  for (const t of tables) {
    [t.header_line, t.header_line + 1, ...t.rows.map((r) => r.line)].forEach((l) => tableLines.add(l));
  }
  const ctx = readDocumentContext(lines, tableLines);
  const isPromotion = doc.price_doc_type === "promotion";
  const style = detectSeparatorStyle([...doc.content.matchAll(MONEY)].map((m) => m[0]));
  const drafts: Draft[] = [];
  const source = (line: number, snippet: string): SourceRef => ({
    doc_id: doc.id,
    doc_title: doc.title,
    price_doc_type: doc.price_doc_type,
    line,
    snippet,
  });

  lines.forEach((raw, i) => {
    const line = i + 1;
    if (tableLines.has(line) || !raw.trim()) return;
    const plain = raw.replace(/\*\*|__|`/g, "").replace(/^\s*(?:#+|[-*+>]|\d+[.)])\s+/, "");
    const dates = findDates(plain);
    const undated = blank(plain, dates);
    const pieces = splitPieces(undated, isPromotion);
    if (!pieces.length) return;
    const lineRange = findDateRange(plain);
    const lineScope = extractScope(blank(undated, [...findPercents(undated), ...matchSpans(undated, MONEY)]));
    for (const p of pieces) {
      const cleaned = blank(p.text, [...findPercents(p.text), ...matchSpans(p.text, MONEY)]);
      let scope = extractScope(cleaned);
      if (isEmptyScope(scope)) scope = lineScope;
      // blank() keeps lengths, so the piece's offsets in `undated` are its offsets in `plain`.
      const ownRange = findDateRange(plain.slice(p.start, p.start + p.text.length));
      const range = ownRange ?? lineRange ?? declarationAt(ctx.validity, line)?.value ?? null;
      drafts.push({
        source: source(line, raw.trim()),
        scope,
        // Only the piece's own price is blanked here: "on orders above €5,000" stays a condition.
        conditionsText: blank(p.text, [
          ...findPercents(p.text),
          ...matchSpans(p.text, MONEY).filter((m) =>
            p.money !== null && p.text.substr(m.index, m.length) === p.money
          ),
        ]),
        percent: p.percent,
        money: p.money,
        from: range?.from ?? null,
        to: range?.to ?? null,
      });
    }
  });

  for (const t of tables) {
    const cols = classifyColumns(t.headers);
    const mfrCol = column(cols, "manufacturer");
    const skuCol = column(cols, "sku");
    const pctCol = column(cols, "discount");
    const priceCol = isPromotion ? column(cols, "price") : undefined;
    if ((!mfrCol && !skuCol) || (!pctCol && !priceCol)) continue;
    const cell = (r: { cells: string[] }, c: typeof mfrCol) =>
      c && !isBlankCell(r.cells[c.index]) ? r.cells[c.index].trim() : null;
    for (const r of t.rows) {
      const mfr = cell(r, mfrCol);
      const sku = cell(r, skuCol);
      const everything = mfr !== null && /^(?:all|any|\*|alle)$/i.test(mfr);
      const from = cell(r, column(cols, "valid_from"));
      const to = cell(r, column(cols, "valid_to"));
      const validity = cell(r, column(cols, "validity"));
      const rowRange = validity
        ? findDateRange(validity)
        : (from || to)
        ? { from: from ? parseDate(from) : null, to: to ? parseDate(to) : null }
        : null;
      const range = rowRange ?? declarationAt(ctx.validity, r.line)?.value ?? null;
      const minQty = cell(r, column(cols, "tier_qty"));
      drafts.push({
        source: source(r.line, r.raw),
        scope: {
          skus: sku ? [sku] : [],
          manufacturers: mfr && !everything ? [mfr] : [],
          product_keywords: [],
          all: everything,
        },
        conditionsText: minQty ? `from ${minQty}` : "",
        percent: pctCol ? parsePercentCell(cell(r, pctCol) ?? "") : null,
        money: priceCol ? cell(r, priceCol) : null,
        from: range?.from ?? null,
        to: range?.to ?? null,
      });
    }
  }
  return finish(doc, drafts, ctx.manufacturer, style, isPromotion);
}

function matchSpans(text: string, re: RegExp) {
  return [...text.matchAll(re)].map((m) => ({ index: m.index!, length: m[0].length }));
}

function finish(
  doc: PriceDocumentInput,
  drafts: Draft[],
  manufacturerDecls: Array<{ line: number; value: string }>,
  style: SeparatorStyle | null,
  isPromotion: boolean,
): { entries: RuleEntry[]; issues: ParseIssue[] } {
  const entries: RuleEntry[] = [];
  const issues: ParseIssue[] = [];
  for (const d of drafts) {
    const issue = (severity: ParseIssue["severity"], code: string, message: string) =>
      issues.push({ severity, code, message, line: d.source.line, snippet: d.source.snippet });
    let scope = d.scope;
    if (isEmptyScope(scope)) {
      const declared = declarationAt(manufacturerDecls, d.source.line);
      if (declared) scope = { ...scope, manufacturers: [declared.value] };
    }
    if (d.percent === null && d.money === null) {
      issue("warning", "no_amount", "row has no discount percent or price; skipped");
      continue;
    }
    if (isEmptyScope(scope)) {
      issue(
        "warning",
        "scope_not_recognised",
        "cannot tell which products this applies to (name a manufacturer, SKU, or 'all products'); skipped",
      );
      continue;
    }
    const conditions = extractConditions(d.conditionsText, style);
    const base = { source: d.source, scope, conditions };
    if (!isPromotion) {
      entries.push({
        ...base,
        kind: doc.price_doc_type === "contract_terms" ? "contract_terms" : "discount_rule",
        percent: d.percent!,
        valid_from: d.from,
        valid_to: d.to,
      });
      continue;
    }
    if (!d.from || !d.to) {
      // Skipped, not guessed; the document is refused only when nothing else in it is usable.
      issue(
        "warning",
        "promotion_without_date_range",
        "promotion has no effective date range with a start and an end date; skipped (write e.g. 'valid 2026-03-01 to 2026-04-30')",
      );
      continue;
    }
    let price: string | null = null;
    let currency: string | null = null;
    let unit: string | null = null;
    if (d.money !== null) {
      const a = parseAmount(d.money, style);
      if (!a.ok) {
        issue("warning", "bad_price", `${a.reason}; skipped`);
        continue;
      }
      if (!scope.skus.length) {
        issue("warning", "price_without_sku", "a fixed promotion price must name the SKU it is for; skipped");
        continue;
      }
      price = a.value;
      currency = a.currency ?? (currenciesIn(d.source.snippet)[0] ?? null);
      unit = a.unit ? normalizeUnit(a.unit) : null;
    }
    entries.push({
      ...base,
      kind: "promotion",
      percent: d.percent,
      price,
      currency,
      unit,
      valid_from: d.from,
      valid_to: d.to,
    });
  }
  return { entries, issues };
}
