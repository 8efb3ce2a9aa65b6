/**
 * Stage 3 of a lookup: which discount or promotion applies. Discounts never stack.
 *
 * A rule is in scope when it names the product's SKU; else when it names the product's
 * manufacturer (the price list's, else the requested one); else when it is for all products.
 * A rule limited to a product category ("Marazzi tiles") is confirmed when the product name (as
 * the price list or the request words it) contains the word; a manufacturer rule with an
 * unconfirmed category still applies - as a candidate: a doubt caps the confidence at low and the
 * warning names the document, the line and the group to check - but ranks below every rule that
 * surely applies (the plain manufacturer rule, a confirmed category) and above "all products"; a
 * category-only rule ("all tiles") applies only when confirmed.
 * An in-scope rule applies when today is inside its dates (inclusive) and its conditions hold:
 * a minimum quantity needs the quantity, in the price's unit; any other condition cannot be
 * checked and applies with a caveat naming it.
 *
 * Precedence:
 * 1. A fixed promotion price for the SKU beats every percent rule (lowest one if several; caveat
 *    when they differ); the percent shown is the one it implies against the list price.
 * 2. Otherwise the most specific applicable percent rules: SKU > SKU prefix > manufacturer +
 *    confirmed category > manufacturer > confirmed category > all products.
 * 3. Among those, the highest percent; ties by contract_terms, then promotion, then
 *    discount_rule, then document id and line. Different percents at that level are a caveat.
 * A rule naming SKU prefixes ("all SKUs starting with JOLLY-") is in scope when the SKU starts
 * with one; it ranks between the SKU and the manufacturer. A rule naming a collection ("the
 * Grande collection") is in scope only when the product name carries the collection's name (and
 * the manufacturer, when it names one, matches); it ranks with manufacturer + confirmed category.
 * Customers: a rule naming customers ("Contract terms for customer Bauhaus Weber GmbH") applies
 * only to a lookup for one of them (the request's `customer`: the same name words, legal forms
 * and case ignored, or the customer number); for any other lookup it is not applied and
 * named (info). Groups: a rule under a section heading ("## Adhesives and grouts") is limited to
 * those groups - confirmed by the product name or its price list's section - like a category
 * (not applied to a product whose group is unknown: a doubt, it may be in the group after all);
 * a qualifier in parentheses ("Adhesives (cementitious)") the product name does not confirm is a
 * doubt like an unconfirmed category. Manufacturer rules that cannot be checked (manufacturer
 * unknown) are a doubt too: whatever one of them says is missing from the candidate.
 * Expired in-scope rules are ignored and always named: a caveat when no rule applies or when the
 * expired rule was at least as specific as the one applied (the quote may rest on a lapsed deal:
 * was it renewed?), info when a more specific rule applied anyway.
 */
import { citeDoc } from "./cite.ts";
import { caveat, doubt, type Finding, info } from "./confidence.ts";
import type { PromotionEntry, RuleCondition, RuleEntry } from "./entries.ts";
import { type Dec, dec, decToString } from "../money.ts";
import { manufacturerTokens, nameTokens, sameManufacturer, skuKey, tokensMatch } from "./normalize.ts";

export type RuleLevel = "sku" | "sku_prefix" | "collection" | "manufacturer" | "category" | "all";

export interface RuleConsideration {
  rule: RuleEntry;
  level: RuleLevel;
  specificity: number;
  status:
    | "applied"
    | "not_chosen"
    | "expired"
    | "not_yet_valid"
    | "condition_not_met"
    | "condition_unverifiable"
    | "currency_mismatch"
    | "unit_mismatch"
    | "other_customer"
    | "group_not_confirmed";
  note: string;
  caveats: Finding[];
  /** Category words of a manufacturer rule the product is not confirmed to be in. */
  unconfirmed?: string[];
}

export interface AdjustmentRequest {
  sku: string | null;
  manufacturer: string | null;
  product_name: string;
  currency: string | null;
  unit: string | null;
  quantity: Dec | null;
  today: string;
  /** The customer the lookup is for (contract terms agreed for one customer apply only to it). */
  customer?: string | null;
  /** The product's group from its price list's section heading ("wall tiles"), when stated. */
  product_group?: string | null;
  /** The product as warnings name it (its price list's name, else the request's); product_name if absent. */
  product_label?: string | null;
}

