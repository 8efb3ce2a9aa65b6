/**
 * Markdown tables and what their columns mean.
 *
 * A table is a header row, a separator row (`|---|:--:|`) and the `|` rows after it. Header
 * synonyms (case, accents and punctuation ignored):
 * - sku: sku, code, article, art. no, art.-nr., item no/number/code, product code, part no,
 *   ref/reference, artikelnummer; ean / gtin only when no other sku column exists;
 * - product: product, product name, description, name, item, designation, bezeichnung, material;
 * - manufacturer: manufacturer, brand, supplier, vendor, make, maker, producer, hersteller, marke;
 * - price: list price (preferred), price, unit price, net price, cost, rrp, msrp, preis, amount,
 *   or a bare currency (€, EUR, $); a currency or unit inside the header ("Price (€/m²)") applies
 *   to the whole column;
 * - unit: unit, uom, unit of measure, sales unit, per, einheit;
 * - currency: currency, ccy, cur, währung;
 * - tier quantity (one row per tier): min qty, from qty, qty from, quantity, qty, tier, from, ab;
 * - minimum order: moq, min order, minimum order (quantity);
 * - discount: discount, rebate, % off, percent, rabatt (rule tables);
 * - validity: valid from / valid to / valid until / validity;
 * - tier columns: a header that is a quantity range ("1-49", "50+", "≥100", "from 100 m²").
 */
import { currenciesIn, normalizeUnit } from "../normalize.ts";
import { parseQuantityRange, type QuantityRange } from "./amount.ts";

export interface TableRow {
  line: number;
  raw: string;
  cells: string[];
}

export interface MarkdownTable {
  /** 1-based line of the header row. */
  header_line: number;
  headers: string[];
  rows: TableRow[];
}

