/**
 * The deterministic, audited price engine: Pricing KB documents in, a price_proposal out, with
 * every number traced to the document line it came from. Pure domain code - no database, no
 * HTTP, no clock (the caller passes `today`). agent-chat's price_lookup tool and the KB call it;
 * the language model never composes a price itself.
 *
 * Pipeline (one module per stage):
 *   ingest   parse/mod.ts        kb_docs content -> PriceEntry[] (entries.ts), validatePriceDocument:
 *                                tables (parse/table.ts, price_list.ts), prose price lines
 *                                (parse/prose_list.ts), rule lines (parse/rules.ts, scope.ts), and what
 *                                the document declares once (parse/context.ts: currency, unit, VAT,
 *                                validity, manufacturer, customer, minimum-order notes, unit
 *                                conversions, section headings). What is readable is kept; every line
 *                                that is not is a warning naming it; an error only when nothing is left.
 *   cover    parse/coverage.ts   every line carrying an amount or a percentage is understood or
 *                                reported (the ingest answer's unparsed_lines; UnparsedLineEntry
 *                                stored with the entries, named by the lookups it may concern).
 *   index    index.ts            entries -> product identities + token index + rules
 *   match    match.ts            request -> product (SKU, else fuzzy name narrowed by manufacturer)
 *   base     base_price.ts       product -> one list price (validity, unit, conflict, tier, MOQ)
 *   adjust   adjustments.ts      rules -> at most one discount or promotion price
 *   compose  proposal.ts         -> price_proposal; lookup.ts also returns matches[] and hints{}
 *
 * Rounding (../money.ts, shared with quotes): exact decimals (bigint of 1/10,000); one rounding, half-up to 2 decimals:
 *   final_unit_price = round2(list_price x (1 - discount_percent/100));
 *   total = round2(final_unit_price x quantity_applied) using the rounded unit price.
 *
 * Precedence (adjustments.ts, base_price.ts):
 *   1. A price for the specific SKU beats a general rule: a fixed promotion price for the SKU
 *      beats every percent rule; percent rules rank SKU > SKU prefix ("all SKUs starting with
 *      JOLLY-") > collection ("the Grande collection", in the product name) = manufacturer +
 *      confirmed category > manufacturer > confirmed
 *      category > manufacturer with a category the product name does not confirm (caveat) > all
 *      products. A line keyed by an article number ("MP-100: 10% off, valid ...")
 *      is a SKU rule.
 *   2. Discounts never stack: the single highest percent at the most specific level applies
 *      (ties: contract_terms, promotion, discount_rule, then doc id, line); the reasoning chain
 *      names the rule chosen and why, and the rules not chosen.
 *   3. Rules apply only inside their dates, bounds inclusive; an expired in-scope rule is ignored
 *      and named in the warnings - a caveat (medium) unless a more specific rule applied anyway.
 *      Promotions always have dates (ingest skips a promotion line without, naming the line).
 *   4. Conflicting list prices for one SKU: the document declaring the strictly latest "valid
 *      from" wins (medium confidence); otherwise no price.
 *   5. Units must agree exactly after normalising spellings (m² = m2 = sqm = mq); converted only by
 *      a conversion the document states ("1 box = 1.44 m²"), with a caveat.
 *   7. Contract terms naming a customer apply only to a lookup for that customer (`customer`).
 *   8. A cascade ("10% + 5%") is one rule with the compounded percent; the old rate of a
 *      comparison ("12% instead of 10%") is not a rule. See docs/pricing.md.
 *   6. Quantity picks the tier with the greatest lower bound <= quantity; below an explicit
 *      minimum order, or below a first tier starting above 1, there is no price.
 *
 * Confidence (confidence.ts): low = no reliable price (final_unit_price null; every number
 * null; warnings name each gap: no base price, conflicting documents, only expired prices, unit
 * mismatch, ambiguous product, below minimum order, no currency), or a candidate price resting on
 * a scope the documents do not confirm (a doubt: numbers kept, the warning says what to check);
 * high = SKU match + one base price + no caveat; medium = priced, but by name match or with a
 * caveat.
 *
 * Unlike the origin platform (where the tool only retrieved chunks and told the model to do the
 * arithmetic), nothing here is left to a model, and "no price" is an explicit, explained result.
 */
export * from "./entries.ts";
export {
  parsePriceDocument,
  parsePriceDocuments,
  type PriceDocumentValidation,
  validatePriceDocument,
} from "./parse/mod.ts";
export { detectSeparatorStyle, findPercents, parseAmount, parseQuantityRange } from "./parse/amount.ts";
export { findDateRange, parseDate } from "./parse/dates.ts";
export { buildPriceIndex, type PriceIndex } from "./index.ts";
export { type Confidence, type Finding } from "./confidence.ts";
export { type PriceProposal } from "./proposal.ts";
export {
  lookupPrice,
  MAX_MATCHES,
  type PriceLookupHints,
  type PriceLookupInput,
  priceLookupMatchesChunk,
  type PriceLookupResult,
  type PriceMatch,
} from "./lookup.ts";
export { PriceLookupParamsSchema, PriceProposalSchema } from "./schemas.ts";
