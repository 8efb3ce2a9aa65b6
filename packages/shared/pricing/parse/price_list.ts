/**
 * price_list documents -> PriceListEntry[].
 *
 * Rows of markdown tables become entries (see table.ts for the header synonyms); prose lines that
 * state a price become entries too (prose_list.ts), so a price list need not be a table. Prose
 * lines of the document declare context (context.ts): `Manufacturer: X` (also Brand / Supplier),
 * the currency and unit ("All prices in EUR per m2", "Currency: EUR", a heading "(EUR / m2)", a
 * caption under the table), VAT ("incl. 19% VAT", "net") and validity ("Valid from 2026-01-01",
 * "valid 2026-01-01 to 2026-12-31", "Updated: 15.01.2026"). A table takes the nearest
 * declaration above it, else the first one below it. A row's own cell beats a column header,
 * which beats the document context.
 *
 * Rows of one table with the same article (SKU, else name + manufacturer), unit and currency but
 * different tier starts are merged into one entry with several tiers; rows that repeat a tier
 * start with another price stay separate entries, so the lookup sees and reports the conflict.
 */
import {
  type DecimalString,
  type ParseIssue,
  type PriceDocumentInput,
  type PriceListEntry,
  type PriceTier,
  sourceRef,
} from "../entries.ts";
import { decFromString } from "../../money.ts";
import { currenciesIn, manufacturerTokens, normalizeUnit, skuKey } from "../normalize.ts";
import {
  detectSeparatorStyle,
  MONEY_PATTERN,
  parseAmount,
  parseNumber,
  parseQuantityRange,
  type SeparatorStyle,
} from "./amount.ts";
import { parseProseList } from "./prose_list.ts";
import { declarationAt, extrasAt, readDocumentContext, vatAt } from "./context.ts";
import {
  classifyColumns,
  column,
  type ColumnInfo,
  isBlankCell,
  type MarkdownTable,
  readMarkdownTables,
} from "./table.ts";

function tableLineSet(tables: readonly MarkdownTable[]): Set<number> {
  const set = new Set<number>();
  for (const t of tables) {
    set.add(t.header_line);
    set.add(t.header_line + 1);
    for (const r of t.rows) set.add(r.line);
  }
  return set;
}

/** Every cell text that may hold money, for the document's decimal-style detection. */
function moneyCells(tables: readonly { cols: ColumnInfo[]; table: MarkdownTable }[]): string[] {
  const out: string[] = [];
  for (const { cols, table } of tables) {
    const priceCols = cols.filter((c) => c.role === "price" || c.role === "tier");
    for (const r of table.rows) for (const c of priceCols) if (r.cells[c.index]) out.push(r.cells[c.index]);
  }
  return out;
}

export function parsePriceList(doc: PriceDocumentInput): { entries: PriceListEntry[]; issues: ParseIssue[] } {
  const lines = doc.content.split(/\r?\n/);
  const tables = readMarkdownTables(lines);
  const ctx = readDocumentContext(lines, tableLineSet(tables));
  const issues: ParseIssue[] = [];
  const entries: PriceListEntry[] = [];
  const classified = tables.map((table) => ({ table, cols: classifyColumns(table.headers) }));
  const tableLines = tableLineSet(tables);
  const style = detectSeparatorStyle([
    ...moneyCells(classified),
    ...lines.filter((_, i) => !tableLines.has(i + 1)).flatMap((l) =>
      [...l.matchAll(MONEY_PATTERN)].map((m) => m[0])
    ),
  ]);

  for (const { table, cols } of classified) {
    const hasPrice = cols.some((c) => c.role === "price" || c.role === "tier");
    const hasIdentity = column(cols, "sku") || column(cols, "product");
    if (!hasPrice || !hasIdentity) {
      issues.push({
        severity: "warning",
        code: "table_not_price_list",
        message: "table has no price column or no SKU / product column; skipped",
        line: table.header_line,
        snippet: lines[table.header_line - 1].trim(),
      });
      continue;
    }
    const context = {
      manufacturer: declarationAt(ctx.manufacturer, table.header_line)?.value ?? null,
      currency: declarationAt(ctx.currency, table.header_line)?.value ?? null,
      unit: declarationAt(ctx.unit, table.header_line)?.value ?? null,
      vat: vatAt(ctx, table.header_line),
      validity: declarationAt(ctx.validity, table.header_line)?.value ?? { from: null, to: null },
    };
    const merged = new Map<string, PriceListEntry>();
    for (const row of table.rows) {
      const r = parseRow(doc, row, cols, context, style);
      if ("issue" in r) {
        issues.push(r.issue);
        continue;
      }
      const e = r.entry;
      const extra = extrasAt(ctx, row.line, e, issues);
      if (extra === null) continue;
      Object.assign(e, extra);
      const id = e.sku
        ? `s:${skuKey(e.sku)}`
        : `n:${(e.product_name ?? "").toLowerCase()}|${manufacturerTokens(e.manufacturer ?? "").join(" ")}`;
      const k = `${id}|${e.unit}|${e.currency}|${e.min_order_qty}`;
      const prev = merged.get(k);
      const clash = prev && prev.tiers.some((t) => e.tiers.some((u) => u.min_qty === t.min_qty));
      if (prev && !clash) {
        prev.tiers.push(...e.tiers);
        prev.tiers.sort((a, b) => Number(decFromString(a.min_qty)! - decFromString(b.min_qty)!));
        prev.source.snippet += `\n${e.source.snippet}`;
      } else {
        if (!prev) merged.set(k, e);
        entries.push(e);
      }
    }
  }
  const prose = parseProseList(doc, lines, tableLines, ctx, style);
  prose.entries = prose.entries.filter((e) => {
    const extra = extrasAt(ctx, e.source.line, e, prose.issues);
    if (extra) Object.assign(e, extra);
    return extra !== null;
  });
  entries.push(...prose.entries);
  issues.push(...prose.issues);
  return { entries, issues };
}

