/**
 * Ingest stage: a Pricing KB document (kb_docs row) -> structured entries + issues, and the
 * validation the KB applies before storing one.
 */
import {
  isPriceDocType,
  type ParsedPriceDocument,
  type PriceDocType,
  type PriceDocumentInput,
  type PriceEntry,
  type PriceListEntry,
  type RuleEntry,
} from "../entries.ts";
import { parsePriceList } from "./price_list.ts";
import { parseRuleDocument } from "./rules.ts";
import { readDocumentContext } from "./context.ts";
import { reportUncovered } from "./coverage.ts";
import { readMarkdownTables } from "./table.ts";

// "ml" is the running metre (metro lineare, mètre linéaire) in Italian and French trade documents,
// and when the document says so; otherwise millilitre.
const ML_IS_METRE =
  /\bml\s*(?:=|:|\()\s*(?:metr[oi] linear[ei]|m[eè]tres? lin[eé]aires?|running met(?:er|re)s?|linear met(?:er|re)s?|laufmeter)/i;
const ITALIAN_OR_FRENCH =
  /\b(?:listino|prezz[oi]|sconto|cad\.?|pz|mq|iva esclusa|valid[oa] (?:dal|fino)|prix|remise|tarif|hors taxes|HT|TTC|pièces?|valable|mètres?)\b/gi;

function mlIsMetre(content: string): boolean {
  return ML_IS_METRE.test(content) || (content.match(ITALIAN_OR_FRENCH)?.length ?? 0) >= 2;
}

function metreForMl(entries: PriceEntry[]): void {
  const fix = (u: string | null) => (u === "ml" ? "m" : u);
  for (const e of entries) {
    if (e.kind === "price_list") {
      e.unit = fix(e.unit);
      for (const c of e.conversions ?? []) [c.unit, c.to_unit] = [fix(c.unit)!, fix(c.to_unit)!];
    } else if (e.kind !== "unparsed_line") {
      if (e.kind === "promotion") e.unit = fix(e.unit);
      for (const c of e.conditions) if (c.kind === "min_quantity") c.unit = fix(c.unit);
    }
  }
}

export function parsePriceDocument(doc: PriceDocumentInput): ParsedPriceDocument {
  const parsed = doc.price_doc_type === "price_list" ? parsePriceList(doc) : parseRuleDocument(doc);
  const entries: Array<PriceListEntry | RuleEntry> = parsed.entries;
  const issues = parsed.issues;
  if (mlIsMetre(doc.content)) metreForMl(entries);
  const lines = doc.content.split(/\r?\n/);
  const tableLines = new Set<number>();
  for (const t of readMarkdownTables(lines)) {
    [t.header_line, t.header_line + 1, ...t.rows.map((r) => r.line)].forEach((l) => tableLines.add(l));
  }
  const unparsed = reportUncovered(doc, lines, entries, issues, readDocumentContext(lines, tableLines));
  if (!entries.length) {
    const skipped = issues.filter((i) => i.line !== null).map((i) => `line ${i.line}: ${i.message}`);
    issues.push({
      severity: "error",
      code: "no_entries",
      message: (doc.price_doc_type === "price_list"
        ? "no price rows recognised: a price_list needs a table with a SKU or product column and a price column, or lines like 'MP-100 Keraflex grey 25 kg: 12,50 EUR per bag'"
        : doc.price_doc_type === "promotion"
        ? "no promotion recognised: write one line per offer with what it applies to, a percent or a price, and its dates, e.g. 'MP-100: 10% off, valid 2026-03-01 to 2026-04-30' or 'All Mapei products: 15% off, valid 01.03.2026 to 30.04.2026'"
        : `no ${doc.price_doc_type} recognised: state a percent and what it applies to, e.g. 'Mapei: 12%' or '5% on all products'`) +
        (skipped.length ? `; not usable: ${skipped.join("; ")}` : ""),
      line: null,
      snippet: null,
    });
  }
  issues.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  return {
    doc_id: doc.id,
    doc_title: doc.title,
    price_doc_type: doc.price_doc_type,
    entries,
    issues,
    unparsed: entries.length ? unparsed : [],
  };
}

export function parsePriceDocuments(docs: readonly PriceDocumentInput[]): ParsedPriceDocument[] {
  return docs.map(parsePriceDocument);
}

/** A line of the document the engine did not understand (or does not use in prices), and why. */
export interface UnparsedLine {
  line: number;
  text: string;
  reason: string;
}

export type PriceDocumentValidation =
  | { ok: true; entry_count: number; warnings: string[]; unparsed_lines: UnparsedLine[] }
  | { ok: false; errors: string[]; warnings: string[]; unparsed_lines: UnparsedLine[] };

/**
 * Whether the KB may store a document of this price_doc_type with this content. Errors (the KB
 * answers 400 with them): unknown type, empty content, or nothing usable left (the error then
 * lists every skipped line and why). Whatever else is readable is stored; each line skipped
 * (no date range on a promotion line, unrecognised scope, an unreadable price) is a warning that
 * names the line.
 */
export function validatePriceDocument(
  price_doc_type: PriceDocType | string,
  content: string,
): PriceDocumentValidation {
  if (!isPriceDocType(price_doc_type)) {
    return {
      ok: false,
      errors: [`price_doc_type must be one of price_list, discount_rule, contract_terms, promotion`],
      warnings: [],
      unparsed_lines: [],
    };
  }
  if (!content.trim()) return { ok: false, errors: ["content is empty"], warnings: [], unparsed_lines: [] };
  const parsed = parsePriceDocument({ id: "validation", title: "validation", price_doc_type, content });
  const describe = (i: ParsedPriceDocument["issues"][number]) =>
    i.line === null ? i.message : `line ${i.line}: ${i.message} ("${i.snippet}")`;
  const errors = parsed.issues.filter((i) => i.severity === "error").map(describe);
  const warnings = parsed.issues.filter((i) => i.severity === "warning").map(describe);
  const byLine = new Map<number, UnparsedLine>();
  for (const i of parsed.issues) {
    if (i.line === null || byLine.has(i.line)) continue;
    byLine.set(i.line, { line: i.line, text: i.snippet ?? "", reason: i.message });
  }
  const unparsed_lines = [...byLine.values()];
  return errors.length ? { ok: false, errors, warnings, unparsed_lines } : {
    ok: true,
    entry_count: parsed.entries.length,
    warnings,
    unparsed_lines,
  };
}
