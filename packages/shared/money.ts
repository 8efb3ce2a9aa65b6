/**
 * Money: exact decimal arithmetic and formatting for prices, percents, quantities and totals,
 * shared by the price engine (pricing/) and quotes (quotes/). No float ever carries a figure
 * through a computation or a rounding here.
 *
 * Arithmetic: a value is a bigint count of 1/10,000 units (`Dec`), so every figure parsed from a
 * price document or stored in a numeric(_, 4) column (at most four decimal places) is held
 * exactly. Entries store values as canonical decimal strings ("12.5", "1234.56") so they stay
 * JSON-serialisable; this module converts between the two.
 *
 * Rounding rule (the only one, the same as SQL's round(numeric, 2) in the quote totals): a money
 * figure shown to people is rounded once, at the end, to 2 decimals, half-up (0.005 -> 0.01;
 * commercial rounding as on European invoices). Half-up is taken on the magnitude (half away
 * from zero), so -0.005 -> -0.01, exactly like Postgres.
 * - final_unit_price = round2(list_price x (1 - discount_percent/100)), computed exactly first;
 * - total = round2(final_unit_price x quantity_applied), using the already rounded unit price so
 *   that the total can be re-derived by hand from the two numbers the proposal shows.
 * - a percent derived from a fixed promotion price is rounded half-up to 2 decimals as well.
 *
 * Formatting (formatAmount and friends): a JS number is read as the decimal it prints as (its
 * shortest round-trip form: 1.005 is "1.005", not 1.00499999...), then rounded half-up on that
 * exact decimal. Figures from SQL (totals with 2 decimals, prices and quantities with at most 4)
 * are shown unchanged; 0.1 + 0.2 shows as 0.30.
 */

/** Exact decimal: units of 1/10,000. */
export type Dec = bigint;

const DEC_DIGITS = 4;
const DEC_ONE: Dec = 10_000n;
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

/** `units` / 10^scale as a plain decimal string, without trailing fraction zeros. */
function unitsToString(units: bigint, scale: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const one = 10n ** BigInt(scale);
  const whole = (abs / one).toString();
  const frac = scale === 0 ? "" : (abs % one).toString().padStart(scale, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${frac ? `${whole}.${frac}` : whole}`;
}

/** Canonical string: no trailing fraction zeros ("12.5", "100", "-0.25"). */
export function decToString(d: Dec): string {
  return unitsToString(d, DEC_DIGITS);
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

/** round(numerator / denominator), half-up on the magnitude (half away from zero); denominator > 0. */
export function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError("divRoundHalfUp expects a positive denominator");
  const abs = numerator < 0n ? -numerator : numerator;
  const q = (2n * abs + denominator) / (2n * denominator);
  return numerator < 0n ? -q : q;
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
  return unitsToString(list * (HUNDRED_PERCENT - percent), 10);
}

// ---- numbers from SQL / JSON, for people ----

const NUMBER_FORM = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

/** The exact decimal a finite number prints as: `units` / 10^scale. */
function exactDecimal(n: number): { units: bigint; scale: number } {
  const m = NUMBER_FORM.exec(String(n));
  if (!m) throw new RangeError(`not a finite number: ${n}`);
  const frac = m[3] ?? "";
  let units = BigInt(m[2] + frac);
  let scale = frac.length - Number(m[4] ?? 0);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: m[1] ? -units : units, scale };
}

/** Values at or above this magnitude are refused by the formatters (never printed wrong). */
const MAX_AMOUNT = 1e11;

/**
 * "1,234.5" -> "1,234.50": the exact decimal of `value` rounded half-up to `maxFraction`
 * decimals, shown with at least `minFraction` of them, comma thousands separators and no locale
 * dependence (a PDF must read the same on every server).
 */
export function formatAmount(value: number, minFraction = 2, maxFraction = 2): string {
  if (!Number.isFinite(value) || Math.abs(value) >= MAX_AMOUNT) {
    throw new RangeError(`amount out of range: ${value}`);
  }
  const { units, scale } = exactDecimal(value);
  const rounded = scale <= maxFraction
    ? units * 10n ** BigInt(maxFraction - scale)
    : divRoundHalfUp(units, 10n ** BigInt(scale - maxFraction));
  const negative = rounded < 0n;
  const abs = negative ? -rounded : rounded;
  const digits = abs.toString().padStart(maxFraction + 1, "0");
  const whole = digits.slice(0, digits.length - maxFraction);
  // Trailing zeros beyond the minimum are dropped: 12.5000 -> 12.50, 0.0125 stays.
  let fraction = digits.slice(digits.length - maxFraction);
  while (fraction.length > minFraction && fraction.endsWith("0")) fraction = fraction.slice(0, -1);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "-" : ""}${fraction ? `${grouped}.${fraction}` : grouped}`;
}

/** A unit price: 2 to 4 decimals, as stored. */
export function formatUnitPrice(value: number): string {
  return formatAmount(value, 2, 4);
}

/** A quantity: as stored, without padding ("2", "1.5", "0.125"). */
export function formatQuantity(value: number): string {
  return formatAmount(value, 0, 4);
}

/** A total in a currency: "1,234.50 EUR". */
export function formatMoney(value: number, currency: string): string {
  return `${formatAmount(value)} ${currency}`;
}

/**
 * True when `n` has at most `digits` decimals in its shortest decimal form, i.e. when a numeric
 * column of that scale stores it exactly instead of rounding it silently.
 */
export function hasAtMostDecimals(n: number, digits: number): boolean {
  return Number.isFinite(n) && exactDecimal(n).scale <= digits;
}
