/**
 * The price_lookup pipeline: request -> product (match.ts) -> list price (base_price.ts) ->
 * discount or promotion (adjustments.ts) -> price_proposal (proposal.ts), plus the data of the
 * price_lookup_matches chunk. Pure: the caller passes the workspace's parsed Pricing documents
 * (or a prebuilt index) and `today`; nothing here reads a clock, a database or the network.
 *
 * matches[] (at most 25: used entries first, then by strength) - one per source entry looked at:
 *   { doc_id, doc_title, price_doc_type, line, snippet,
 *     entry_kind:  price_list | discount_rule | contract_terms | promotion,
 *     matched_on:  sku | name | rule_sku | rule_sku_prefix | rule_collection | rule_manufacturer |
 *                  rule_category | rule_all,
 *     strength:    1 for a SKU; the name score (0..1) for a name; for rules by specificity:
 *                  sku 1, sku prefix 0.95, manufacturer + category or collection 0.9, manufacturer 0.8, category 0.6,
 *                  manufacturer with an unconfirmed category 0.55, all 0.5,
 *     used:        whether a number of the proposal comes from it,
 *     status:      used | matched (the product, but no price stated) | candidate | ambiguous | conflict | superseded | expired |
 *                  not_yet_valid | unit_mismatch | unit_not_stated | not_chosen | in_scope (a
 *                  rule for the product when no price could be stated) |
 *                  condition_not_met | condition_unverifiable | currency_mismatch |
 *                  other_customer (contract terms for another customer, or none was given),
 *     note:        why, in words (or null) }
 * hints{}:
 *   { match_method (sku | name | none), sku_requested, sku_matched, manufacturer_requested,
 *     manufacturer_filter_applied, manufacturer (the one rule scopes were checked against),
 *     candidates_considered, candidates_excluded_by_manufacturer, best_name_score,
 *     ambiguous (bool), ambiguous_candidates [{product_name, sku, manufacturer, score}],
 *     conflict (bool), quantity_requested, unit_requested (normalised), unit_priced,
 *     tiers [{min_qty, max_qty, price, selected}], rules_considered,
 *     rule_applied {kind, doc_id, line, level, percent, price} | null, counts_by_type {price_list,
 *     discount_rule, contract_terms, promotion}, today, warnings [{code, severity, message}] }
 */
import { type AdjustmentResult, type RuleLevel, selectAdjustment } from "./adjustments.ts";
import { type BasePriceResult, selectBasePrice } from "./base_price.ts";
import { doubt, type Finding, gap, hasGap, info } from "./confidence.ts";
import { citeDoc } from "./cite.ts";
import type { ParsedPriceDocument, PriceDocType, PriceEntry } from "./entries.ts";
import { buildPriceIndex, type PriceIndex } from "./index.ts";
import { matchProduct } from "./match.ts";
import { type Dec, decFromNumber } from "../money.ts";
import { manufacturerTokens, nameTokens, normalizeUnit, skuKey } from "./normalize.ts";
import { isIsoDate } from "./parse/dates.ts";
import { composeProposal, type PriceProposal } from "./proposal.ts";

/** The price_lookup tool parameters plus the injected clock. */
export interface PriceLookupInput {
  product_name: string;
  sku?: string | null;
  manufacturer?: string | null;
  quantity?: number | null;
  unit?: string | null;
  product_id?: string | null;
  /**
   * The customer the price is for, when the quote or conversation names one: contract terms
   * agreed for one customer apply only to lookups for that customer.
   */
  customer?: string | null;
  /** Today's date, `YYYY-MM-DD`, from the caller's clock. */
  today: string;
}

export interface PriceMatch {
  doc_id: string;
  doc_title: string;
  price_doc_type: PriceDocType;
  line: number;
  snippet: string;
  entry_kind: PriceEntry["kind"];
  matched_on:
    | "sku"
    | "name"
    | "rule_sku"
    | "rule_sku_prefix"
    | "rule_collection"
    | "rule_manufacturer"
    | "rule_category"
    | "rule_all";
  strength: number;
  used: boolean;
  status: string;
  note: string | null;
}