export interface AdjustmentResult {
  chosen: RuleConsideration | null;
  considered: RuleConsideration[];
  findings: Finding[];
  /** Manufacturer-scoped rules that could not be checked because the manufacturer is unknown. */
  unverifiable_scope: number;
}

const KIND_ORDER = { contract_terms: 0, promotion: 1, discount_rule: 2 } as const;

/** Whether a customer named by a rule is the lookup's customer (names or customer numbers). */
export function sameCustomer(ruleCustomer: string, requested: string): boolean {
  if (/\d/.test(ruleCustomer) && !/\s/.test(ruleCustomer)) {
    return requested.split(/[^\p{L}\p{N}-]+/u).some((t) => skuKey(t) === skuKey(ruleCustomer));
  }
  // Stricter than manufacturers: "Weber" is not "Bauhaus Weber GmbH" (legal forms ignored).
  const a = new Set(manufacturerTokens(ruleCustomer));
  const b = new Set(manufacturerTokens(requested));
  return a.size > 0 && a.size === b.size && [...a].every((t) => b.has(t));
}

function scopeOf(rule: RuleEntry, req: AdjustmentRequest, productTokens: readonly string[]) {
  const s = rule.scope;
  const has = (phrase: string) =>
    nameTokens(phrase).every((t) => productTokens.some((p) => tokensMatch(t, p)));
  const confirmed = s.product_keywords.filter(has);
  const groupsOk = !s.groups?.length || s.groups.some(has);
  const categoryOk = (s.product_keywords.length > 0 || (s.groups?.length ?? 0) > 0) &&
    confirmed.length === s.product_keywords.length && groupsOk;
  const unconfirmed = [...s.product_keywords.filter((k) => !has(k)), ...(groupsOk ? [] : s.groups!)];
  if (s.skus.length) {
    return req.sku && s.skus.some((x) => skuKey(x) === skuKey(req.sku!))
      ? { level: "sku" as const, specificity: 5 }
      : null;
  }
  if (s.sku_prefixes?.length) {
    return req.sku && s.sku_prefixes.some((p) => skuKey(req.sku!).startsWith(skuKey(p)))
      ? { level: "sku_prefix" as const, specificity: 4.5 }
      : null;
  }
  if (s.collections?.length) {
    // A collection is a named product family: only a product whose name carries it is in scope.
    const named = s.collections.some((c) =>
      nameTokens(c).every((t) => productTokens.some((p) => tokensMatch(t, p)))
    );
    if (!named) return null;
    if (s.manufacturers.length) {
      if (!req.manufacturer) return "unverifiable" as const;
      if (!s.manufacturers.some((m) => sameManufacturer(m, req.manufacturer!))) return null;
    }
    return { level: "collection" as const, specificity: 4 };
  }
  if (s.manufacturers.length) {
    if (!req.manufacturer) return "unverifiable" as const;
    if (!s.manufacturers.some((m) => sameManufacturer(m, req.manufacturer!))) return null;
    if (categoryOk) return { level: "manufacturer" as const, specificity: 4 };
    if (!s.product_keywords.length && !s.groups?.length) {
      return { level: "manufacturer" as const, specificity: 3 };
    }
    // The product's group is known (its price list's section heading) and is not the rule's, or
    // the rule stands under a group heading the product is not in: the rule is not for it.
    if (req.product_group || (s.groups?.length && !groupsOk)) {
      return { level: "manufacturer" as const, specificity: 0, not_for: unconfirmed };
    }
    // "9% on Mapei adhesive" for a product whose name does not say adhesive: it may apply (with
    // a caveat) but never outranks a rule that surely does (the manufacturer's, a confirmed category).
    return { level: "manufacturer" as const, specificity: 1.5, unconfirmed };
  }
  if (s.product_keywords.length || s.groups?.length) {
    return categoryOk ? { level: "category" as const, specificity: 2 } : null;
  }
  return s.all ? { level: "all" as const, specificity: 1 } : null;
}

