/**
 * The KB's gate for pricing documents: a document typed by price_doc_type must pass the pricing
 * engine's own validation (packages/shared/pricing: unknown type, empty or unreadable content,
 * a promotion without a complete effective date range), so that what the KB stores is what the
 * price lookup can read.
 */
import { validatePriceDocument } from "../pricing/parse/mod.ts";

export type PriceDocCheck = { ok: true; warnings: string[] } | {
  ok: false;
  errors: string[];
  warnings: string[];
};

export function checkPriceDocument(priceDocType: string, content: string): PriceDocCheck {
  const r = validatePriceDocument(priceDocType, content);
  return r.ok ? { ok: true, warnings: r.warnings } : { ok: false, errors: r.errors, warnings: r.warnings };
}
