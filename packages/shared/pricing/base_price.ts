/**
 * Stage 2 of a lookup: the list price of the identified product.
 *
 * 1. Validity: price lists whose declared validity excludes today are set aside (bounds
 *    inclusive). If nothing valid is left: gap (expired / not yet valid).
 * 2. Unit: with a requested unit only entries priced in that unit count; none -> gap unit
 *    mismatch, or gap "unit not stated" when the only candidates state no unit. Without a requested
 *    unit, entries in different units are a gap (which one was meant?). Units are converted only
 *    when the document states the conversion ("1 box = 1.44 m²"): the price per requested unit is
 *    the list price divided (or multiplied) by the stated factor, rounded half-up to 2 decimals,
 *    and the quantity is converted back for tiers and the minimum order (caveat: converted).
 * 3. Currency: an entry without a stated currency is a gap.
 * 4. Conflict: entries agreeing on currency, unit, minimum order and every tier count as one
 *    price (all their documents are cited). Different prices: the one whose document declares the
 *    strictly latest "valid from" date wins (caveat) - only when every conflicting document
 *    declares one; otherwise gap.
 * 5. Tier: the tier with the greatest lower bound <= quantity (upper bounds such as "1-49" are
 *    read as "until the next tier"). Quantity below an explicit minimum order -> gap. Quantity
 *    below the first tier: if that tier starts at 1 or less it is the base price (info),
 *    otherwise the first tier start is the minimum order -> gap. Quantity above the last tier's
 *    stated upper bound -> that tier with a caveat. No quantity and several tiers -> the first
 *    tier with a caveat listing all tiers.
 */
import { cite, citeDoc, citeTier, describeTier } from "./cite.ts";
import { caveat, type Finding, gap, info } from "./confidence.ts";
import type { PriceListEntry, PriceTier } from "./entries.ts";
import type { ProductIdentity } from "./index.ts";
import { type Dec, dec, decToMoneyString, decToString, divRoundHalfUp, roundMoney } from "../money.ts";
import { withinRange } from "./parse/dates.ts";

export interface BasePrice {
  price: Dec;
  currency: string;
  unit: string | null;
  tier: PriceTier;
  tiers: PriceTier[];
  /** Every entry stating this price (several documents may agree). */
  entries: PriceListEntry[];
  valid_to: string | null;
}

/** A conversion the document states, turning a price per `unit` into one per the requested unit. */
interface Conversion {
  /** Price per requested unit = price x num / den; quantity in the priced unit = requested x den / num. */
  num: Dec;
  den: Dec;
  text: string;
  line: number;
  snippet: string;
}

function conversionFor(e: PriceListEntry, requested: string): Conversion | null {
  for (const c of e.conversions ?? []) {
    const f = dec(c.factor);
    if (f <= 0n) continue;
    // 1 box = 1.44 m2, priced per box, asked per m2: per m2 = box price / 1.44.
    if (c.unit === e.unit && c.to_unit === requested) {
      return {
        num: 10_000n,
        den: f,
        text: `1 ${c.unit} = ${c.factor} ${c.to_unit}`,
        line: c.line,
        snippet: c.snippet,
      };
    }
    // 1 pallet = 40 bag, priced per bag, asked per pallet: per pallet = bag price x 40.
    if (c.to_unit === e.unit && c.unit === requested) {
      return {
        num: f,
        den: 10_000n,
        text: `1 ${c.unit} = ${c.factor} ${c.to_unit}`,
        line: c.line,
        snippet: c.snippet,
      };
    }
  }
  return null;
}

export interface BasePriceResult {
  base: BasePrice | null;
  findings: Finding[];
  steps: string[];
  /** Entries set aside, with the reason (for the matches list). */
  set_aside: Array<{ entry: PriceListEntry; status: string; note: string }>;
  conflict: boolean;
  /** The currency the product is priced in, when known even if no price could be stated. */
  currency: string | null;
}

export interface BasePriceRequest {
  quantity: Dec | null;
  unit: string | null;
  today: string;
}

