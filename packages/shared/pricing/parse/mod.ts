/**
 * Ingest stage: a Pricing KB document (kb_docs row) -> structured entries + issues, and the
 * validation the KB applies before storing one.
 */
import {
  isPriceDocType,
  type ParsedPriceDocument,
  type PriceDocType,
  type PriceDocumentInput,
} from "../entries.ts";
import { parsePriceList } from "./price_list.ts";
import { parseRuleDocument } from "./rules.ts";

export function parsePriceDocument(doc: PriceDocumentInput): ParsedPriceDocument {
  const { entries, issues } = doc.price_doc_type === "price_list"
    ? parsePriceList(doc)
    : parseRuleDocument(doc);
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
  return { doc_id: doc.id, doc_title: doc.title, price_doc_type: doc.price_doc_type, entries, issues };
}

export function parsePriceDocuments(docs: readonly PriceDocumentInput[]): ParsedPriceDocument[] {
  return docs.map(parsePriceDocument);
}

export type PriceDocumentValidation =
  | { ok: true; entry_count: number; warnings: string[] }
  | { ok: false; errors: string[]; warnings: string[] };

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
    };
  }
  if (!content.trim()) return { ok: false, errors: ["content is empty"], warnings: [] };
  const parsed = parsePriceDocument({ id: "validation", title: "validation", price_doc_type, content });
  const describe = (i: ParsedPriceDocument["issues"][number]) =>
    i.line === null ? i.message : `line ${i.line}: ${i.message} ("${i.snippet}")`;
  const errors = parsed.issues.filter((i) => i.severity === "error").map(describe);
  const warnings = parsed.issues.filter((i) => i.severity === "warning").map(describe);
  return errors.length
    ? { ok: false, errors, warnings }
    : { ok: true, entry_count: parsed.entries.length, warnings };
}
