/** Prose price lines, document-wide declarations and rule lines keyed by article numbers. */
import assert from "node:assert/strict";
import {
  findDateRange,
  parsePriceDocument,
  type PriceListEntry,
  type RuleEntry,
  validatePriceDocument,
} from "../../../../packages/shared/pricing/mod.ts";
import { extractScope, isSkuShaped } from "../../../../packages/shared/pricing/parse/scope.ts";
import { doc } from "../helpers.ts";

Deno.test("prose price list: each price line is an entry citing its own line", () => {
  const parsed = parsePriceDocument(doc(
    "p",
    "price_list",
    "Prose",
    [
      "Manufacturer: Mapei",
      "All prices in EUR per bag, valid from 2026-01-01",
      "",
      "- MP-100 Keraflex Maxi S1 grey 25 kg: 12,50",
      "Ardex X 77 adhesive (AX-77) ........ EUR 18.90 per bag",
      "Art.-Nr. JOLLY-A100: Schlüter JOLLY 10 mm - 7,95 EUR/piece",
      "- FL-B60 Buxy 60x60: 34,00 €/m², from 100 m² 31,50 €/m²",
      "Minimum order value: 250,00 EUR",
    ].join("\n"),
  ));
  const got = (parsed.entries as PriceListEntry[]).map((e) => [
    e.source.line,
    e.sku,
    e.product_name,
    e.currency,
    e.unit,
    e.manufacturer,
    e.valid_from,
    e.tiers.map((t) => `${t.min_qty}:${t.price}`).join(" "),
  ]);
  assert.deepEqual(got, [
    [4, "MP-100", "Keraflex Maxi S1 grey 25 kg", "EUR", "bag", "Mapei", "2026-01-01", "0:12.5"],
    [5, "AX-77", "Ardex X 77 adhesive", "EUR", "bag", "Mapei", "2026-01-01", "0:18.9"],
    [6, "JOLLY-A100", "Schlüter JOLLY 10 mm", "EUR", "piece", "Mapei", "2026-01-01", "0:7.95"],
    [7, "FL-B60", "Buxy 60x60", "EUR", "m2", "Mapei", "2026-01-01", "0:34 100:31.5"],
  ]);
  // Not a product price; since issue 32 every line with an amount is accounted for: this one is
  // reported as an order-level amount (only mentioned at lookup, never a caveat).
  assert.deepEqual(parsed.issues.map((i) => [i.line, i.code]), [[8, "order_level_amount"]]);
  assert.deepEqual(parsed.unparsed.map((u) => [u.source.line, u.severity]), [[8, "info"]]);
});

Deno.test("prose price list: what cannot be read is a warning naming the line, never a guess", () => {
  const v = validatePriceDocument(
    "price_list",
    "- SL-1 Slab 20 mm: 1.250 €\n- SL-2 Slab 30 mm: 12 € / 14 €\n- SL-3 Slab 40 mm: 20 €",
  );
  assert.ok(v.ok);
  assert.equal(v.entry_count, 1);
  assert.match(v.warnings[0], /^line 1: ambiguous separator in "1\.250 €"/);
  assert.match(v.warnings[1], /^line 2: line states several prices without the quantity/);
  const none = validatePriceDocument("price_list", "- SL-1 Slab 20 mm: 1.250 €");
  assert.ok(!none.ok);
  assert.match(none.errors[0], /not usable: line 1: ambiguous separator/);
});

