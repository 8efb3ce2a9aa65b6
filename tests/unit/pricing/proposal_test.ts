import assert from "node:assert/strict";
import {
  buildPriceIndex,
  lookupPrice,
  MAX_MATCHES,
  type PriceEntry,
  priceLookupMatchesChunk,
  PriceLookupParamsSchema,
  PriceProposalSchema,
} from "../../../packages/shared/pricing/mod.ts";
import {
  doc,
  MAPEI_DISCOUNTS,
  MAPEI_LIST,
  MARAZZI_LIST,
  MP100_PROMO,
  parsed,
  PORCELANOSA_CONTRACT,
  PORCELANOSA_LIST,
  SPRING_PROMO,
  WORKSPACE_DOCS,
} from "./helpers.ts";

const TODAY = "2026-03-15";
const SPEC_FIELDS = [
  "type",
  "product_id",
  "product_name",
  "list_price",
  "discount_percent",
  "final_unit_price",
  "currency",
  "unit",
  "quantity_applied",
  "total",
  "source_doc_ids",
  "source_titles",
  "reasoning_chain",
  "warnings",
  "confidence",
  "effective_through",
];

Deno.test("proposal: carries exactly the spec's fields; product_id only when given", () => {
  const pid = "0b9c3a52-8a43-4a8e-9a52-1c2d3e4f5a6b";
  const withId = lookupPrice(
    { product_name: "x", sku: "MP-100", quantity: 10, product_id: pid, today: TODAY },
    parsed(MAPEI_LIST),
  ).proposal;
  assert.deepEqual(Object.keys(withId).sort(), [...SPEC_FIELDS].sort());
  assert.equal(withId.type, "price_proposal");
  assert.equal(withId.product_id, pid);
  PriceProposalSchema.parse(withId);
  const withoutId =
    lookupPrice({ product_name: "nothing like it", today: TODAY }, parsed(MAPEI_LIST)).proposal;
  assert.deepEqual(Object.keys(withoutId).sort(), SPEC_FIELDS.filter((f) => f !== "product_id").sort());
  PriceProposalSchema.parse(withoutId);
});

Deno.test("proposal: every number traces to a quoted snippet and a cited document", () => {
  const docs = [MARAZZI_LIST, SPRING_PROMO, MAPEI_DISCOUNTS];
  const { proposal: p } = lookupPrice({
    product_name: "x",
    sku: "MZ-1",
    quantity: 120,
    unit: "m2",
    today: TODAY,
  }, parsed(...docs));
  assert.deepEqual([p.list_price, p.discount_percent, p.final_unit_price, p.total], [58.5, 10, 52.65, 6318]);
  assert.deepEqual(p.source_doc_ids, ["doc-marazzi", "doc-spring"]);
  assert.deepEqual(p.source_titles, ["Marazzi list", "Spring promo"]);
  const chain = p.reasoning_chain.join("\n");
  // The list price step quotes the exact tier row, the discount step the exact rule sentence.
  assert.ok(chain.includes("«| MZ-1 | Grande Marble Look tiles 120x240 | sqm | 100 | 58,50 |»"), chain);
  assert.ok(chain.includes("«Spring promo 10% off Marazzi tiles, valid 2026-03-01 to 2026-04-30»"), chain);
  for (const id of p.source_doc_ids) assert.ok(chain.includes(`[doc ${id}]`), `${id} cited`);
  assert.ok(chain.includes("58.50 x (1 - 10/100) = 52.65 -> 52.65 EUR per m2"), chain);
  assert.ok(chain.includes("Total = 52.65 x 120 = 6318.00 EUR"), chain);
  // Why this rule: most specific (manufacturer + confirmed category) beats all-products, no stacking.
  assert.ok(/most specific.*do not stack.*less specific \(all\)/s.test(chain), chain);
});

