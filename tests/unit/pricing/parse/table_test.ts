import assert from "node:assert/strict";
import {
  detectSeparatorStyle,
  findDateRange,
  findPercents,
  parseAmount,
  parseDate,
  parseQuantityRange,
} from "../../../../packages/shared/pricing/mod.ts";
import { classifyColumns } from "../../../../packages/shared/pricing/parse/table.ts";

type AmountCase = [
  raw: string,
  style: "comma" | "dot" | null,
  value: string | null,
  currency: string | null,
  unit?: string,
];
const amountCases: AmountCase[] = [
  ["1.234,56 €", null, "1234.56", "EUR"],
  ["€1,234.56", null, "1234.56", "EUR"],
  ["12,50", null, "12.5", null],
  ["EUR 12.50", null, "12.5", "EUR"],
  ["$ 9.99", null, "9.99", "USD"],
  ["1 234,56 €", null, "1234.56", "EUR"],
  ["12,- €", null, "12", "EUR"],
  ["£3.20/m²", null, "3.2", "GBP", "m2"],
  ["9,90 €/bag", null, "9.9", "EUR", "bag"],
  ["CHF 1'234.50", null, "1234.5", "CHF"],
  ["45.90 € per m2", null, "45.9", "EUR", "m2"],
  ["12.345.678", null, "12345678", null],
  ["0,125", null, "0.125", null],
  ["1.234", null, null, null],
  ["1.234", "comma", "1234", null],
  ["1,234", "comma", "1.234", null],
  ["1,234", "dot", "1234", null],
  ["1,23456", null, null, null],
  ["€ 5 $", null, null, null],
  ["on request", null, null, null],
  ["1.234,56.7", null, null, null],
];

for (const [raw, style, value, currency, unit] of amountCases) {
  Deno.test(`parse amount: "${raw}"${style ? ` (${style} style)` : ""} -> ${value ?? "rejected"}`, () => {
    const r = parseAmount(raw, style);
    if (value === null) {
      assert.equal(r.ok, false);
      return;
    }
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.value, value);
    assert.equal(r.currency, currency);
    if (unit) assert.equal(r.unit, unit);
  });
}

Deno.test("parse amount: a document's style comes from its unambiguous values", () => {
  assert.equal(detectSeparatorStyle(["12,50", "1.234"]), "comma");
  assert.equal(detectSeparatorStyle(["12.50 €", "1,234"]), "dot");
  assert.equal(detectSeparatorStyle(["1.234", "5"]), null);
  assert.equal(detectSeparatorStyle(["12,50", "12.50"]), null);
});

Deno.test("parse percents in prose", () => {
  const cases: Array<[string, string[]]> = [
    ["All Mapei products 15% off", ["15"]],
    ["15 % discount on manufacturer X", ["15"]],
    ["12,5 % on Kerakoll", ["12.5"]],
    ["12.5 percent off", ["12.5"]],
    ["10% on Mapei, 15% on Kerakoll", ["10", "15"]],
    ["150% more durable", []],
    ["no percent here", []],
  ];
  for (const [text, expected] of cases) {
    assert.deepEqual(findPercents(text).map((p) => p.value), expected, text);
  }
});

Deno.test("parse quantity ranges of tier headers and cells", () => {
  const cases: Array<[string, [string, boolean, string | null, string | null] | null]> = [
    ["1-49", ["1", false, "49", null]],
    ["1 – 49 m²", ["1", false, "49", "m2"]],
    ["50+", ["50", false, null, null]],
    ["≥100", ["100", false, null, null]],
    [">= 100", ["100", false, null, null]],
    ["> 100 m2", ["100", true, null, "m2"]],
    ["from 100 m²", ["100", false, null, "m2"]],
    ["100 and more", ["100", false, null, null]],
    ["up to 49", ["0", false, "49", null]],
    ["1.000+", ["1000", false, null, null]],
    ["100", ["100", false, null, null]],
    ["49-1", null],
    ["price", null],
  ];
  for (const [text, expected] of cases) {
    const r = parseQuantityRange(text);
    assert.deepEqual(r && [r.min, r.min_exclusive, r.max, r.unit], expected, text);
  }
});

Deno.test("parse dates: ISO, day-first numeric and written months; invalid days rejected", () => {
  const cases: Array<[string, string | null]> = [
    ["2026-03-01", "2026-03-01"],
    ["01.03.2026", "2026-03-01"],
    ["1/3/2026", "2026-03-01"],
    ["03/04/2026", "2026-04-03"],
    ["1 March 2026", "2026-03-01"],
    ["1st March 2026", "2026-03-01"],
    ["March 1, 2026", "2026-03-01"],
    ["1. März 2026", "2026-03-01"],
    ["29.02.2028", "2028-02-29"],
    ["2026-02-30", null],
    ["31.04.2026", null],
    ["30 April", null],
  ];
  for (const [text, expected] of cases) assert.equal(parseDate(text), expected, text);
});

Deno.test("parse date ranges in prose", () => {
  const cases: Array<[string, [string | null, string | null] | null]> = [
    ["Spring promo 10% off, valid 2026-03-01 to 2026-04-30", ["2026-03-01", "2026-04-30"]],
    ["from 1 March 2026 until 30 April 2026", ["2026-03-01", "2026-04-30"]],
    ["01.03.2026 - 30.04.2026", ["2026-03-01", "2026-04-30"]],
    ["between 1/3/2026 and 30/4/2026", ["2026-03-01", "2026-04-30"]],
    ["Prices valid until 31.12.2026", [null, "2026-12-31"]],
    ["Valid from 2026-01-01", ["2026-01-01", null]],
    ["Updated: 15.01.2026", ["2026-01-15", null]],
    ["2026-05-01 to 2026-04-01", null],
    ["until 30 April", null],
    ["Mapei products 15% off", null],
  ];
  for (const [text, expected] of cases) {
    const r = findDateRange(text);
    assert.deepEqual(r && [r.from, r.to], expected, text);
  }
});

Deno.test("parse table headers: synonyms, header currency and unit, tier columns", () => {
  const headers = [
    "Art. No.",
    "Product name",
    "Brand",
    "List price (€/m²)",
    "UoM",
    "Min. order",
    "50+",
    "Net price",
    "EAN",
  ];
  const cols = classifyColumns(headers);
  assert.deepEqual(cols.map((c) => c.role), [
    "sku",
    "product",
    "manufacturer",
    "price",
    "unit",
    "moq",
    "tier",
    null,
    null,
  ]);
  assert.equal(cols[3].currency, "EUR");
  assert.equal(cols[3].unit, "m2");
  const synonyms: Array<[string, string | null]> = [
    ["SKU", "sku"],
    ["Code", "sku"],
    ["Article", "sku"],
    ["Item no", "sku"],
    ["Description", "product"],
    ["Name", "product"],
    ["Manufacturer", "manufacturer"],
    ["Supplier", "manufacturer"],
    ["Price", "price"],
    ["Unit price", "price"],
    ["€", "price"],
    ["EUR", "price"],
    ["Unit", "unit"],
    ["Min qty", "tier_qty"],
    ["From qty", "tier_qty"],
    ["Quantity", "tier_qty"],
    ["MOQ", "moq"],
    ["Discount %", "discount"],
    ["Colour", null],
  ];
  for (const [h, role] of synonyms) assert.equal(classifyColumns([h])[0].role, role, h);
});