export interface PriceLookupHints {
  match_method: "sku" | "name" | "none";
  sku_requested: string | null;
  sku_matched: boolean;
  manufacturer_requested: string | null;
  manufacturer_filter_applied: boolean;
  manufacturer: string | null;
  candidates_considered: number;
  candidates_excluded_by_manufacturer: number;
  best_name_score: number | null;
  ambiguous: boolean;
  ambiguous_candidates: Array<
    { product_name: string | null; sku: string | null; manufacturer: string | null; score: number }
  >;
  conflict: boolean;
  quantity_requested: number | null;
  unit_requested: string | null;
  unit_priced: string | null;
  tiers: Array<{ min_qty: string; max_qty: string | null; price: string; selected: boolean }>;
  rules_considered: number;
  rule_applied: {
    kind: string;
    doc_id: string;
    /** The rule's line in its document. */
    line: number;
    level: RuleLevel;
    percent: string | null;
    price: string | null;
  } | null;
  counts_by_type: Record<PriceDocType, number>;
  today: string;
  warnings: Finding[];
}

export interface PriceLookupResult {
  proposal: PriceProposal;
  matches: PriceMatch[];
  hints: PriceLookupHints;
}

export const MAX_MATCHES = 25;
const RULE_STRENGTH = { 5: 1, 4.5: 0.95, 4: 0.9, 3: 0.8, 2: 0.6, 1.5: 0.55, 1: 0.5, 0: 0.4 } as Record<
  number,
  number
>;