const signature = (e: PriceListEntry) =>
  [
    e.currency,
    e.unit,
    e.min_order_qty,
    ...e.tiers.map((t) => `${t.min_exclusive ? ">" : ""}${t.min_qty}:${t.price}`),
  ].join("|");

const priceText = (e: PriceListEntry) =>
  `${e.tiers.map((t) => `${decToMoneyString(dec(t.price))} (${describeTier(t)})`).join(", ")} ${
    e.currency ?? "?"
  }${e.unit ? `/${e.unit}` : ""}`;

export function selectBasePrice(identity: ProductIdentity, req: BasePriceRequest): BasePriceResult {
  const findings: Finding[] = [];
  const steps: string[] = [];
  const set_aside: BasePriceResult["set_aside"] = [];
  const out = (
    base: BasePrice | null,
    conflict = false,
    currency: string | null = null,
  ): BasePriceResult => ({
    base,
    findings,
    steps,
    set_aside,
    conflict,
    currency: base?.currency ?? currency,
  });
  const aside = (entries: PriceListEntry[], status: string, note: (e: PriceListEntry) => string) =>
    entries.forEach((entry) => set_aside.push({ entry, status, note: note(entry) }));

  const valid = identity.entries.filter((e) => withinRange(req.today, e.valid_from, e.valid_to));
  const expired = identity.entries.filter((e) => e.valid_to !== null && e.valid_to < req.today);
  const future = identity.entries.filter((e) => e.valid_from !== null && e.valid_from > req.today);
  aside(expired, "expired", (e) => `valid until ${e.valid_to}`);
  aside(future, "not_yet_valid", (e) => `valid from ${e.valid_from}`);
  const anyCurrency = identity.entries.find((e) => e.currency)?.currency ?? null;
  if (!valid.length) {
    if (expired.length) {
      findings.push(
        gap(
          "only_expired_prices",
          `Only expired price lists quote this product: ${
            expired.map((e) => `${citeDoc(e.source)} valid until ${e.valid_to}`).join("; ")
          }`,
        ),
      );
    }
    if (future.length) {
      findings.push(
        gap(
          "price_not_yet_valid",
          `Price lists for this product are not valid yet: ${
            future.map((e) => `${citeDoc(e.source)} valid from ${e.valid_from}`).join("; ")
          }`,
        ),
      );
    }
    return out(null, false, anyCurrency);
  }
  for (const e of expired) {
    findings.push(
      info("expired_price_list_ignored", `Ignored ${citeDoc(e.source)}: valid until ${e.valid_to}`),
    );
  }
  for (const e of future) {
    findings.push(
      info("future_price_list_ignored", `Ignored ${citeDoc(e.source)}: valid from ${e.valid_from}`),
    );
  }

  let candidates = valid;
  if (req.unit) {
    const same = valid.filter((e) => e.unit === req.unit);
    const other = valid.filter((e) => e.unit !== null && e.unit !== req.unit);
    const unstated = valid.filter((e) => e.unit === null);
    aside(other, "unit_mismatch", (e) => `priced per ${e.unit}, requested ${req.unit}`);
    aside(unstated, "unit_not_stated", () => "the price list states no unit");
    const convertible = other.map((e) => ({ e, c: conversionFor(e, req.unit!) })).filter((x) => x.c);
    if (!same.length && convertible.length) {
      return convertedPrice(identity, req, convertible[0].e, convertible[0].c!, findings, steps, set_aside);
    }
    if (!same.length) {
      if (other.length) {
        findings.push(
          gap(
            "unit_mismatch",
            `Unit mismatch: requested per ${req.unit}, but ${
              other.map((e) => `${citeDoc(e.source)} prices it per ${e.unit}`).join("; ")
            }; units are not converted`,
          ),
        );
      }
      if (unstated.length) {
        findings.push(
          gap(
            "unit_not_stated",
            `Cannot confirm the price is per ${req.unit}: ${
              unstated.map((e) => citeDoc(e.source)).join("; ")
            } states no unit`,
          ),
        );
      }
      return out(null, false, anyCurrency);
    }
    candidates = same;
  } else {
    const units = new Set(valid.map((e) => e.unit));
    if (units.size > 1) {
      findings.push(
        gap(
          "several_units",
          `The product is priced in several units (${
            [...units].map((u) => u ?? "unstated").join(", ")
          }); give the unit`,
        ),
      );
      return out(null, false, anyCurrency);
    }
  }

  const noCurrency = candidates.filter((e) => !e.currency);
  if (noCurrency.length) {
    findings.push(
      gap(
        "currency_not_stated",
        `No currency is stated for ${noCurrency.map((e) => cite(e.source)).join("; ")}`,
      ),
    );
    return out(null, false, anyCurrency);
  }

  const groups = new Map<string, PriceListEntry[]>();
  for (const e of candidates) groups.set(signature(e), [...(groups.get(signature(e)) ?? []), e]);
  let chosen = [...groups.values()][0];
  if (groups.size > 1) {
    const all = [...groups.values()];
    const described = all.map((g) =>
      `${priceText(g[0])} in ${g.map((e) => `${citeDoc(e.source)} line ${e.source.line}`).join(", ")}`
    ).join(" vs ");
    const dated = all.map((g) => ({
      g,
      from: g.map((e) => e.valid_from).filter((d): d is string => !!d).sort().at(-1) ?? null,
    }));
    const latest = dated.every((d) => d.from)
      ? [...dated].sort((a, b) => (a.from! < b.from! ? 1 : -1))
      : null;
    if (!latest || latest[0].from === latest[1].from) {
      findings.push(
        gap(
          "conflicting_list_prices",
          `Conflicting list prices: ${described}; no document is declared newer`,
        ),
      );
      aside(candidates, "conflict", () => "conflicting list price");
      return out(null, true, candidates[0].currency);
    }
    chosen = latest[0].g;
    for (const d of latest.slice(1)) {
      aside(d.g, "superseded", () => `superseded by a list valid from ${latest[0].from}`);
    }
    findings.push(
      caveat(
        "conflict_resolved_by_date",
        `Conflicting list prices (${described}); used the newer one, valid from ${latest[0].from}`,
      ),
    );
    steps.push(
      `Conflict resolved: ${citeDoc(chosen[0].source)} is valid from ${latest[0].from}, later than ${
        latest.slice(1).map((d) => `${citeDoc(d.g[0].source)} (${d.from})`).join(", ")
      }`,
    );
  }

  const entry = chosen[0];
  const tier = pickTier(entry, req.quantity, findings);
  if (!tier) return out(null, false, entry.currency);
  if (!entry.unit) {
    findings.push(caveat("unit_not_stated", `${citeDoc(entry.source)} states no unit for this price`));
  }
  if (entry.vat_included) {
    findings.push(
      caveat(
        "price_includes_vat",
        `${
          citeDoc(entry.source)
        } line ${entry.vat_included.line} says its prices include VAT («${entry.vat_included.snippet}»); the price is quoted as written - check whether a net price is needed`,
      ),
    );
  }
  const others = chosen.slice(1).map((e) => citeDoc(e.source));
  steps.push(
    `List price ${decToMoneyString(dec(tier.price))} ${entry.currency}${
      entry.unit ? ` per ${entry.unit}` : ""
    } (tier ${describeTier(tier)}) from ${citeTier(entry.source, tier)}${
      others.length ? `; the same price is stated in ${others.join(", ")}` : ""
    }`,
  );
  const validTo = chosen.map((e) => e.valid_to).filter((d): d is string => !!d).sort()[0] ?? null;
  return out({
    price: dec(tier.price),
    currency: entry.currency!,
    unit: entry.unit,
    tier,
    tiers: entry.tiers,
    entries: chosen,
    valid_to: validTo,
  });
}

