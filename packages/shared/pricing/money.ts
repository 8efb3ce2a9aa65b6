/**
 * Exact decimal arithmetic for prices, percents and quantities.
 *
 * A value is a bigint count of 1/10,000 units (`Dec`), so every figure parsed from a price
 * document (at most four decimal places) is held exactly and no float ever touches a price.
 * Entries store values as canonical decimal strings ("12.5", "1234.56") so they stay
 * JSON-serialisable; this module converts between the two.
 *
 * Rounding rule (the only one): a money figure shown to people is rounded once, at the end, to
 * 2 decimals, half-up (0.005 -> 0.01; commercial rounding as on European invoices). Prices,
 * quantities and percents are never negative here, so half-up and half-away-from-zero agree.
 * - final_unit_price = round2(list_price x (1 - discount_percent/100)), computed exactly first;
 * - total = round2(final_unit_price x quantity_applied), using the already rounded unit price so
 *   that the total can be re-derived by hand from the two numbers the proposal shows.
 * - a percent derived from a fixed promotion price is rounded half-up to 2 decimals as well.
 */

/** Exact decimal: units of 1/10,000. */
export type Dec = bigint;

export const DEC_DIGITS = 4;
export const DEC_ONE: Dec = 10_000n;
const HUNDRED_PERCENT: Dec = 100n * DEC_ONE;

const CANONICAL = /^(\d+)(?:\.(\d{1,4}))?$/;

/** Parses a canonical decimal string ("12", "12.5", "0.0125"); null if it is not one. */
export function decFromString(s: string): Dec | null {
  const m = CANONICAL.exec(s);
  if (!m) return null;
  const frac = (m[2] ?? "").padEnd(DEC_DIGITS, "0");
  return BigInt(m[1]) * DEC_ONE + BigInt(frac);
}

/** Like decFromString for values this module produced itself; a bad one is a programming error. */
export function dec(s: string): Dec {
  const d = decFromString(s);
  if (d === null) throw new TypeError(`not a canonical decimal: ${s}`);
  return d;
}

/** Canonical string: no trailing fraction zeros ("12.5", "100"). */
export function decToString(d: Dec): string {
  const whole = d / DEC_ONE;
  const frac = (d % DEC_ONE).toString().padStart(DEC_DIGITS, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole.toString();
}

/** Money for people: at least two decimals ("12.50", "0.0125"). */
export function decToMoneyString(d: Dec): string {
  const s = decToString(d);
  const dot = s.indexOf(".");
  if (dot < 0) return `${s}.00`;
  return s.length - dot - 1 < 2 ? `${s}0` : s;
}

/**
 * Converts a caller-supplied number (e.g. a quantity) without float surprises: only finite,
 * non-negative numbers whose shortest decimal form has at most four decimals are accepted.
 */
export function decFromNumber(n: number): Dec | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const s = String(n);
  if (/e/i.test(s)) return null;
  return decFromString(s);
}

/** A JSON number for a Dec (exact for the 2- and 4-decimal values produced here). */
export function decToNumber(d: Dec): number {
  return Number(decToString(d));
}

/** round(numerator / denominator), half-up; both non-negative, denominator > 0. */
export function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (numerator < 0n || denominator <= 0n) throw new RangeError("divRoundHalfUp expects n >= 0, d > 0");
  return (2n * numerator + denominator) / (2n * denominator);
}

/** Rounds a Dec to 2 decimals, half-up; the result is still a Dec. */
export function roundMoney(d: Dec): Dec {
  return divRoundHalfUp(d, 100n) * 100n;
}

/** round2(list x (1 - percent/100)), with the product formed exactly before the one rounding. */
export function applyDiscount(list: Dec, percent: Dec): Dec {
  if (percent < 0n || percent > HUNDRED_PERCENT) throw new RangeError("discount percent outside 0..100");
  // list/1e4 * (1e6 - percent)/1e6 in cents = list * (1e6 - percent) / 1e8
  const cents = divRoundHalfUp(list * (HUNDRED_PERCENT - percent), 100_000_000n);
  return cents * 100n;
}

/** round2(unit x quantity). */
export function lineTotal(unit: Dec, quantity: Dec): Dec {
  // (unit/1e4) * (quantity/1e4) in cents = unit * quantity / 1e6
  return divRoundHalfUp(unit * quantity, 1_000_000n) * 100n;
}

/** The percent a fixed price is below the list price, rounded half-up to 2 decimals. */
export function impliedDiscountPercent(list: Dec, price: Dec): Dec | null {
  if (list <= 0n || price > list) return null;
  // (1 - price/list) * 100 in hundredths of a percent = (list - price) * 10000 / list
  return divRoundHalfUp((list - price) * 10_000n, list) * 100n;
}

/** The unrounded list x (1 - percent/100) as a decimal string, for the reasoning chain. */
export function discountedExact(list: Dec, percent: Dec): string {
  // scale 1e4 (list) x 1e6 (percent of 100 at scale 1e4) = 1e10
  const n = list * (HUNDRED_PERCENT - percent);
  const scale = 10n ** 10n;
  const frac = (n % scale).toString().padStart(10, "0").replace(/0+$/, "");
  return frac ? `${n / scale}.${frac}` : (n / scale).toString();
}