export function lookupPrice(
  input: PriceLookupInput,
  source: PriceIndex | readonly (ParsedPriceDocument | PriceEntry)[],
): PriceLookupResult {
  if (!isIsoDate(input.today)) {
    throw new RangeError(`today must be an ISO date (YYYY-MM-DD), got "${input.today}"`);
  }
  const index = "bySku" in source ? source : buildPriceIndex(source);
  const clean = (s: string | null | undefined) => (s && s.trim() ? s.trim() : null);
  const sku = clean(input.sku);
  const manufacturer = clean(input.manufacturer);
  const unit = clean(input.unit) ? normalizeUnit(input.unit!) : null;
  const requestFindings: Finding[] = [];
  let quantity: Dec | null = null;
  if (input.quantity !== undefined && input.quantity !== null) {
    quantity = decFromNumber(input.quantity);
    if (quantity === null || quantity === 0n) {
      requestFindings.push(
        gap(
          "invalid_quantity",
          `Quantity ${input.quantity} is not a positive number with at most 4 decimals`,
        ),
      );
      quantity = null;
    }
  }
  const productName = input.product_name.trim();
  if (!productName && !sku) {
    requestFindings.push(gap("nothing_to_look_up", "Neither a product name nor a SKU was given"));
  }

  const match = matchProduct(index, { product_name: productName, sku, manufacturer });
  const identity = match.identity;
  let base: BasePriceResult | null = null;
  let adjustment: AdjustmentResult | null = null;
  if (identity) {
    base = selectBasePrice(identity, { quantity, unit, today: input.today });
    const groups = [...new Set(identity.entries.map((e) => e.product_group).filter(Boolean))];
    adjustment = selectAdjustment(index.rules, {
      sku: identity.sku,
      manufacturer: identity.manufacturer ?? manufacturer,
      product_name: [identity.product_name, productName, ...groups].filter(Boolean).join(" "),
      currency: base.currency,
      unit: base.base?.unit ?? unit,
      quantity,
      today: input.today,
      customer: clean(input.customer),
      product_group: groups.length === 1 ? groups[0]! : null,
      product_label: identity.product_name ?? (productName || identity.sku),
    });
  }
  const unparsedFindings = relevantUnparsed(index, identity, {
    sku: identity?.sku ?? sku,
    manufacturer: identity?.manufacturer ?? manufacturer,
    product_name: [identity?.product_name, productName].filter(Boolean).join(" "),
    docs: new Set([
      ...(identity?.entries.map((e) => e.source.doc_id) ?? []),
      ...(adjustment?.considered.map((c) => c.rule.source.doc_id) ?? []),
    ]),
  });
  const { proposal, findings } = composeProposal({
    product_id: clean(input.product_id),
    product_name: productName || sku || "",
    quantity,
    unit_requested: unit,
    match,
    base,
    adjustment,
    request_findings: requestFindings,
    unparsed_findings: unparsedFindings,
  });
  const matches = buildMatches(match, base, adjustment, proposal.final_unit_price !== null);
  const counts = { price_list: 0, discount_rule: 0, contract_terms: 0, promotion: 0 };
  for (const m of matches) counts[m.price_doc_type]++;
  const chosen = adjustment?.chosen ?? null;
  const hints: PriceLookupHints = {
    match_method: match.method,
    sku_requested: sku,
    sku_matched: match.method === "sku" && identity !== null,
    manufacturer_requested: manufacturer,
    manufacturer_filter_applied: match.manufacturer_filter_applied,
    manufacturer: identity ? identity.manufacturer ?? manufacturer : null,
    candidates_considered: match.candidates_considered,
    candidates_excluded_by_manufacturer: match.excluded_by_manufacturer,
    best_name_score: match.method === "sku" ? null : match.candidates[0]?.score ?? null,
    ambiguous: match.findings.some((f) => f.code === "ambiguous_product"),
    ambiguous_candidates: match.findings.some((f) => f.code === "ambiguous_product")
      ? match.candidates.map((c) => ({
        product_name: c.identity.product_name,
        sku: c.identity.sku,
        manufacturer: c.identity.manufacturer,
        score: c.score,
      }))
      : [],
    conflict: base?.conflict ?? false,
    quantity_requested: input.quantity ?? null,
    unit_requested: unit,
    unit_priced: base?.base?.unit ?? null,
    tiers: (base?.base?.tiers ?? []).map((t) => ({
      min_qty: t.min_qty,
      max_qty: t.max_qty,
      price: t.price,
      selected: t === base?.base?.tier,
    })),
    rules_considered: adjustment?.considered.length ?? 0,
    rule_applied: chosen && !hasGap(findings)
      ? {
        kind: chosen.rule.kind,
        doc_id: chosen.rule.source.doc_id,
        line: chosen.rule.source.line,
        level: chosen.level,
        percent: "percent" in chosen.rule ? chosen.rule.percent : null,
        price: chosen.rule.kind === "promotion" ? chosen.rule.price : null,
      }
      : null,
    counts_by_type: counts,
    today: input.today,
    warnings: findings,
  };
  return { proposal, matches, hints };
}

/**
 * Lines of the documents that were not understood (or are not used in prices) and may concern
 * this lookup: a line of one of the documents the lookup used, or of a rule document, unless it
 * names only other articles or other companies; a price list's line only when it is the
 * product's price list or names the product. Not understood -> doubt (confidence low: the
 * line may change this product's price, so the numbers are only a candidate); understood but not a unit price (freight, payment terms) -> info, for the product's
 * own documents only.
 */
