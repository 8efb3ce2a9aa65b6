/**
 * Formatting of amounts for people. Figures arrive from SQL already rounded (prices and
 * quantities with at most 4 decimals, totals with 2: see migration 20260103000200_quote_totals),
 * so formatting never rounds a total; it only chooses how many of the stored decimals to show.
 * toFixed() is exact here because the stored values have at most 4 decimals and stay far below
 * 2^53 / 10^4.
 */

const MAX_SAFE_AMOUNT = 1e11;

/**
 * "1,234.5" -> "1,234.50": at least `minFraction` and at most `maxFraction` decimals, comma
 * thousands separators, no locale dependence (the PDF must read the same on every server).
 */
export function formatAmount(value: number, minFraction = 2, maxFraction = 2): string {
  if (!Number.isFinite(value) || Math.abs(value) >= MAX_SAFE_AMOUNT) {
    throw new RangeError(`amount out of range: ${value}`);
  }
  const negative = value < 0;
  let s = Math.abs(value).toFixed(maxFraction);
  if (maxFraction > minFraction) {
    // Drop trailing zeros beyond the minimum: 12.5000 -> 12.50, 0.0125 stays.
    const dot = s.indexOf(".");
    let end = s.length;
    while (end > dot + 1 + minFraction && s[end - 1] === "0") end--;
    s = s.slice(0, end);
    if (s.endsWith(".")) s = s.slice(0, -1);
  }
  const [whole, fraction] = s.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const out = fraction === undefined ? grouped : `${grouped}.${fraction}`;
  return negative && Number(s) !== 0 ? `-${out}` : out;
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
  if (!Number.isFinite(n)) return false;
  const s = String(n);
  if (/e/i.test(s)) return Number.isInteger(n);
  const dot = s.indexOf(".");
  return dot < 0 || s.length - dot - 1 <= digits;
}