function checkConditions(
  conditions: RuleCondition[],
  req: AdjustmentRequest,
): { status: RuleConsideration["status"] | null; note: string; caveats: Finding[] } {
  const caveats: Finding[] = [];
  for (const c of conditions) {
    if (c.kind === "text") {
      caveats.push(caveat("rule_condition", `Condition to verify: "${c.text}"`));
      continue;
    }
    if (c.unit && c.unit !== req.unit) {
      return {
        status: "condition_unverifiable",
        note: `condition "${c.text}" is in ${c.unit}, the price is per ${req.unit ?? "an unstated unit"}`,
        caveats,
      };
    }
    if (req.quantity === null) {
      return { status: "condition_unverifiable", note: `condition "${c.text}" needs the quantity`, caveats };
    }
    const met = c.exclusive ? req.quantity > dec(c.quantity) : req.quantity >= dec(c.quantity);
    if (!met) {
      return {
        status: "condition_not_met",
        note: `quantity ${decToString(req.quantity)} does not meet "${c.text}"`,
        caveats,
      };
    }
  }
  return { status: null, note: "", caveats };
}

export function selectAdjustment(rules: readonly RuleEntry[], req: AdjustmentRequest): AdjustmentResult {
  const productTokens = nameTokens(req.product_name);
  const considered: RuleConsideration[] = [];
  let unverifiable = 0;
  for (const rule of rules) {
    const scope = scopeOf(rule, req, productTokens);
    if (scope === "unverifiable") {
      unverifiable++;
      continue;
    }
    if (!scope) continue;
    const base = { rule, level: scope.level, specificity: scope.specificity, caveats: [] as Finding[] };
    if ("not_for" in scope && scope.not_for) {
      considered.push({
        ...base,
        status: "group_not_confirmed",
        note: `limited to "${scope.not_for.join(", ")}"${
          req.product_group ? `; the product is in "${req.product_group}"` : ""
        } and its name does not confirm it`,
      });
      continue;
    }
    const customers = rule.scope.customers ?? [];
    if (customers.length && !(req.customer && customers.some((c) => sameCustomer(c, req.customer!)))) {
      considered.push({
        ...base,
        status: "other_customer",
        note: `agreed for ${customers.join(" / ")} only; ${
          req.customer ? `this lookup is for ${req.customer}` : "this lookup names no customer"
        }`,
      });
      continue;
    }
    if (rule.valid_to && rule.valid_to < req.today) {
      considered.push({ ...base, status: "expired", note: `ended ${rule.valid_to}` });
      continue;
    }
    if (rule.valid_from && rule.valid_from > req.today) {
      considered.push({ ...base, status: "not_yet_valid", note: `starts ${rule.valid_from}` });
      continue;
    }
    const cond = checkConditions(rule.conditions, req);
    if (cond.status) {
      considered.push({ ...base, status: cond.status, note: cond.note, caveats: cond.caveats });
      continue;
    }
    const caveats = [...cond.caveats];
    const qualifiers = (rule.scope.qualifiers ?? []).filter((q) =>
      !nameTokens(q).every((t) => productTokens.some((p) => tokensMatch(t, p)))
    );
    // Findings of the chosen rule only: a rule applied whose group the product is not confirmed
    // to be in gives a candidate, never a confident number.
    if (qualifiers.length) {
      caveats.push(
        doubt(
          "rule_qualifier_unconfirmed",
          `${appliedFrom(rule)}, but it is limited to "${
            qualifiers.join(", ")
          }" («${rule.source.snippet}») and ${productLabel(req)} is not confirmed to be "${
            qualifiers.join(", ")
          }": check before quoting`,
        ),
      );
    }
    if ("unconfirmed" in scope && scope.unconfirmed?.length) {
      caveats.push(
        doubt(
          "rule_category_unconfirmed",
          `${appliedFrom(rule)}, but ${productLabel(req)} is not confirmed to be in the group '${
            scope.unconfirmed.join(", ")
          }' (limited to "${
            scope.unconfirmed.join(", ")
          }"; the product name does not confirm it): check before quoting`,
        ),
      );
    }
    if (rule.kind === "promotion" && rule.price !== null) {
      if (req.currency && rule.currency !== req.currency) {
        considered.push({
          ...base,
          status: "currency_mismatch",
          note: `promotion price in ${rule.currency}, list price in ${req.currency}`,
        });
        continue;
      }
      if (rule.unit && req.unit && rule.unit !== req.unit) {
        considered.push({
          ...base,
          status: "unit_mismatch",
          note: `promotion price per ${rule.unit}, list price per ${req.unit}`,
        });
        continue;
      }
      if (!rule.unit) {
        caveats.push(
          caveat("promotion_unit_not_stated", `${citeDoc(rule.source)} does not state the unit of its price`),
        );
      }
    }
    const unconfirmed = "unconfirmed" in scope ? scope.unconfirmed : undefined;
    considered.push({
      ...base,
      status: "not_chosen",
      note: "",
      caveats,
      ...(unconfirmed ? { unconfirmed } : {}),
    });
  }
  return choose(considered, unverifiable, req);
}

