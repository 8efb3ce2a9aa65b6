// The one money module (pricing and quotes): exact decimals, one rounding rule (half-up on the
// magnitude, to the cent), and numbers read as the decimal they print as, so float traps
// (0.1 + 0.2, 1.005, 2.675) never leak into a figure.
import assert from "node:assert/strict";
import {
  dec,
  decFromNumber,
  decToMoneyString,
  decToString,
  divRoundHalfUp,
  formatAmount,
  formatQuantity,
  formatUnitPrice,
  hasAtMostDecimals,
  lineTotal,
  roundMoney,
} from "@shared/money.ts";

const formatCases: Array<[value: number, want: string, why: string]> = [
  // half-up at the .005 boundary
  [0.005, "0.01", "half a cent rounds up"],
  [0.015, "0.02", "0.015 is 0.01499999... as a float"],
  [0.125, "0.13", "exact in binary, still up"],
  [1.005, "1.01", "1.005 is 1.00499999... as a float; toFixed(2) says 1.00"],
  [2.675, "2.68", "2.675 is 2.67499999... as a float; toFixed(2) says 2.67"],
  [1.115, "1.12", "1.115 is 1.11499999... as a float"],
  [10.235, "10.24", "10.235 is 10.23499999... as a float"],
  [1234567.895, "1,234,567.90", "the carry ripples into the whole part"],
  [0.995, "1.00", "the carry crosses the decimal point"],
  [999.995, "1,000.00", "the carry adds a thousands group"],
  // just below and above the boundary
  [1.0049, "1.00", "below half"],
  [1.00499999, "1.00", "far digits below half are not rounded twice"],
  [1.0051, "1.01", "above half"],
  // float traps
  [0.1 + 0.2, "0.30", "0.30000000000000004"],
  [0.7 + 0.1, "0.80", "0.7999999999999999"],
  [3 * 1.1, "3.30", "3.3000000000000003"],
  [1.1 * 1.1, "1.21", "1.2100000000000002"],
  // negative values: half-up on the magnitude (half away from zero), like Postgres round()
  [-0.005, "-0.01", "negative half a cent"],
  [-1.005, "-1.01", "negative float trap"],
  [-2.675, "-2.68", "negative float trap"],
  [-0.004, "0.00", "rounds to zero: no minus sign"],
  [-1234.5, "-1,234.50", "grouping after the sign"],
  [-0, "0.00", "negative zero"],
  // large values
  [99_999_999_999.99, "99,999,999,999.99", "the largest amount a numeric(14, 2) total holds"],
  [12_345_678_901.235, "12,345,678,901.24", "half-up on a large value"],
  [1e-7, "0.00", "a tiny value printed in exponent form"],
];

for (const [value, want, why] of formatCases) {
  Deno.test(`money: formatAmount(${value}) = ${want} (${why})`, () => {
    assert.equal(formatAmount(value), want);
  });
}

Deno.test("money: unit prices round half-up at the 4th decimal, quantities keep what is stored", () => {
  const prices: Array<[number, string]> = [
    [1.00005, "1.0001"],
    [1.00004, "1.00"],
    [0.00005, "0.0001"],
    [2.67495, "2.675"],
    [-0.00005, "-0.0001"],
    [12.345, "12.345"],
  ];
  for (const [v, want] of prices) assert.equal(formatUnitPrice(v), want, String(v));
  const quantities: Array<[number, string]> = [[0.1 + 0.2, "0.3"], [2.5, "2.5"], [1e-5, "0"], [
    1.00005,
    "1.0001",
  ]];
  for (const [v, want] of quantities) assert.equal(formatQuantity(v), want, String(v));
});

Deno.test("money: out-of-range and non-finite amounts are refused", () => {
  for (const v of [1e11, -1e11, 1e21, Number.NaN, Infinity, -Infinity]) {
    assert.throws(() => formatAmount(v), RangeError, String(v));
  }
});

Deno.test("money: divRoundHalfUp rounds half away from zero", () => {
  const cases: Array<[bigint, bigint, bigint]> = [
    [5n, 10n, 1n],
    [4n, 10n, 0n],
    [15n, 10n, 2n],
    [25n, 10n, 3n],
    [-5n, 10n, -1n],
    [-4n, 10n, 0n],
    [-15n, 10n, -2n],
    [0n, 7n, 0n],
    [10n ** 30n + 5n, 10n, 10n ** 29n + 1n],
  ];
  for (const [n, d, want] of cases) assert.equal(divRoundHalfUp(n, d), want, `${n}/${d}`);
  assert.throws(() => divRoundHalfUp(1n, 0n), RangeError);
});

Deno.test("money: Dec rounding to the cent at the .005 boundary, signed and large", () => {
  const cases: Array<[Dec: bigint, want: string]> = [
    [dec("1.005"), "1.01"],
    [dec("1.0049"), "1.00"],
    [dec("2.675"), "2.68"],
    [dec("0.005"), "0.01"],
    [-dec("1.005"), "-1.01"],
    [-dec("1.0049"), "-1.00"],
    [-dec("0.0049"), "0.00"],
    [dec("99999999999999.995"), "100000000000000.00"],
  ];
  for (const [d, want] of cases) assert.equal(decToMoneyString(roundMoney(d)), want, decToString(d));
});

Deno.test("money: line totals are exact products rounded once", () => {
  const cases: Array<[unit: string, qty: string, total: string]> = [
    ["0.1", "3", "0.30"],
    ["1.005", "1", "1.01"],
    ["0.335", "3", "1.01"],
    ["2.675", "2", "5.35"],
    ["0.0001", "50", "0.01"],
    ["0.0001", "49", "0.00"],
    ["99999999.9999", "1000", "99999999999.90"],
  ];
  for (const [unit, qty, total] of cases) {
    assert.equal(decToMoneyString(lineTotal(dec(unit), dec(qty))), total, `${unit} x ${qty}`);
  }
});

Deno.test("money: float traps are refused as inputs rather than silently rounded", () => {
  assert.equal(decFromNumber(0.1 + 0.2), null);
  assert.equal(decToString(decFromNumber(1.005)!), "1.005");
  assert.equal(decToString(decFromNumber(2.675)!), "2.675");
  assert.equal(hasAtMostDecimals(0.1 + 0.2, 4), false);
  assert.equal(hasAtMostDecimals(1.005, 3), true);
  assert.equal(hasAtMostDecimals(-2.675, 2), false);
  assert.equal(decToString(-dec("12.5")), "-12.5");
});