Deno.test("proposal: a fixed SKU promotion price shows how its percent was derived", () => {
  const { proposal: p } = lookupPrice(
    { product_name: "x", sku: "MP-100", quantity: 3, today: TODAY },
    parsed(MAPEI_LIST, MP100_PROMO),
  );
  const chain = p.reasoning_chain.join("\n");
  assert.ok(chain.includes("Promotion price 9.90 EUR per bag"), chain);
  assert.ok(chain.includes("(1 - 9.90 / 12.50) x 100 = 20.8%"), chain);
  assert.ok(
    chain.includes(
      "«- Promo price for SKU MP-100: 9,90 €/bag instead of 12,50 €, from 1 March 2026 until 30 April 2026»",
    ),
  );
  assert.equal(p.effective_through, "2026-04-30");
});

Deno.test("proposal: a gap still cites the documents involved and says why there is no price", () => {
  const a = doc(
    "a",
    "price_list",
    "List A",
    "| SKU | Product | Unit | Price |\n|---|---|---|---|\n| X-1 | Widget | piece | 10.00 € |",
  );
  const b = doc(
    "b",
    "price_list",
    "List B",
    "| SKU | Product | Unit | Price |\n|---|---|---|---|\n| X-1 | Widget | piece | 12.00 € |",
  );
  const { proposal: p, matches, hints } = lookupPrice({
    product_name: "Widget",
    sku: "X-1",
    quantity: 2,
    today: TODAY,
  }, parsed(a, b));
  assert.equal(p.final_unit_price, null);
  assert.equal(p.currency, "EUR");
  assert.deepEqual(p.source_doc_ids, ["a", "b"]);
  assert.match(p.reasoning_chain.at(-1)!, /^No reliable price: conflicting_list_prices$/);
  assert.equal(hints.conflict, true);
  assert.deepEqual(matches.map((m) => [m.doc_id, m.status, m.used]), [["a", "conflict", false], [
    "b",
    "conflict",
    false,
  ]]);
});

Deno.test("matches and hints: documented shapes, used entries first, snippets verbatim", () => {
  const docs = parsed(...WORKSPACE_DOCS);
  const result = lookupPrice({
    product_name: "Marmol Carrara 120x120",
    manufacturer: "Porcelanosa",
    quantity: 150,
    unit: "m2",
    today: TODAY,
  }, docs);
  const { proposal: p, matches, hints } = result;
  assert.equal(p.final_unit_price, 78.32);
  assert.equal(p.confidence, "medium");
  const keys = [
    "doc_id",
    "doc_title",
    "price_doc_type",
    "line",
    "snippet",
    "entry_kind",
    "matched_on",
    "strength",
    "used",
    "status",
    "note",
  ];
  for (const m of matches) {
    assert.deepEqual(Object.keys(m).sort(), [...keys].sort());
    assert.ok(m.strength >= 0 && m.strength <= 1);
    const source = WORKSPACE_DOCS.find((d) => d.id === m.doc_id)!;
    assert.ok(source.content.includes(m.snippet.split("\n")[0]), m.snippet);
    assert.equal(m.price_doc_type, source.price_doc_type);
  }
  assert.deepEqual(matches.filter((m) => m.used).map((m) => [m.doc_id, m.matched_on]), [
    ["doc-porc", "name"],
    ["doc-porc-contract", "rule_manufacturer"],
  ]);
  assert.ok(matches.findIndex((m) => !m.used) > matches.findLastIndex((m) => m.used));
  assert.deepEqual(p.source_doc_ids, matches.filter((m) => m.used).map((m) => m.doc_id));
  assert.equal(hints.match_method, "name");
  assert.equal(hints.sku_matched, false);
  assert.equal(hints.manufacturer_filter_applied, true);
  assert.equal(hints.manufacturer, "Porcelanosa");
  assert.ok(hints.candidates_considered >= 2 && hints.best_name_score! >= 0.5);
  assert.deepEqual(hints.rule_applied, {
    kind: "contract_terms",
    doc_id: "doc-porc-contract",
    line: 1,
    level: "manufacturer",
    percent: "12",
    price: null,
  });
  assert.deepEqual(hints.tiers, [{ min_qty: "0", max_qty: null, price: "89", selected: true }]);
  assert.equal(hints.unit_requested, "m2");
  assert.equal(hints.today, TODAY);
  assert.ok(
    hints.warnings.every((w) =>
      ["gap", "doubt", "caveat", "info"].includes(w.severity) && w.code && w.message
    ),
  );
  assert.equal(
    hints.counts_by_type.price_list + hints.counts_by_type.discount_rule +
      hints.counts_by_type.contract_terms + hints.counts_by_type.promotion,
    matches.length,
  );
  const chunk = priceLookupMatchesChunk(result);
  assert.deepEqual(Object.keys(chunk), ["type", "matches", "hints"]);
  assert.equal(chunk.type, "price_lookup_matches");
  assert.doesNotThrow(() => JSON.parse(JSON.stringify(chunk)));
});