function choose(
  considered: RuleConsideration[],
  unverifiable: number,
  req: AdjustmentRequest,
): AdjustmentResult {
  const findings: Finding[] = [];
  const applicable = considered.filter((c) => c.status === "not_chosen");
  const fixed = applicable.filter((c) =>
    c.rule.kind === "promotion" && (c.rule as PromotionEntry).price !== null
  );
  const price = (c: RuleConsideration) => dec((c.rule as PromotionEntry).price!);
  const pct = (c: RuleConsideration) => dec((c.rule as { percent: string }).percent);
  let chosen: RuleConsideration | null = null;
  let rivals: RuleConsideration[] = [];
  const tieBreak = (a: RuleConsideration, b: RuleConsideration) =>
    KIND_ORDER[a.rule.kind] - KIND_ORDER[b.rule.kind] ||
    (a.rule.source.doc_id < b.rule.source.doc_id
      ? -1
      : a.rule.source.doc_id > b.rule.source.doc_id
      ? 1
      : 0) ||
    a.rule.source.line - b.rule.source.line;
  if (fixed.length) {
    fixed.sort((a, b) => (price(a) < price(b) ? -1 : price(a) > price(b) ? 1 : tieBreak(a, b)));
    chosen = fixed[0];
    rivals = fixed.filter((c) => price(c) !== price(chosen!));
    if (rivals.length) {
      findings.push(
        caveat(
          "several_promotion_prices",
          `Several promotion prices are in force for this SKU (${
            fixed.map((c) =>
              `${decToString(price(c))} in ${citeDoc(c.rule.source)} line ${c.rule.source.line}`
            ).join("; ")
          }); the lowest was used`,
        ),
      );
    }
  } else {
    const percentRules = applicable.filter((c) =>
      c.rule.kind !== "promotion" || (c.rule as PromotionEntry).percent !== null
    );
    const top = Math.max(0, ...percentRules.map((c) => c.specificity));
    const level = percentRules.filter((c) => c.specificity === top);
    level.sort((a, b) => (pct(a) > pct(b) ? -1 : pct(a) < pct(b) ? 1 : tieBreak(a, b)));
    chosen = level[0] ?? null;
    rivals = level.filter((c) => pct(c) !== pct(chosen!));
    if (rivals.length) {
      findings.push(
        caveat(
          "several_discounts",
          `Different discounts are in force at the same scope (${
            level.map((c) =>
              `${decToString(pct(c))}% in ${citeDoc(c.rule.source)} line ${c.rule.source.line}`
            ).join("; ")
          }); discounts do not stack, the highest was used`,
        ),
      );
    }
  }
  if (chosen) {
    chosen.status = "applied";
    findings.push(...chosen.caveats);
  }
  for (const c of considered) {
    if (c.status === "not_chosen") c.note = chosen ? describeNotChosen(c, chosen) : c.note;
    // "9% on Mapei adhesive" left aside for the plain "Mapei: 4%": were the product an adhesive,
    // the 9% would be the price, so the 4% is only a candidate too.
    if (c.status === "not_chosen" && c.unconfirmed?.length && chosen && wouldWinIfConfirmed(c, chosen)) {
      findings.push(
        doubt(
          "rule_category_unconfirmed",
          `Not applied ${(c.rule as { percent: string }).percent}% (${scopeWords(c.rule)}) from ${
            citeDoc(c.rule.source)
          } line ${c.rule.source.line}: ${productLabel(req)} is not confirmed to be in the group '${
            c.unconfirmed.join(", ")
          }'; if it is, that rule applies instead - check before quoting`,
        ),
      );
    }
    if (c.status === "expired") {
      const msg = `Ignored ${c.rule.kind} ${
        citeDoc(c.rule.source)
      } line ${c.rule.source.line}: ended ${c.rule.valid_to}`;
      // An expired rule at least as specific as the one applied would have priced this product:
      // the quote may rest on a lapsed deal, so it is a caveat (was it renewed?), not a note.
      findings.push(
        chosen && chosen.specificity > c.specificity ? info("expired_rule_ignored", msg) : chosen
          ? caveat(
            "expired_rule_ignored",
            `${msg}; it would otherwise have applied instead of the rule used - check whether it was renewed`,
          )
          : caveat(
            "expired_rule_ignored",
            `${msg}; the list price is quoted without it - check whether it was renewed`,
          ),
      );
    }
    if (c.status === "not_yet_valid") {
      findings.push(
        info(
          "future_rule_ignored",
          `Ignored ${c.rule.kind} ${citeDoc(c.rule.source)}: starts ${c.rule.valid_from}`,
        ),
      );
    }
    if (c.status === "condition_not_met") {
      findings.push(
        info("rule_condition_not_met", `Not applied ${c.rule.kind} ${citeDoc(c.rule.source)}: ${c.note}`),
      );
    }
    if (c.status === "group_not_confirmed") {
      // Said, never silently dropped: a caveat when the product's group is unknown (it may be
      // in the rule's group after all), a note when its price list puts it in another group.
      // A rule of another section of a document whose section for this product's group applied
      // is surely not for it either.
      const placed = chosen?.rule.scope.groups?.length && chosen.rule.source.doc_id === c.rule.source.doc_id;
      const unknown = c.rule.scope.groups?.length && !/the product is in/.test(c.note) && !placed;
      const msg = `Not applied ${c.rule.kind} ${
        citeDoc(c.rule.source)
      } line ${c.rule.source.line}: ${c.note}`;
      findings.push(
        unknown
          ? doubt(
            "rule_not_for_group",
            `${msg}; the product's group is unknown and it may be in that group - check before quoting`,
          )
          : info("rule_not_for_group", msg),
      );
    }
    if (c.status === "other_customer") {
      findings.push(
        info(
          "rule_for_other_customer",
          `Not applied ${c.rule.kind} ${citeDoc(c.rule.source)} line ${c.rule.source.line}: ${c.note}`,
        ),
      );
    }
    if (
      c.status === "condition_unverifiable" || c.status === "currency_mismatch" ||
      c.status === "unit_mismatch"
    ) {
      findings.push(
        caveat(`rule_${c.status}`, `Not applied ${c.rule.kind} ${citeDoc(c.rule.source)}: ${c.note}`),
      );
    }
  }
  if (unverifiable) {
    findings.push(
      doubt(
        "manufacturer_unknown",
        `The product's manufacturer is unknown, so ${unverifiable} manufacturer-specific rule(s) could not be checked - check before quoting`,
      ),
    );
  }
  return { chosen, considered, findings, unverifiable_scope: unverifiable };
}

