import {
  doc,
  KEOPE_LIST,
  type LookupCase,
  lookupCases,
  MAPEI_DISCOUNTS,
  MAPEI_LIST,
  MARAZZI_LIST,
  MP100_PROMO,
  PORCELANOSA_CONTRACT,
  PORCELANOSA_LIST,
  SKU_RULE,
  SPRING_PROMO,
  x1,
} from "./helpers.ts";

const cases: LookupCase[] = [
  // precedence
  {
    name: "a SKU promotion price beats the manufacturer discount",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS, MP100_PROMO],
    input: { product_name: "x", sku: "MP-100", quantity: 10 },
    expect: {
      list: 12.5,
      discount: 20.8,
      final: 9.9,
      total: 99,
      confidence: "high",
      rule: "doc-mp100-promo",
      through: "2026-04-30",
    },
  },
  {
    name: "a SKU percent rule beats a higher manufacturer rule",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS, SKU_RULE],
    input: { product_name: "x", sku: "MP-200", quantity: 10 },
    expect: { list: 9.8, discount: 8, final: 9.02, total: 90.2, confidence: "high", rule: "doc-sku-rule" },
  },
  {
    name: "the all-products rule applies when nothing more specific does",
    docs: [PORCELANOSA_LIST, MAPEI_DISCOUNTS],
    input: { product_name: "x", sku: "PO-60", quantity: 20 },
    expect: { discount: 5, final: 43.61, total: 872.2, confidence: "high", rule: "doc-mapei-disc" },
  },
  {
    name: "different discounts at the same scope: highest, no stacking, caveat",
    docs: [
      MAPEI_LIST,
      MAPEI_DISCOUNTS,
      doc("doc-m10", "discount_rule", "Mapei extra", "Mapei products 10% off"),
    ],
    input: { product_name: "x", sku: "MP-100", quantity: 1 },
    expect: { discount: 15, final: 10.63, confidence: "medium", codes: ["several_discounts"] },
  },
  {
    name: "equal percents: contract_terms is preferred",
    docs: [
      MAPEI_LIST,
      MAPEI_DISCOUNTS,
      doc("doc-mc", "contract_terms", "Mapei contract", "Contract with Mapei: 15% discount"),
    ],
    input: { product_name: "x", sku: "MP-100", quantity: 1 },
    expect: { discount: 15, confidence: "high", rule: "doc-mc" },
  },
  {
    name: "a condition that cannot be checked applies with a caveat",
    docs: [
      MAPEI_LIST,
      doc(
        "doc-mc",
        "contract_terms",
        "Mapei contract",
        "Negotiated discount with Mapei: 10% provided payment within 30 days",
      ),
    ],
    input: { product_name: "x", sku: "MP-100", quantity: 1 },
    expect: { discount: 10, final: 11.25, confidence: "medium", codes: ["rule_condition"] },
  },
  {
    name: "a category-only rule applies to a product of that category",
    docs: [MAPEI_LIST, doc("doc-grout", "discount_rule", "Grout deal", "7% off all grouts")],
    input: { product_name: "x", sku: "MP-200", quantity: 1 },
    expect: { discount: 7, final: 9.11, rule: "doc-grout" },
  },
  {
    name: "a category-only rule does not apply to other products",
    docs: [MAPEI_LIST, doc("doc-grout", "discount_rule", "Grout deal", "7% off all grouts")],
    input: { product_name: "x", sku: "MP-100", quantity: 1 },
    expect: { discount: 0, final: 12.5, rule: null, confidence: "high" },
  },
  // contract conditions
  {
    name: "contract 'above 100 m2' is not met at exactly 100",
    docs: [PORCELANOSA_LIST, PORCELANOSA_CONTRACT],
    input: { product_name: "x", sku: "PO-120", quantity: 100, unit: "m²" },
    expect: { discount: 0, final: 89, confidence: "high", codes: ["rule_condition_not_met"] },
  },
  {
    name: "contract 'above 100 m2' applies at 101",
    docs: [PORCELANOSA_LIST, PORCELANOSA_CONTRACT],
    input: { product_name: "x", sku: "PO-120", quantity: 101, unit: "sqm" },
    expect: { discount: 12, final: 78.32, total: 7910.32, confidence: "high", rule: "doc-porc-contract" },
  },
  {
    name: "contract condition without a quantity: not applied, caveat",
    docs: [PORCELANOSA_LIST, PORCELANOSA_CONTRACT],
    input: { product_name: "x", sku: "PO-120" },
    expect: { discount: 0, final: 89, confidence: "medium", codes: ["rule_condition_unverifiable"] },
  },
  // promotion dates (inclusive)
  {
    name: "promotion on its first day applies",
    docs: [MARAZZI_LIST, SPRING_PROMO],
    input: { product_name: "x", sku: "MZ-2", quantity: 10, today: "2026-03-01" },
    expect: { discount: 10, final: 35.91, total: 359.1, confidence: "high", through: "2026-04-30" },
  },
  {
    name: "promotion on its last day applies",
    docs: [MARAZZI_LIST, SPRING_PROMO],
    input: { product_name: "x", sku: "MZ-2", quantity: 10, today: "2026-04-30" },
    expect: { discount: 10, final: 35.91 },
  },
  {
    name: "promotion the day after it ends is ignored with a warning",
    docs: [MARAZZI_LIST, SPRING_PROMO],
    input: { product_name: "x", sku: "MZ-2", quantity: 10, today: "2026-05-01" },
    expect: {
      discount: 0,
      final: 39.9,
      confidence: "medium",
      codes: ["expired_rule_ignored"],
      through: null,
    },
  },
  {
    name: "promotion the day before it starts is ignored (info)",
    docs: [MARAZZI_LIST, SPRING_PROMO],
    input: { product_name: "x", sku: "MZ-2", quantity: 10, today: "2026-02-28" },
    expect: { discount: 0, final: 39.9, confidence: "high", codes: ["future_rule_ignored"] },
  },
  {
    // The lapsed SKU promotion would have beaten the manufacturer rule: a person should check it.
    name: "an expired SKU promotion next to a valid manufacturer rule is a caveat",
    docs: [MAPEI_LIST, MAPEI_DISCOUNTS, MP100_PROMO],
    input: { product_name: "x", sku: "MP-100", quantity: 10, today: "2026-05-02" },
    expect: { discount: 15, final: 10.63, confidence: "medium", codes: ["expired_rule_ignored"] },
  },
  // validity, units, currency, conflicts
  {
    name: "only expired price lists: no price",
    docs: [x1("old", "10.00 €", "Valid 01.01.2025 - 31.12.2025")],
    input: { product_name: "Widget", sku: "X-1" },
    expect: { final: null, confidence: "low", codes: ["only_expired_prices"] },
  },
  {
    name: "an expired list superseded by a valid one",
    docs: [
      x1("old", "10.00 €", "Valid 01.01.2025 - 31.12.2025"),
      x1("new", "11.00 €", "Valid from 2026-01-01"),
    ],
    input: { product_name: "Widget", sku: "X-1" },
    expect: { final: 11, confidence: "high", sources: ["new"], codes: ["expired_price_list_ignored"] },
  },
  {
    name: "unit mismatch is a gap, never converted",
    docs: [MAPEI_LIST],
    input: { product_name: "x", sku: "MP-100", quantity: 10, unit: "m2" },
    expect: { final: null, confidence: "low", codes: ["unit_mismatch"], warns: [/per m2.*per bag/] },
  },
  {
    name: "unit spellings agree (m² = sqm)",
    docs: [MARAZZI_LIST],
    input: { product_name: "x", sku: "MZ-1", quantity: 10, unit: "m²" },
    expect: { final: 64, unit: "m2", confidence: "high" },
  },
  {
    name: "a requested unit against a price without unit is a gap",
    docs: [KEOPE_LIST],
    input: { product_name: "x", sku: "K-1", unit: "m2" },
    expect: { final: null, confidence: "low", codes: ["unit_not_stated"] },
  },
  {
    name: "several units and none requested is a gap",
    docs: [
      doc(
        "a",
        "price_list",
        "A",
        "| SKU | Product | Unit | Price |\n|---|---|---|---|\n| X-2 | Tile | box | 30,00 € |",
      ),
      doc(
        "b",
        "price_list",
        "B",
        "| SKU | Product | Unit | Price |\n|---|---|---|---|\n| X-2 | Tile | m2 | 20,00 € |",
      ),
    ],
    input: { product_name: "x", sku: "X-2" },
    expect: { final: null, codes: ["several_units"] },
  },
  {
    name: "no currency stated anywhere is a gap",
    docs: [
      doc(
        "n",
        "price_list",
        "N",
        "| SKU | Product | Unit | Price |\n|---|---|---|---|\n| N-1 | Thing | piece | 10.00 |",
      ),
    ],
    input: { product_name: "x", sku: "N-1" },
    expect: { final: null, codes: ["currency_not_stated"] },
  },
  {
    name: "conflicting list prices without dates: no price, both documents cited",
    docs: [x1("a", "10.00 €"), x1("b", "12.00 €")],
    input: { product_name: "Widget", sku: "X-1" },
    expect: {
      final: null,
      confidence: "low",
      codes: ["conflicting_list_prices"],
      sources: ["a", "b"],
      warns: [/10\.00.*12\.00/],
    },
  },
  {
    name: "conflict settled by the strictly newer 'valid from': medium",
    docs: [x1("a", "10.00 €", "Valid from 2026-01-01"), x1("b", "12.00 €", "Valid from 2026-02-01")],
    input: { product_name: "Widget", sku: "X-1" },
    expect: { final: 12, confidence: "medium", codes: ["conflict_resolved_by_date"], sources: ["b"] },
  },
  {
    name: "conflict with equal 'valid from' dates stays a conflict",
    docs: [x1("a", "10.00 €", "Valid from 2026-01-01"), x1("b", "12.00 €", "Valid from 2026-01-01")],
    input: { product_name: "Widget", sku: "X-1" },
    expect: { final: null, codes: ["conflicting_list_prices"] },
  },
  {
    name: "the same price in two documents is one base price citing both",
    docs: [x1("a", "10.00 €"), x1("b", "10,00 €")],
    input: { product_name: "Widget", sku: "X-1" },
    expect: { final: 10, confidence: "high", sources: ["a", "b"] },
  },
  {
    name: "an invalid quantity is a gap",
    docs: [MAPEI_LIST],
    input: { product_name: "x", sku: "MP-100", quantity: 0.12345 },
    expect: { final: null, codes: ["invalid_quantity"] },
  },
];

lookupCases(cases);
