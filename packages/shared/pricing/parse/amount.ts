/**
 * Reading numbers as people write them in price documents: "1.234,56 €", "€1,234.56", "12,50",
 * "EUR 12.50", "$ 9.99", "12,- €", "15 %", "1-49", "50+", "≥100".
 *
 * Decimal separator rule: with both "." and "," present the last one is the decimal separator
 * and the other must group thousands in threes; one kind repeated ("1.234.567") groups thousands;
 * a single separator followed by exactly three digits ("1.234", "1,234") is ambiguous and is
 * resolved only by the document's style (detectSeparatorStyle over its other values) - otherwise
 * the value is rejected rather than guessed. Spaces, no-break spaces and apostrophes group
 * thousands. At most four decimals are kept exactly; more is rejected.
 */
import { currenciesIn, CURRENCY_MARK, CURRENCY_PATTERN, normalizeUnit, UNIT_PHRASE } from "../normalize.ts";
import { type DecimalString } from "../entries.ts";
import { decFromString, decToString, divRoundHalfUp } from "../../money.ts";

/**
 * An amount with its currency, as written in prose ("12,50 €", "EUR 18.90 per bag", "$2,480.00",
 * "CHF 45.–"), with the unit it is per when one follows ("/m²", "per bag", "pro Stk").
 */
// Spaces and apostrophes group thousands only in threes ("1 250,00", "1'234.50"), so that in
// "Tile 60 x 60 12,50 €" the amount is 12,50 and not 6012,50.
const AMOUNT = String
  .raw`(?:\d{1,3}(?:['\u00a0\u202f ]\d{3})+(?:[.,]\d{1,4})?|\d(?:[\d.,]*\d)?)(?:[.,][-–])?`;

/** Units written after "al", "a", "le", "la", "par", "à" ("€ 39,90 al mq", "12 € la pièce"). */
const UNIT_AFTER_ARTICLE = String
  .raw`(?:mq|m²|m2|m³|m3|pz|pezzo|pi[eè]ce|unit[eé]|ml|metro(?:\s+(?:quadrato|lineare|cubo))?|m[eè]tre(?:\s+(?:carr[eé]|lin[eé]aire|cube))?|kg|sacco|sac|confezione|scatola|box|bag|pallet|bancale|palette|rotolo|rouleau|Stk|St[uü]ck|litro|litre)(?![\p{L}\p{N}])`;
/** The unit an amount is per: "/m²", "per square metre", "pro Stk", "al mq", "la pièce", "each". */
const UNIT_TAIL_SOURCE = String
  .raw`(?:\s*(?:\/|\bper\b|\bpro\b|\bje\b)\s*${UNIT_PHRASE}|\s+(?:al|alla|a|le|la|par|à)\s+${UNIT_AFTER_ARTICLE}|\s+each\b)`;

export const MONEY_PATTERN = new RegExp(
  String
    .raw`(?:(?:${CURRENCY_MARK})\s*${AMOUNT}|${AMOUNT}\s*(?:${CURRENCY_MARK}))${UNIT_TAIL_SOURCE}?`,
  "giu",
);

/** Which character separates decimals in a document. */
export type SeparatorStyle = "comma" | "dot";

export type NumberResult =
  | { ok: true; value: DecimalString; style: SeparatorStyle | null }
  | { ok: false; reason: string; ambiguous: boolean };

const GROUPS_OF_THREE = (sep: string) => new RegExp(`^\\d{1,3}(?:\\${sep}\\d{3})+$`);