function relevantUnparsed(
  index: PriceIndex,
  identity: { sku: string | null } | null,
  req: { sku: string | null; manufacturer: string | null; product_name: string; docs: Set<string> },
): Finding[] {
  if (!index.unparsed.length) return [];
  const own = new Set<string>([
    ...(req.sku ? [`sku:${skuKey(req.sku)}`] : []),
    ...manufacturerTokens(req.manufacturer ?? ""),
    ...nameTokens(req.product_name).filter((t) => t.length >= 4),
  ]);
  const out: Finding[] = [];
  for (const u of index.unparsed) {
    const sameDoc = req.docs.has(u.source.doc_id);
    const skus = u.mentions.filter((m) => m.startsWith("sku:")).map((m) => m.slice(4));
    const words = u.mentions.filter((m) => !m.startsWith("sku:"));
    // A line naming article numbers is about those articles; otherwise about what its words name.
    const namesProduct = skus.length
      ? req.sku !== null &&
        skus.some((k) => skuKey(req.sku!) === k || (k.length >= 3 && skuKey(req.sku!).startsWith(k)))
      : words.some((m) => own.has(m));
    const namesOther = skus.length > 0 || words.some((m) => index.companyTokens.has(m));
    const relevant = namesProduct ||
      (!namesOther && (sameDoc || (u.source.price_doc_type !== "price_list" && u.severity === "caveat")));
    if (!relevant || (u.severity === "info" && !sameDoc && !namesProduct)) continue;
    if (identity === null && !namesProduct) continue;
    const where = `${citeDoc(u.source)} line ${u.source.line} («${u.source.snippet}»)`;
    out.push(
      u.severity === "caveat"
        ? doubt(
          "line_not_understood",
          `${where} was not understood (${u.reason}); it may concern this product - check it`,
        )
        : info("line_not_used", `${where} is not part of the unit price: ${u.reason}`),
    );
  }
  return out;
}

/** The price_lookup_matches stream chunk. */
export function priceLookupMatchesChunk(result: PriceLookupResult) {
  return { type: "price_lookup_matches" as const, matches: result.matches, hints: result.hints };
}

function buildMatches(
  match: ReturnType<typeof matchProduct>,
  base: BasePriceResult | null,
  adjustment: AdjustmentResult | null,
  priced: boolean,
): PriceMatch[] {
  const out: PriceMatch[] = [];
  const seen = new Set<unknown>();
  const ambiguous = match.findings.some((f) => f.code === "ambiguous_product");
  const matchedOn = match.method === "sku" ? "sku" as const : "name" as const;
  const usedEntries = new Set<unknown>(priced ? base?.base?.entries ?? [] : []);
  const aside = new Map((base?.set_aside ?? []).map((a) => [a.entry as unknown, a]));
  const candidates = match.identity
    ? [{ identity: match.identity, score: match.score }, ...match.candidates]
    : match.candidates;
  for (const c of candidates) {
    for (const e of c.identity.entries) {
      if (seen.has(e)) continue;
      seen.add(e);
      const a = aside.get(e);
      const isIdentity = c.identity === match.identity;
      const status = usedEntries.has(e)
        ? "used"
        : a
        ? a.status
        : ambiguous
        ? "ambiguous"
        : isIdentity
        ? "matched"
        : "candidate";
      out.push({
        ...sourceFields(e.source),
        entry_kind: "price_list",
        matched_on: matchedOn,
        strength: c.score,
        used: usedEntries.has(e),
        status,
        note: a?.note ?? null,
      });
    }
  }
  for (const r of adjustment?.considered ?? []) {
    const used = priced && r.status === "applied";
    out.push({
      ...sourceFields(r.rule.source),
      entry_kind: r.rule.kind,
      matched_on: `rule_${r.level}`,
      strength: RULE_STRENGTH[r.specificity],
      used,
      // Without a price no rule was really chosen; the in-scope ones are listed for the audit.
      status: used
        ? "used"
        : !priced && (r.status === "applied" || r.status === "not_chosen")
        ? "in_scope"
        : r.status,
      note: used || priced ? r.note || null : r.note || "no price was stated",
    });
  }
  out.sort((a, b) => Number(b.used) - Number(a.used) || b.strength - a.strength);
  return out.slice(0, MAX_MATCHES);
}

function sourceFields(s: PriceEntry["source"]) {
  return {
    doc_id: s.doc_id,
    doc_title: s.doc_title,
    price_doc_type: s.price_doc_type,
    line: s.line,
    snippet: s.snippet,
  };
}