export interface TableContext {
  manufacturer: string | null;
  currency: string | null;
  unit: string | null;
  vat: { line: number; snippet: string } | null;
  validity: { from: string | null; to: string | null };
}

type RowResult = { entry: PriceListEntry } | { issue: ParseIssue };

function parseRow(
  doc: PriceDocumentInput,
  row: { line: number; raw: string; cells: string[] },
  cols: ColumnInfo[],
  context: TableContext,
  style: SeparatorStyle | null,
): RowResult {
  const cell = (
    c: ColumnInfo | undefined,
  ) => (c && !isBlankCell(row.cells[c.index]) ? row.cells[c.index].trim() : null);
  const skip = (code: string, message: string): RowResult => ({
    issue: { severity: "warning", code, message, line: row.line, snippet: row.raw },
  });
  const sku = cell(column(cols, "sku"));
  const product = cell(column(cols, "product"));
  if (!sku && !product) return skip("row_without_article", "row has neither SKU nor product name; skipped");

  const currencies = new Set<string>();
  const units = new Set<string>();
  const curCell = cell(column(cols, "currency"));
  if (curCell) currencies.add(currenciesIn(curCell)[0] ?? curCell.toUpperCase());
  const unitCell = cell(column(cols, "unit"));
  if (unitCell) units.add(normalizeUnit(unitCell)!);

  const tiers: PriceTier[] = [];
  const priceCol = column(cols, "price");
  const tierCols = cols.filter((c) => c.role === "tier");
  const qtyCol = column(cols, "tier_qty");
  const headerCurrencies = new Set<string>();
  const headerUnits = new Set<string>();
  const read = (c: ColumnInfo, range: { min: string; min_exclusive: boolean; max: string | null }) => {
    const text = cell(c);
    if (!text) return null;
    const a = parseAmount(text, style);
    if (!a.ok) return a.reason;
    if (a.currency) currencies.add(a.currency);
    if (a.unit) units.add(a.unit);
    if (c.currency) headerCurrencies.add(c.currency);
    if (c.unit && c.role !== "tier") headerUnits.add(c.unit);
    tiers.push({
      min_qty: range.min,
      min_exclusive: range.min_exclusive,
      max_qty: range.max,
      price: a.value,
      column: c.header,
      line: row.line,
      snippet: row.raw,
    });
    return null;
  };
  if (priceCol) {
    const qtyText = cell(qtyCol);
    const range = qtyText
      ? parseQuantityRange(qtyText, style)
      : { min: "0", min_exclusive: false, max: null, unit: null };
    if (!range) return skip("bad_quantity", `quantity "${qtyText}" is not a number or range; row skipped`);
    if (range.unit) units.add(range.unit);
    const err = read(priceCol, range);
    if (err) return skip("bad_price", `${err}; row skipped`);
  }
  for (const c of tierCols) {
    const err = read(c, c.range!);
    if (err) return skip("bad_price", `${err} in column "${c.header}"; row skipped`);
    if (cell(c) && c.range!.unit) headerUnits.add(c.range!.unit);
  }
  if (!tiers.length) return skip("no_price", "row has no price (empty or 'on request'); skipped");
  const distinct = new Set(tiers.map((t) => t.min_qty));
  if (distinct.size !== tiers.length) {
    return skip("duplicate_tier", "two prices for the same quantity in one row");
  }

  const currency = pickOne(currencies, headerCurrencies, context.currency);
  if (currency === undefined) return skip("currency_conflict", "row states more than one currency; skipped");
  const unit = pickOne(units, headerUnits, context.unit);
  if (unit === undefined) return skip("unit_conflict", "row states more than one unit; skipped");

  let moq: DecimalString | null = null;
  const moqText = cell(column(cols, "moq"));
  if (moqText) {
    const n = parseNumber(moqText.replace(/[\p{L}²³\s]+$/u, ""), style);
    if (!n.ok) return skip("bad_moq", `minimum order "${moqText}" is not a number; row skipped`);
    moq = n.value;
  }
  tiers.sort((a, b) => Number(decFromString(a.min_qty)! - decFromString(b.min_qty)!));
  return {
    entry: {
      kind: "price_list",
      source: sourceRef(doc, row.line, row.raw),
      sku,
      product_name: product,
      manufacturer: cell(column(cols, "manufacturer")) ?? context.manufacturer,
      currency,
      unit,
      min_order_qty: moq,
      tiers,
      valid_from: context.validity.from,
      valid_to: context.validity.to,
      vat_included: context.vat,
    },
  };
}

/** Row values beat header values beat context; more than one distinct row value is undefined. */
function pickOne(row: Set<string>, header: Set<string>, context: string | null): string | null | undefined {
  if (row.size > 1) return undefined;
  if (row.size === 1) {
    const [v] = row;
    return header.size && !header.has(v) ? undefined : v;
  }
  if (header.size > 1) return undefined;
  return header.size === 1 ? [...header][0] : context;
}
