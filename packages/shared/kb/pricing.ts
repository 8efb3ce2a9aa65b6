/**
 * The KB's gate for pricing documents: a document typed by price_doc_type must pass the pricing
 * engine's own validation (packages/shared/pricing), so that what the KB stores is what the price
 * lookup can read. Not ok (the route answers 400) only for an unknown type, empty content, or
 * when nothing usable is left; otherwise ok, with one warning per line the engine skipped
 * ("line 7: promotion has no effective date range ...; skipped", with the line quoted).
 */
import { type UnparsedLine, validatePriceDocument } from "../pricing/parse/mod.ts";

export type { UnparsedLine };

/**
 * `unparsed_lines` (ours, additive to the spec's answer): each line the engine did not understand
 * or does not use in prices, `{line, text, reason}` - every line of a price document that carries
 * an amount or a percentage is either understood or listed here.
 */
export type PriceDocCheck = { ok: true; warnings: string[]; unparsed_lines: UnparsedLine[] } | {
  ok: false;
  errors: string[];
  warnings: string[];
  unparsed_lines: UnparsedLine[];
};

export function checkPriceDocument(priceDocType: string, content: string): PriceDocCheck {
  const r = validatePriceDocument(priceDocType, content);
  return r.ok
    ? { ok: true, warnings: r.warnings, unparsed_lines: r.unparsed_lines }
    : { ok: false, errors: r.errors, warnings: r.warnings, unparsed_lines: r.unparsed_lines };
}
