/**
 * Stage 4 of a lookup: the price_proposal chunk, every field of the spec's table.
 *
 * - With any gap every number (list_price, discount_percent, final_unit_price,
 *   quantity_applied, total) is null and confidence is low; warnings name each gap.
 * - Otherwise final_unit_price = round2(list_price x (1 - discount_percent/100)) (discount 0 when
 *   no rule applies), or the fixed promotion price for the SKU with the discount it implies;
 *   total = round2(final_unit_price x quantity_applied) when a quantity was given. See ../money.ts.
 * - source_doc_ids / source_titles (same order) are the documents the reasoning relies on;
 *   reasoning_chain quotes the snippet behind each step; effective_through is the earliest end
 *   date among the price list and rule used (null when none states one).
 * - product_id is present only when the request carried one (it is optional in the spec).
 */
import type { AdjustmentResult } from "./adjustments.ts";
import type { BasePriceResult } from "./base_price.ts";
import { cite, citeDoc } from "./cite.ts";
import { caveat, type Confidence, decideConfidence, type Finding, hasGap } from "./confidence.ts";
import type { PriceListEntry, PromotionEntry, SourceRef } from "./entries.ts";
import type { ProductMatch } from "./match.ts";
import {
  applyDiscount,
  type Dec,
  dec,
  decToMoneyString,
  decToNumber,
  decToString,
  discountedExact,
  impliedDiscountPercent,
  lineTotal,
  roundMoney,
} from "../money.ts";

export interface PriceProposal {
  type: "price_proposal";
  product_id?: string;
  product_name: string;
  list_price: number | null;
  discount_percent: number | null;
  final_unit_price: number | null;
  /** ISO 4217; the product's currency when known even without a price, else "". */
  currency: string;
  unit: string | null;
  quantity_applied: number | null;
  total: number | null;
  source_doc_ids: string[];
  source_titles: string[];
  reasoning_chain: string[];
  warnings: string[];
  confidence: Confidence;
  effective_through: string | null;
}

export interface ComposeInput {
  product_id: string | null;
  product_name: string;
  quantity: Dec | null;
  unit_requested: string | null;
  match: ProductMatch;
  base: BasePriceResult | null;
  adjustment: AdjustmentResult | null;
  /** Findings of the request itself (e.g. an invalid quantity). */
  request_findings: Finding[];
  /** Lines of the documents not understood that may concern this product (lookup.ts). */
  unparsed_findings?: Finding[];
}

