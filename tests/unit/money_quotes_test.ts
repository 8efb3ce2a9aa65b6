// Amount formatting for the quote PDF: the figures arrive rounded from SQL, so formatting only
// picks how many stored decimals to show and never rounds a total.
import assert from "node:assert/strict";
import {
  formatAmount,
  formatMoney,
  formatQuantity,
  formatUnitPrice,
  hasAtMostDecimals,
} from "@shared/money.ts";

Deno.test("formatAmount: 2 decimals, comma thousands, no locale", () => {
  const cases: [number, string][] = [
    [0, "0.00"],
    [1, "1.00"],
    [12.5, "12.50"],
    [999.99, "999.99"],
    [1000, "1,000.00"],
    [1234.5, "1,234.50"],
    [1234567.89, "1,234,567.89"],
    [0.01, "0.01"],
    [-12.3, "-12.30"],
    [99_999_999_999.99, "99,999,999,999.99"],
  ];
  for (const [v, want] of cases) assert.equal(formatAmount(v), want, String(v));
});

Deno.test("formatUnitPrice keeps up to the 4 stored decimals, at least 2", () => {
  const cases: [number, string][] = [
    [12, "12.00"],
    [12.5, "12.50"],
    [12.345, "12.345"],
    [0.0125, "0.0125"],
    [1999.1, "1,999.10"],
    [9999999999.9999, "9,999,999,999.9999"],
  ];
  for (const [v, want] of cases) assert.equal(formatUnitPrice(v), want, String(v));
});

Deno.test("formatQuantity shows the quantity as stored", () => {
  const cases: [number, string][] = [[1, "1"], [2.5, "2.5"], [0.125, "0.125"], [1500, "1,500"], [
    12.3456,
    "12.3456",
  ]];
  for (const [v, want] of cases) assert.equal(formatQuantity(v), want, String(v));
});

Deno.test("formatMoney appends the currency; out-of-range values are refused, not printed wrong", () => {
  assert.equal(formatMoney(1234.5, "EUR"), "1,234.50 EUR");
  assert.throws(() => formatAmount(Number.NaN), RangeError);
  assert.throws(() => formatAmount(Infinity), RangeError);
  assert.throws(() => formatAmount(1e12), RangeError);
});

Deno.test("hasAtMostDecimals: what numeric(p, s) stores without rounding", () => {
  const cases: [number, number, boolean][] = [
    [12, 2, true],
    [12.34, 2, true],
    [12.345, 2, false],
    [0.0001, 4, true],
    [0.00001, 4, false],
    [1e-7, 4, false],
    [1e21, 2, true],
    [Number.NaN, 2, false],
  ];
  for (const [n, d, want] of cases) assert.equal(hasAtMostDecimals(n, d), want, `${n}/${d}`);
});