/** A manufacturer rule with an unconfirmed category ranks as manufacturer + confirmed category once confirmed. */
function wouldWinIfConfirmed(c: RuleConsideration, chosen: RuleConsideration): boolean {
  if (chosen.rule.kind === "promotion" && chosen.rule.price !== null) return false;
  const confirmed = 4;
  const pct = (x: RuleConsideration) => dec((x.rule as { percent: string }).percent);
  return confirmed > chosen.specificity || (confirmed === chosen.specificity && pct(c) > pct(chosen));
}

function describeNotChosen(c: RuleConsideration, chosen: RuleConsideration): string {
  const isFixed = (x: RuleConsideration) => x.rule.kind === "promotion" && x.rule.price !== null;
  if (isFixed(chosen)) {
    return isFixed(c)
      ? "a lower promotion price applies"
      : "a fixed promotion price for this SKU beats percent rules";
  }
  if (c.specificity < chosen.specificity) {
    return `less specific (${c.level}) than the applied ${chosen.level} rule`;
  }
  return "discounts do not stack; a better or preferred rule at the same scope was applied";
}

/** "Applied 9% (Mapei adhesive) from "<title>" [doc <id>] line N": the rule as a warning names it. */
function appliedFrom(rule: RuleEntry): string {
  const what = rule.kind === "promotion" && rule.price !== null
    ? `the promotion price ${rule.price} ${rule.currency}`
    : `${(rule as { percent: string }).percent}%`;
  const scope = scopeWords(rule);
  return `Applied ${what}${scope ? ` (${scope})` : ""} from ${citeDoc(rule.source)} line ${rule.source.line}`;
}

function productLabel(req: AdjustmentRequest): string {
  return `"${req.product_label || req.product_name}"`;
}

function scopeWords(rule: RuleEntry): string {
  const s = rule.scope;
  return [...s.manufacturers, ...s.product_keywords, ...(s.groups ?? [])].join(" ");
}