Deno.test("declarations: currency and unit stated once reach tier tables above and below", () => {
  for (
    const [where, content] of [
      [
        "heading",
        "## Grande 2026 (EUR / m2)\n\n| Code | 1-99 | 100+ |\n|---|---|---|\n| MZ-1 | 64,00 | 58,50 |",
      ],
      [
        "caption",
        "| Code | 1-99 | 100+ |\n|---|---|---|\n| MZ-1 | 64,00 | 58,50 |\n\n*All prices in EUR per m², net*",
      ],
      [
        "sentence",
        "All prices in EUR per m2.\n| Code | from 1 m2 | from 100 m2 |\n|---|---|---|\n| MZ-1 | 64,00 | 58,50 |",
      ],
    ]
  ) {
    const [e] = parsePriceDocument(doc("d", "price_list", "D", content)).entries as PriceListEntry[];
    assert.deepEqual([e.currency, e.unit, e.tiers.map((t) => t.min_qty)], ["EUR", "m2", ["1", "100"]], where);
    assert.equal(e.vat_included, null, where);
  }
  const [gross] = parsePriceDocument(
    doc(
      "g",
      "price_list",
      "G",
      "All prices in EUR incl. 19% VAT.\n| SKU | Unit | Price |\n|---|---|---|\n| X-1 | m2 | 9,99 |",
    ),
  ).entries as PriceListEntry[];
  assert.deepEqual(gross.vat_included, { line: 1, snippet: "All prices in EUR incl. 19% VAT." });
});

Deno.test("rule scope: article numbers opening a line, SKU prefixes, collections", () => {
  const cases: Array<[string, Partial<ReturnType<typeof extractScope>>]> = [
    ["MP-100: 10% off", { skus: ["MP-100"], manufacturers: [] }],
    ["MZ-1 Grande Marble Look 120x240: 59.00 EUR per m2", { skus: ["MZ-1"], manufacturers: [] }],
    ["Aktion: VB-5614R0 Subway 3.0 WC für 599,00 €", { skus: ["VB-5614R0"] }],
    ["Item DT-RS0612: 20% off", { skus: ["DT-RS0612"], manufacturers: [] }],
    ["All SKUs starting with JOLLY-: 20% off", {
      skus: [],
      manufacturers: [],
      sku_prefixes: ["JOLLY-"],
      all: false,
    }],
    ["7.5% on all articles beginning with AC-M", { sku_prefixes: ["AC-M"], all: false }],
    ["12% off the Grande collection", { manufacturers: [], product_keywords: [], collections: ["grande"] }],
    ["Mapei: 10%", { skus: [], manufacturers: ["Mapei"] }],
    ["Spring deal: 12% off Ardex", { skus: [], manufacturers: ["Ardex"] }],
  ];
  for (const [text, expect] of cases) {
    const got = extractScope(text);
    for (const [k, v] of Object.entries(expect)) {
      assert.deepEqual(got[k as keyof typeof got], v, `${k}: ${text}`);
    }
  }
  assert.deepEqual(
    ["MP-100", "KK-BIO", "VB-4A1001", "4005176", "2026", "Mapei", "S1", "60x60", "12.50"].map(isSkuShaped),
    [true, true, true, true, false, false, false, false, false],
  );
});

Deno.test("promotion keyed by SKU with a fixed price is a SKU promotion price", () => {
  const [p] = parsePriceDocument(doc(
    "p",
    "promotion",
    "P",
    "MZ-1 Grande Marble Look 120x240: 59.00 EUR per m2, valid 01.05.2026 to 31.05.2026",
  )).entries as RuleEntry[];
  assert.equal(p.kind, "promotion");
  if (p.kind !== "promotion") return;
  assert.deepEqual([p.scope.skus, p.price, p.currency, p.unit, p.valid_from, p.valid_to], [
    ["MZ-1"],
    "59",
    "EUR",
    "m2",
    "2026-05-01",
    "2026-05-31",
  ]);
});

Deno.test("date ranges: days of one written month", () => {
  assert.deepEqual(
    [findDateRange("1-31 May 2026"), findDateRange("1.–15. März 2026"), findDateRange("31-1 May 2026")].map((
      r,
    ) => r && [r.from, r.to]),
    [["2026-05-01", "2026-05-31"], ["2026-03-01", "2026-03-15"], null],
  );
});