export function composeProposal(c: ComposeInput): { proposal: PriceProposal; findings: Finding[] } {
  const findings: Finding[] = [
    ...c.request_findings,
    ...c.match.findings,
    ...(c.base?.findings ?? []),
    ...(c.unparsed_findings ?? []),
  ];
  const steps: string[] = [identificationStep(c.match, c.product_name)];
  const sources: SourceRef[] = [];
  const id = c.match.identity;
  if (id) sources.push(...id.entries.map((e) => e.source));
  else {sources.push(
      ...c.match.candidates.filter((x) => x.score >= 0.5).map((x) => x.identity.entries[0].source),
    );}
  if (c.base) steps.push(...c.base.steps);

  const base = c.base?.base ?? null;
  let list: Dec | null = null;
  let discount: Dec | null = null;
  let final: Dec | null = null;
  let total: Dec | null = null;
  let validTo: string | null = base?.valid_to ?? null;
  if (base && c.adjustment && !hasGap(findings)) {
    findings.push(...c.adjustment.findings);
    list = base.price;
    sources.splice(0, sources.length, ...base.entries.map((e: PriceListEntry) => e.source));
    const chosen = c.adjustment.chosen;
    const money = (d: Dec) => `${decToMoneyString(d)} ${base.currency}`;
    if (chosen && chosen.rule.kind === "promotion" && chosen.rule.price !== null) {
      const promo = chosen.rule as PromotionEntry;
      final = roundMoney(dec(promo.price!));
      discount = impliedDiscountPercent(list, dec(promo.price!));
      if (discount === null) {
        findings.push(
          caveat(
            "promotion_above_list",
            `The promotion price ${money(final)} is above the list price ${money(list)}`,
          ),
        );
      }
      steps.push(
        `Promotion price ${money(final)}${base.unit ? ` per ${base.unit}` : ""} for this SKU from ${
          cite(promo.source)
        }, valid ${promo.valid_from} to ${promo.valid_to}; a fixed SKU price beats percent rules`,
      );
      if (discount !== null) {
        steps.push(
          `Discount shown = (1 - ${decToMoneyString(final)} / ${decToMoneyString(list)}) x 100 = ${
            decToString(discount)
          }% (rounded half-up to 2 decimals)`,
        );
      }
    } else if (chosen) {
      discount = dec((chosen.rule as { percent: string }).percent);
      final = applyDiscount(list, discount);
      const cascade = chosen.rule.cascade;
      const replaced = chosen.rule.replaces?.length
        ? ` (it replaces the former ${chosen.rule.replaces.join(", ")}, which is not applied)`
        : "";
      steps.push(
        `Discount ${decToString(discount)}% from ${chosen.rule.kind} ${
          cite(chosen.rule.source)
        }${replaced}: ${whyChosen(c.adjustment)}`,
      );
      if (cascade?.length) {
        steps.push(
          `Cascade ${
            cascade.map((p) => `${p}%`).join(" + ")
          } compounded, each on the price after the one before: 1 - ${
            cascade.map((p) => `(1 - ${p}/100)`).join(" x ")
          } = ${decToString(discount)}% effective`,
        );
      }
      steps.push(
        `Final unit price = ${decToMoneyString(list)} x (1 - ${decToString(discount)}/100) = ${
          discountedExact(list, discount)
        } -> ${money(final)}${base.unit ? ` per ${base.unit}` : ""} (rounded half-up to 2 decimals)`,
      );
    } else {
      discount = 0n;
      final = roundMoney(list);
      const n = c.adjustment.considered.length;
      steps.push(
        `No discount applies (${n} in-scope rule${
          n === 1 ? "" : "s"
        } considered, none applicable); final unit price = list price ${money(final)}`,
      );
    }
    if (chosen) {
      sources.push(chosen.rule.source);
      if (chosen.rule.valid_to && (!validTo || chosen.rule.valid_to < validTo)) {
        validTo = chosen.rule.valid_to;
      }
    }
    if (c.quantity !== null) {
      total = lineTotal(final, c.quantity);
      steps.push(
        `Total = ${decToMoneyString(final)} x ${decToString(c.quantity)} = ${
          money(total)
        } (rounded half-up to 2 decimals)`,
      );
    }
  }
  const priced = final !== null && !hasGap(findings);
  if (!priced) {
    steps.push(
      `No reliable price: ${findings.filter((f) => f.severity === "gap").map((f) => f.code).join(", ")}`,
    );
  }
  const docs = new Map<string, string>();
  for (const s of sources) if (!docs.has(s.doc_id)) docs.set(s.doc_id, s.doc_title);
  const n = (d: Dec | null) => (priced && d !== null ? decToNumber(d) : null);
  const proposal: PriceProposal = {
    type: "price_proposal",
    ...(c.product_id ? { product_id: c.product_id } : {}),
    product_name: id?.product_name ?? c.product_name,
    list_price: n(list),
    discount_percent: n(discount),
    final_unit_price: n(final),
    currency: base?.currency ?? c.base?.currency ?? "",
    unit: base ? base.unit : c.unit_requested,
    quantity_applied: priced ? n(c.quantity) : null,
    total: n(total),
    source_doc_ids: [...docs.keys()],
    source_titles: [...docs.values()],
    reasoning_chain: steps,
    warnings: findings.map((f) => f.message),
    confidence: decideConfidence(priced, c.match.method, findings),
    effective_through: priced ? validTo : null,
  };
  return { proposal, findings };
}

function identificationStep(match: ProductMatch, requested: string): string {
  const id = match.identity;
  if (!id) {
    return `Product "${requested}" could not be identified (${
      match.findings.filter((f) => f.severity === "gap").map((f) => f.code).join(", ") || "no match"
    })`;
  }
  const e = id.entries[0];
  const what = `"${id.product_name ?? requested}"${id.manufacturer ? ` (${id.manufacturer})` : ""}`;
  return match.method === "sku"
    ? `Identified ${what} by SKU ${id.sku} in ${cite(e.source)}`
    : `Identified ${what} by name "${requested}" (score ${match.score}) in ${cite(e.source)}`;
}

function whyChosen(adj: AdjustmentResult): string {
  const chosen = adj.chosen!;
  const others = adj.considered.filter((x) => x !== chosen && x.status === "not_chosen");
  const scope = chosen.level === "all" ? "all products" : `${chosen.level} scope`;
  const rest = others.length
    ? `; not applied: ${
      others.map((o) => `${o.rule.kind} ${citeDoc(o.rule.source)} line ${o.rule.source.line} (${o.note})`)
        .join("; ")
    }`
    : "";
  return `the most specific applicable rule (${scope}) and the highest at that scope; discounts do not stack${rest}`;
}