const SEPARATOR_ROW = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.replace(/\\\|/g, "|").replace(/\*\*|__|`/g, "").trim());
}

/** Every markdown table of a document, with 1-based line numbers. */
export function readMarkdownTables(lines: readonly string[]): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i].includes("|") || !SEPARATOR_ROW.test(lines[i + 1]) || !lines[i + 1].includes("-")) continue;
    const headers = splitRow(lines[i]);
    const rows: TableRow[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j].includes("|") && lines[j].trim() !== ""; j++) {
      rows.push({ line: j + 1, raw: lines[j].trim(), cells: splitRow(lines[j]) });
    }
    tables.push({ header_line: i + 1, headers, rows });
    i = j - 1;
  }
  return tables;
}

export type ColumnRole =
  | "sku"
  | "ean"
  | "product"
  | "manufacturer"
  | "list_price"
  | "price"
  | "other_price"
  | "unit"
  | "currency"
  | "tier_qty"
  | "moq"
  | "discount"
  | "valid_from"
  | "valid_to"
  | "validity";

export interface ColumnInfo {
  index: number;
  header: string;
  role: ColumnRole | "tier" | null;
  /** For a tier column: the quantity range its header states. */
  range: QuantityRange | null;
  /** Currency or unit named inside the header ("Price (€/m²)"). */
  currency: string | null;
  unit: string | null;
}

function key(header: string): string {
  return header.replace(/#/g, " no ").normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(
    /[^a-z0-9%€$£]+/g,
    " ",
  ).trim();
}

// Order matters: "item no" is a sku before "item" is a product, "min order" a moq before "min qty".
const ROLE_PATTERNS: Array<[ColumnRole, RegExp]> = [
  ["moq", /^(?:moq|min(?:imum)? order(?: qty| quantity)?|min order qty|mindestabnahme|mindestmenge)$/],
  ["valid_from", /^(?:valid from|from date|start(?: date)?|gultig ab|effective(?: from)?)$/],
  ["valid_to", /^(?:valid (?:to|until|through)|until|end(?: date)?|expires|gultig bis)$/],
  ["validity", /^(?:valid(?:ity)?|period|dates?|gultigkeit)$/],
  ["ean", /^(?:ean|gtin|ean code|barcode)$/],
  [
    "sku",
    /^(?:sku|code|article|art|art no|art nr|article no|article nr|article number|article code|artikelnr|item no|item nr|item number|item code|product code|product no|part no|part number|ref|reference|artikelnummer|artikel nr|artikel|codice|referencia)$/,
  ],
  [
    "product",
    /^(?:product|product name|description|name|item|item name|article name|designation|bezeichnung|material|title|descrizione)$/,
  ],
  [
    "manufacturer",
    /^(?:manufacturer|brand|supplier|vendor|make|maker|producer|hersteller|marke|lieferant|produttore|fabbricante|marca|fornitore|fabricant|marque|fournisseur)$/,
  ],
  ["list_price", /^(?:list price|listenpreis|rrp|msrp|gross list price)\b/],
  [
    "price",
    /^(?:price|unit price|preis|einzelpreis|cost|amount|eur|€|\$|usd|£|gbp|chf|prezzo|precio)(?=\s|$)/,
  ],
  ["other_price", /\b(?:price|preis)\b/],
  ["unit", /^(?:unit|uom|unit of measure|sales unit|per|einheit|me|packaging unit)$/],
  ["currency", /^(?:currency|ccy|cur|wahrung)$/],
  [
    "tier_qty",
    /^(?:min qty|min quantity|from qty|qty from|quantity from|quantity|qty|tier|from|ab|ab menge|break)$/,
  ],
  ["discount", /^(?:discount|disc|discount %|% off|rebate|percent|%|rabatt|sconto|descuento)$/],
];

function headerExtras(header: string): { currency: string | null; unit: string | null } {
  const currencies = currenciesIn(header);
  const per = /(?:\/|\bper\b)\s*([\p{L}²³\d]+)/u.exec(header);
  return {
    currency: currencies.length === 1 ? currencies[0] : null,
    unit: per ? normalizeUnit(per[1]) : null,
  };
}

/** What each column of a table holds. */
export function classifyColumns(headers: readonly string[]): ColumnInfo[] {
  const cols = headers.map((header, index): ColumnInfo => {
    const k = key(header);
    const extras = headerExtras(header);
    // "Price (€/m²)" and "Discount (%)" classify by their leading words.
    const bare = key(header.replace(/[([].*?[)\]]/g, " ").replace(/\/.*$/, " "));
    // A header holding a quantity range ("Price 1-49", "50+ m²") is a tier column.
    const rangeText = header.replace(/\b(?:qty|quantity|price|preis|pcs|units?)\b/gi, " ")
      .replace(/[([]\s*(?:€|\$|£|eur|usd|gbp)\s*[)\]]/gi, " ").replace(/€|\$|£|\bEUR\b|\bUSD\b/g, " ");
    const range = /\d/.test(header) ? parseQuantityRange(rangeText) : null;
    if (range) return { index, header, role: "tier", range, currency: extras.currency, unit: range.unit };
    for (const [role, re] of ROLE_PATTERNS) {
      if (re.test(bare) || re.test(k)) return { index, header, role, range: null, ...extras };
    }
    return { index, header, role: null, range: null, ...extras };
  });
  // The best-ranked price column is the base price; the others are ignored.
  const priceRank: Partial<Record<ColumnRole, number>> = { list_price: 1, price: 2, other_price: 3 };
  const best = Math.min(...cols.map((c) => priceRank[c.role as ColumnRole] ?? 9));
  let priceTaken = false;
  for (const c of cols) {
    const rank = priceRank[c.role as ColumnRole];
    if (rank === undefined) continue;
    c.role = rank === best && !priceTaken ? "price" : null;
    if (c.role) priceTaken = true;
  }
  if (cols.some((c) => c.role === "sku")) {
    for (const c of cols) {
      if (c.role === "ean") c.role = null;
      else for (const c of cols) if (c.role === "ean") c.role = "sku";
    }
  }
  // The first column of a role wins; later duplicates are ignored.
  const seen = new Set<string>();
  for (const c of cols) {
    if (!c.role || c.role === "tier") continue;
    if (seen.has(c.role)) c.role = null;
    else seen.add(c.role);
  }
  return cols;
}

export function column(cols: readonly ColumnInfo[], role: ColumnRole): ColumnInfo | undefined {
  return cols.find((c) => c.role === role);
}

/** A cell that says "no value here". */
export function isBlankCell(cell: string | undefined): boolean {
  return cell === undefined || /^\s*(?:|-|–|—|n\/a|na|none|—)\s*$/i.test(cell);
}