/** A bare number with separators (no currency, no unit). */
export function parseNumber(raw: string, style: SeparatorStyle | null = null): NumberResult {
  const spaced = raw.trim().replace(/([.,])[-–—]$/, "");
  if (
    /\d[\s\u00a0\u202f']+\d/.test(spaced) &&
    !/^\+?\d{1,3}(?:[\s\u00a0\u202f']\d{3})+(?:[.,]\d+)?$/.test(spaced)
  ) {
    return {
      ok: false,
      reason: `malformed number: "${raw}" (spaces group thousands in threes)`,
      ambiguous: false,
    };
  }
  let s = raw.trim().replace(/[\s\u00a0\u202f']/g, "");
  // "12,-" / "12.–" means a whole amount in German-speaking price lists.
  s = s.replace(/([.,])[-–—]$/, "");
  if (!/^\+?[\d.,]+$/.test(s) || !/\d/.test(s)) {
    return { ok: false, reason: `not a number: "${raw}"`, ambiguous: false };
  }
  s = s.replace(/^\+/, "");
  const lastDot = s.lastIndexOf(".");
  const lastComma = s.lastIndexOf(",");
  let intPart = s;
  let frac = "";
  let revealed: SeparatorStyle | null = null;
  const fail = (reason: string, ambiguous = false): NumberResult => ({ ok: false, reason, ambiguous });

  if (lastDot >= 0 && lastComma >= 0) {
    const dec = lastDot > lastComma ? "." : ",";
    const group = dec === "." ? "," : ".";
    const at = Math.max(lastDot, lastComma);
    intPart = s.slice(0, at);
    frac = s.slice(at + 1);
    if (!GROUPS_OF_THREE(group).test(intPart) || !/^\d+$/.test(frac)) {
      return fail(`malformed number: "${raw}"`);
    }
    intPart = intPart.split(group).join("");
    revealed = dec === "," ? "comma" : "dot";
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? "." : ",";
    const parts = s.split(sep);
    if (parts.length > 2) {
      if (!GROUPS_OF_THREE(sep).test(s)) return fail(`malformed number: "${raw}"`);
      intPart = parts.join("");
      revealed = sep === "." ? "comma" : "dot";
    } else {
      const [a, b] = parts;
      if (!/^\d*$/.test(a) || !/^\d+$/.test(b)) return fail(`malformed number: "${raw}"`);
      const sepIsDecimal = b.length !== 3 || a === "" || a === "0";
      if (sepIsDecimal) {
        intPart = a || "0";
        frac = b;
        revealed = sep === "," ? "comma" : "dot";
      } else if (style) {
        const decimalChar = style === "comma" ? "," : ".";
        if (sep === decimalChar) {
          intPart = a;
          frac = b;
        } else intPart = a + b;
      } else {
        return fail(`ambiguous separator in "${raw}" (thousands or decimals?)`, true);
      }
    }
  }
  if (frac.length > 4) return fail(`more than 4 decimals in "${raw}"`);
  const value = decFromString(frac ? `${intPart}.${frac}` : intPart);
  if (value === null) return fail(`not a number: "${raw}"`);
  return { ok: true, value: decToString(value), style: revealed };
}

export type AmountResult =
  | {
    ok: true;
    value: DecimalString;
    currency: string | null;
    unit: string | null;
    style: SeparatorStyle | null;
  }
  | { ok: false; reason: string; ambiguous: boolean };

/** A price cell or phrase: number plus optional currency marker and optional "/m2" or "per box". */
export function parseAmount(raw: string, style: SeparatorStyle | null = null): AmountResult {
  const currencies = currenciesIn(raw);
  if (currencies.length > 1) return { ok: false, reason: `several currencies in "${raw}"`, ambiguous: false };
  let rest = raw.replace(CURRENCY_PATTERN, " ");
  let unit: string | null = null;
  const per =
    /(?:\/|\bper\b|\bpro\b|\bje\b|\bal\b|\balla\b|\ba\b|\ble\b|\bla\b|\bpar\b|(?<=\s)à)\s*([\p{L}\d²³ .]*?)\s*$/iu
      .exec(rest);
  if (per) {
    unit = normalizeUnit(per[1]);
    rest = rest.slice(0, per.index);
  } else if (/\beach\s*$/i.test(rest)) {
    unit = "piece";
    rest = rest.replace(/\beach\s*$/i, "");
  }
  const n = parseNumber(rest, style);
  // Quote the amount as written (with its currency), so the warning can be found in the document.
  if (!n.ok) return { ...n, reason: n.reason.replace(`"${rest}"`, `"${raw.trim()}"`) };
  return { ok: true, value: n.value, currency: currencies[0] ?? null, unit, style: n.style };
}

/**
 * The document's decimal style, from the values whose separator is unambiguous; null when none
 * reveal it or when they disagree (then ambiguous values stay rejected).
 */
export function detectSeparatorStyle(values: Iterable<string>): SeparatorStyle | null {
  const seen = new Set<SeparatorStyle>();
  for (const v of values) {
    const r = parseAmount(v);
    if (r.ok && r.style) seen.add(r.style);
  }
  return seen.size === 1 ? [...seen][0] : null;
}

export interface PercentMatch {
  value: DecimalString;
  index: number;
  length: number;
}

const PERCENT = /(\d{1,3}(?:[.,]\d{1,4})?)\s*(?:%|percent\b|per cent\b|pct\b|prozent\b)/gi;

/** Every percent in a text (0 < p <= 100 only; "12,5 %" and "12.5%" alike). */
export function findPercents(text: string): PercentMatch[] {
  const out: PercentMatch[] = [];
  for (const m of text.matchAll(PERCENT)) {
    const v = decFromString(m[1].replace(",", "."));
    if (v === null || v <= 0n || v > 1_000_000n) continue;
    out.push({ value: decToString(v), index: m.index!, length: m[0].length });
  }
  return out;
}

export interface DiscountMark extends PercentMatch {
  /** "10% + 5%": the percents compounded, in order; `value` is the effective percent. */
  cascade?: DecimalString[];
  /** The effective percent needed more than 4 decimals and was rounded half-up. */
  rounded?: boolean;
}

const PCT_NUM = String.raw`(\d{1,3}(?:[.,]\d{1,4})?)`;
// "10% + 5%", "10 + 5 %", "50+10+5%", "10% + 5% + 2%": compounded discounts (sconto in cascata).
const CASCADE = new RegExp(
  String.raw`(?<![\d.,x×])${PCT_NUM}\s*(?:%|percent\b|per cent\b)?(?:\s*\+\s*${
    PCT_NUM.replace("(", "(?:")
  }\s*(?:%|percent\b|per cent\b)?)+`,
  "gi",
);
// "12% instead of 10%", "statt 10%", "invece del 10%", "au lieu de 10 %", "was 10%": the
// percent after such a word is the old or reference rate, not an offer of its own.
export const REFERENCE_WORDS =
  /(?:instead of|in place of|replacing|replaces|statt|anstatt|anstelle von|invece del(?:l[ao'])?|invece di|al posto del|au lieu de|was|previously|formerly|before|old(?: rate)?|vorher|bisher|prima|précédemment|avant|regular(?: price)?|list price|normally|reg\.)\s*:?\s*\(?$/i;

/** Compounds percents: 1 - prod(1 - p/100), as a percent, exactly or rounded to 4 decimals. */
export function compoundPercents(
  parts: readonly DecimalString[],
): { value: DecimalString; rounded: boolean } {
  const ONE = 1_000_000n; // 100% in 1/10,000 of a percent
  let num = 1n;
  let den = 1n;
  for (const p of parts) {
    num *= ONE - decFromString(p)!;
    den *= ONE;
  }
  // effective (in 1/10,000 %) = ONE x (den - num) / den
  const exact = ONE * (den - num);
  const value = divRoundHalfUp(exact, den);
  return { value: decToString(value), rounded: exact % den !== 0n };
}

/**
 * The discounts a text states, each once: a cascade ("10% + 5%") is one mark with its effective
 * percent; a percent after "instead of" / "was" / "statt" ... is a reference, not a discount.
 */
export function findDiscounts(text: string): DiscountMark[] {
  const out: DiscountMark[] = [];
  const taken: Array<[number, number]> = [];
  for (const m of text.matchAll(CASCADE)) {
    const parts = [...m[0].matchAll(new RegExp(PCT_NUM, "g"))].map((x) => x[1]);
    if (!/%|percent|per cent/i.test(m[0])) continue;
    const values = parts.map((x) => decFromString(x.replace(",", ".")));
    if (values.some((v) => v === null || v <= 0n || v >= 1_000_000n)) continue;
    const cascade = values.map((v) => decToString(v!));
    const eff = compoundPercents(cascade);
    out.push({
      value: eff.value,
      index: m.index!,
      length: m[0].length,
      cascade,
      rounded: eff.rounded || undefined,
    });
    taken.push([m.index!, m.index! + m[0].length]);
  }
  const parts = new Set(out.flatMap((c) => c.cascade ?? []));
  for (const p of findPercents(text)) {
    if (taken.some(([a, b]) => p.index >= a && p.index < b)) continue;
    // "10% + 5% (the 5% is taken off the discounted price)": the explanation repeats a part.
    if (parts.has(p.value)) continue;
    out.push(p);
  }
  return out.filter((p) => !REFERENCE_WORDS.test(text.slice(0, p.index)))
    .sort((a, b) => a.index - b.index);
}

/** Percents a text names as old or reference rates ("instead of 10%"). */
export function findReferencePercents(text: string): PercentMatch[] {
  return findPercents(text).filter((p) => REFERENCE_WORDS.test(text.slice(0, p.index)));
}

/** A discount cell: "15 %", "15%", or a bare "15" in a column already known to hold percents. */
export function parsePercentCell(raw: string): DecimalString | null {
  const found = findPercents(raw);
  if (found.length === 1) return found[0].value;
  const bare = /^\s*(\d{1,3}(?:[.,]\d{1,4})?)\s*$/.exec(raw);
  if (!bare) return null;
  const v = decFromString(bare[1].replace(",", "."));
  return v !== null && v > 0n && v <= 1_000_000n ? decToString(v) : null;
}

export interface QuantityRange {
  min: DecimalString;
  min_exclusive: boolean;
  max: DecimalString | null;
  unit: string | null;
}

const NUM = String.raw`(\d[\d.,'\u00a0]*)`;
const UNIT_TAIL = String.raw`\s*([\p{L}²³][\p{L}\d²³.]*)?`;
const RANGE_FORMS: Array<{ re: RegExp; kind: "between" | "from" | "above" | "upto" | "below" }> = [
  { re: new RegExp(`^${NUM}\\s*(?:-|–|—|to|bis)\\s*${NUM}${UNIT_TAIL}$`, "iu"), kind: "between" },
  { re: new RegExp(`^${NUM}${UNIT_TAIL}\\s*\\+$`, "iu"), kind: "from" },
  { re: new RegExp(`^${NUM}\\s*\\+${UNIT_TAIL}$`, "iu"), kind: "from" },
  { re: new RegExp(`^(?:≥|>=|from|ab|min\\.?|at least)\\s*${NUM}${UNIT_TAIL}$`, "iu"), kind: "from" },
  {
    re: new RegExp(`^${NUM}${UNIT_TAIL}\\s+(?:and|or)\\s+(?:more|above|over)$`, "iu"),
    kind: "from",
  },
  { re: new RegExp(`^(?:>|over|above|more than)\\s*${NUM}${UNIT_TAIL}$`, "iu"), kind: "above" },
  { re: new RegExp(`^(?:≤|<=|up to|bis|max\\.?)\\s*${NUM}${UNIT_TAIL}$`, "iu"), kind: "upto" },
  { re: new RegExp(`^(?:<|under|below|less than)\\s*${NUM}${UNIT_TAIL}$`, "iu"), kind: "below" },
];

/**
 * A quantity range as written in a tier header or a quantity cell. A bare number ("100") is a
 * lower bound. "< 50" becomes an upper bound of 50 (the next tier starts there).
 */
export function parseQuantityRange(raw: string, style: SeparatorStyle | null = null): QuantityRange | null {
  const s = raw.trim().replace(/\s+/g, " ");
  // A quantity with three digits after a lone separator ("1.000", "1,000") groups thousands
  // whatever the document's money style is: nobody writes tiers to three decimals.
  const num = (x: string) => {
    const r = parseNumber(x, style);
    if (r.ok) return r.value;
    if (!r.ambiguous) return null;
    const whole = parseNumber(x.replace(/[.,]/, ""));
    return whole.ok ? whole.value : null;
  };
  const unitOf = (u: string | undefined) => (u ? normalizeUnit(u) : null);
  for (const { re, kind } of RANGE_FORMS) {
    const m = re.exec(s);
    if (!m) continue;
    if (kind === "between") {
      const a = num(m[1]);
      const b = num(m[2]);
      if (a === null || b === null || decFromString(a)! > decFromString(b)!) return null;
      return { min: a, min_exclusive: false, max: b, unit: unitOf(m[3]) };
    }
    const v = num(m[1]);
    if (v === null) return null;
    if (kind === "from") return { min: v, min_exclusive: false, max: null, unit: unitOf(m[2]) };
    if (kind === "above") return { min: v, min_exclusive: true, max: null, unit: unitOf(m[2]) };
    return { min: "0", min_exclusive: false, max: v, unit: unitOf(m[2]) };
  }
  const bare = new RegExp(`^${NUM}${UNIT_TAIL}$`, "u").exec(s);
  if (bare) {
    const v = num(bare[1]);
    if (v !== null) return { min: v, min_exclusive: false, max: null, unit: unitOf(bare[2]) };
  }
  return null;
}