/** The base price of an entry in another unit, converted as its document states. */
function convertedPrice(
  _identity: ProductIdentity,
  req: BasePriceRequest,
  entry: PriceListEntry,
  conv: Conversion,
  findings: Finding[],
  steps: string[],
  set_aside: BasePriceResult["set_aside"],
): BasePriceResult {
  const others = set_aside.filter((a) => a.entry === entry);
  for (const o of others) set_aside.splice(set_aside.indexOf(o), 1);
  const out = (base: BasePrice | null): BasePriceResult => ({
    base,
    findings,
    steps,
    set_aside,
    conflict: false,
    currency: entry.currency,
  });
  if (!entry.currency) {
    findings.push(gap("currency_not_stated", `No currency is stated for ${cite(entry.source)}`));
    return out(null);
  }
  const qty = req.quantity === null ? null : (req.quantity * conv.num) / conv.den;
  const tier = pickTier(entry, qty, findings);
  if (!tier) return out(null);
  const price = divRoundHalfUp(dec(tier.price) * conv.num, conv.den);
  const rounded = roundMoney(price);
  findings.push(
    caveat(
      "unit_converted",
      `${
        citeDoc(entry.source)
      } prices this per ${entry.unit}; converted to per ${req.unit} with the document's «${conv.snippet}» (line ${conv.line})`,
    ),
  );
  steps.push(
    `List price ${decToMoneyString(dec(tier.price))} ${entry.currency} per ${entry.unit} (tier ${
      describeTier(tier)
    }) from ${citeTier(entry.source, tier)}; converted with ${conv.text} (line ${conv.line}): ${
      decToMoneyString(rounded)
    } ${entry.currency} per ${req.unit} (rounded half-up to 2 decimals)${
      qty !== null && req.quantity !== null
        ? `; quantity ${decToString(req.quantity)} ${req.unit} = ${decToString(qty)} ${entry.unit}`
        : ""
    }`,
  );
  return out({
    price: rounded,
    currency: entry.currency,
    unit: req.unit,
    tier,
    tiers: entry.tiers,
    entries: [entry],
    valid_to: entry.valid_to,
  });
}

