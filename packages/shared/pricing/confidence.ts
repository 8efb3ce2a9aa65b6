/**
 * Findings and the confidence they add up to.
 *
 * Every stage of a lookup reports what it noticed as a Finding of one of four severities:
 * - gap: no reliable price can be stated (no base price, conflicting documents, only expired
 *   price information, unit mismatch, ambiguous or mismatching product, quantity below the
 *   minimum order, missing currency). Any gap makes final_unit_price null.
 * - caveat: a price is stated but a person should check it (matched by name rather than SKU, a
 *   conflict settled by the newer document, no quantity for a tiered price, quantity beyond the
 *   last tier, several different discounts in force for the same scope, a rule condition or
 *   product category that cannot be verified, an in-scope rule that has expired, a price without
 *   a stated unit, a promotion price without a list price).
 * - doubt: a price is stated, but as a candidate only: it may not be what the documents say for
 *   this product because a rule or line that may decide it could not be matched either way - a rule
 *   applied whose product group, category or qualifier the product is not confirmed to be in, a
 *   group-limited rule not applied to a product whose group is unknown, manufacturer rules that
 *   could not be checked (manufacturer unknown), a line not understood that may concern the
 *   product. The numbers are kept so the admin sees the candidate; the warning says what to check.
 * - info: noted for the audit trail, no effect on the price (a rule not yet valid, an expired
 *   price list superseded by a valid one, a rule whose condition is not met).
 *
 * Confidence:
 * - low    = final_unit_price is null (at least one gap), or a doubt: the numbers are a candidate
 *            resting on a scope the documents do not confirm (never above low);
 * - high   = product identified by SKU, one base price (agreeing documents count as one) and no
 *            caveat;
 * - medium = a price is stated but it was identified by name, or any caveat applies.
 */

export type FindingSeverity = "gap" | "doubt" | "caveat" | "info";

export interface Finding {
  /** Stable machine code, e.g. "unit_mismatch", "conflicting_list_prices". */
  code: string;
  severity: FindingSeverity;
  message: string;
}

export type Confidence = "high" | "medium" | "low";
export type MatchMethod = "sku" | "name" | "none";

export function gap(code: string, message: string): Finding {
  return { code, severity: "gap", message };
}
export function caveat(code: string, message: string): Finding {
  return { code, severity: "caveat", message };
}
export function doubt(code: string, message: string): Finding {
  return { code, severity: "doubt", message };
}
export function info(code: string, message: string): Finding {
  return { code, severity: "info", message };
}

export function hasGap(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === "gap");
}

export function decideConfidence(
  priced: boolean,
  method: MatchMethod,
  findings: readonly Finding[],
): Confidence {
  if (!priced || hasGap(findings) || findings.some((f) => f.severity === "doubt")) return "low";
  if (method === "sku" && !findings.some((f) => f.severity === "caveat")) return "high";
  return "medium";
}