Deno.test("matches: capped at MAX_MATCHES, the used ones always kept", () => {
  const rules = Array.from(
    { length: 40 },
    (_, i) => `- ${i + 1}% off all products, valid until ${i < 20 ? "2025" : "2027"}-12-31`,
  ).join("\n");
  const { matches, proposal } = lookupPrice(
    { product_name: "x", sku: "MP-100", quantity: 1, today: TODAY },
    parsed(MAPEI_LIST, doc("many", "discount_rule", "Many", rules)),
  );
  assert.equal(matches.length, MAX_MATCHES);
  assert.equal(proposal.discount_percent, 40);
  assert.ok(matches.some((m) => m.used && m.doc_id === "many" && m.snippet.startsWith("- 40%")));
});

Deno.test("lookup is deterministic: same answer from an index, reloaded JSON entries and shuffled documents", () => {
  const input = { product_name: "Keraflex Maxi S1 grey", manufacturer: "Mapei", quantity: 75, today: TODAY };
  const docs = parsed(...WORKSPACE_DOCS, MP100_PROMO, PORCELANOSA_CONTRACT, PORCELANOSA_LIST);
  const first = lookupPrice(input, docs);
  assert.deepEqual(lookupPrice(input, buildPriceIndex(docs)), first);
  const stored: PriceEntry[] = JSON.parse(JSON.stringify(docs.flatMap((d) => d.entries)));
  assert.deepEqual(lookupPrice(input, stored), first);
  assert.deepEqual(lookupPrice(input, [...docs].reverse()).proposal, first.proposal);
  assert.equal(first.proposal.final_unit_price, 9.9);
});

Deno.test("tool parameters schema: the spec's price_lookup parameters", () => {
  assert.ok(
    PriceLookupParamsSchema.safeParse({
      product_name: "Keraflex",
      sku: "MP-100",
      manufacturer: "Mapei",
      quantity: 12.5,
      unit: "m2",
      category_slug: "pricing",
    }).success,
  );
  assert.ok(!PriceLookupParamsSchema.safeParse({ sku: "MP-100" }).success, "product_name is required");
  assert.ok(!PriceLookupParamsSchema.safeParse({ product_name: "x", quantity: -1 }).success);
  assert.ok(!PriceLookupParamsSchema.safeParse({ product_name: "x", product_id: "not-a-uuid" }).success);
});

Deno.test("marazzi tier + promotion + all-products rule do not stack", () => {
  const { proposal: p } = lookupPrice(
    { product_name: "x", sku: "MZ-1", quantity: 10, today: TODAY },
    parsed(MARAZZI_LIST, SPRING_PROMO, MAPEI_DISCOUNTS),
  );
  // 64.00 x 0.9 = 57.60 (the 10% promotion), not 64 x 0.9 x 0.95.
  assert.deepEqual([p.list_price, p.discount_percent, p.final_unit_price, p.total], [64, 10, 57.6, 576]);
});