function pickTier(entry: PriceListEntry, quantity: Dec | null, findings: Finding[]): PriceTier | null {
  const tiers = entry.tiers;
  const first = tiers[0];
  const last = tiers[tiers.length - 1];
  const list = tiers.map((t) => `${describeTier(t)}: ${decToMoneyString(dec(t.price))}`).join(", ");
  if (quantity === null) {
    if (entry.min_order_qty) {
      findings.push(
        info("minimum_order", `Minimum order is ${entry.min_order_qty} ${entry.unit ?? ""}`.trim()),
      );
    }
    if (tiers.length > 1) {
      findings.push(
        caveat(
          "quantity_missing",
          `No quantity given; quoted the first tier (${describeTier(first)}). Tiers: ${list}`,
        ),
      );
    }
    return first;
  }
  const q = quantity;
  const qs = decToString(q);
  if (entry.min_order_qty && q < dec(entry.min_order_qty)) {
    findings.push(
      gap(
        "below_minimum_order",
        `Quantity ${qs} is below the minimum order of ${entry.min_order_qty} (${cite(entry.source)})`,
      ),
    );
    return null;
  }
  const reached = tiers.filter((t) => (t.min_exclusive ? q > dec(t.min_qty) : q >= dec(t.min_qty)));
  if (!reached.length) {
    if (!first.min_exclusive && dec(first.min_qty) <= dec("1")) {
      findings.push(
        info(
          "below_first_tier",
          `Quantity ${qs} is below the first tier start ${first.min_qty}; that tier is the base price`,
        ),
      );
      return first;
    }
    findings.push(
      gap(
        "below_minimum_order",
        `Quantity ${qs} is below the first tier (${describeTier(first)}), which is the minimum order (${
          cite(entry.source)
        })`,
      ),
    );
    return null;
  }
  const tier = reached[reached.length - 1];
  if (tier === last && last.max_qty !== null && q > dec(last.max_qty)) {
    findings.push(
      caveat(
        "quantity_above_tiers",
        `Quantity ${qs} is above the last tier (${describeTier(last)}); that tier's price was used`,
      ),
    );
  }
  return tier;
}
