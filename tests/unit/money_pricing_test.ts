import assert from "node:assert/strict";
import {
  applyDiscount,
  dec,
  decFromNumber,
  decFromString,
  decToMoneyString,
  decToNumber,
  decToString,
  impliedDiscountPercent,
  lineTotal,
} from "../../packages/shared/money.ts";

const discountCases: Array<[list: string, percent: string, final: string, why: string]> = [
  ["12.5", "15", "10.63", "10.625 rounds half-up"],
  ["10", "0", "10.00", "no discount"],
  ["1.005", "0", "1.01", "half-up at the third decimal"],
  ["2.675", "0", "2.68", "2.675 as a float would round to 2.67"],
  ["19.99", "33.33", "13.33", "13.327333 rounds down"],
  ["100", "100", "0.00", "a full discount"],
  ["1234.56", "12.5", "1080.24", "1080.24 exactly"],
  ["0.0125", "10", "0.01", "sub-cent list prices are kept exactly until the end"],
  ["45.9", "12", "40.39", "40.392 rounds down"],
];

for (const [list, percent, final, why] of discountCases) {
  Deno.test(`money: ${list} x (1 - ${percent}/100) = ${final} (${why})`, () => {
    assert.equal(decToMoneyString(applyDiscount(dec(list), dec(percent))), final);
  });
}

const totalCases: Array<[unit: string, qty: string, total: string]> = [
  ["10.63", "20", "212.60"],
  ["10.63", "12.5", "132.88"],
  ["0.07", "3", "0.21"],
  ["1.15", "1000", "1150.00"],
  ["45.9", "20.25", "929.48"],
];

for (const [unit, qty, total] of totalCases) {
  Deno.test(`money: total ${unit} x ${qty} = ${total}`, () => {
    assert.equal(decToMoneyString(lineTotal(dec(unit), dec(qty))), total);
  });
}

Deno.test("money: implied discount percent of a fixed price, half-up to 2 decimals", () => {
  const cases: Array<[string, string, string | null]> = [
    ["12.5", "9.9", "20.8"],
    ["3", "2", "33.33"],
    ["3", "1", "66.67"],
    ["10", "11", null],
    ["0", "0", null],
  ];
  for (const [list, price, expected] of cases) {
    const got = impliedDiscountPercent(dec(list), dec(price));
    assert.equal(got === null ? null : decToString(got), expected, `${list} -> ${price}`);
  }
});

Deno.test("money: caller numbers are accepted only when exact at 4 decimals", () => {
  const cases: Array<[number, string | null]> = [
    [12.5, "12.5"],
    [20, "20"],
    [0.0001, "0.0001"],
    [1e-7, null],
    [-1, null],
    [0.12345, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
  ];
  for (const [n, expected] of cases) {
    const d = decFromNumber(n);
    assert.equal(d === null ? null : decToString(d), expected, String(n));
  }
});

Deno.test("money: canonical strings round-trip and convert to exact JSON numbers", () => {
  for (const s of ["0", "12", "12.5", "1234.56", "0.0125"]) assert.equal(decToString(dec(s)), s);
  for (const bad of ["12,5", "1.23456", "-3", "", "1e3"]) assert.equal(decFromString(bad), null, bad);
  assert.equal(decToNumber(applyDiscount(dec("12.5"), dec("15"))), 10.63);
  assert.equal(JSON.stringify({ total: decToNumber(lineTotal(dec("0.07"), dec("3"))) }), '{"total":0.21}');
});
