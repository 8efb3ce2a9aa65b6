/**
 * Table-driven unit tests: reading a competitor's price off a page (monitoring/extract.ts: the
 * selector hint, structured data with sku and name hints, four decimals at most). The re-rank
 * order check is in tests/unit/rerank/mod_test.ts.
 */
import assert from "node:assert/strict";
import { type ExtractionHints, extractPrice } from "@shared/monitoring/extract.ts";

const NO_HINTS: ExtractionHints = {
  price_selector: null,
  sku_hint: null,
  name_hint: null,
  default_currency: null,
};
const ld = (products: Record<string, unknown>[]) =>
  `<script type="application/ld+json">${JSON.stringify(products)}</script>`;
const PAGE = ld([
  {
    "@type": "Product",
    name: "Oak parquet 14 mm",
    sku: "OAK-14",
    offers: { price: "49.90", priceCurrency: "EUR" },
  },
  {
    "@type": "Product",
    name: "Walnut parquet",
    sku: "WAL-1",
    offers: { price: 79.123456, priceCurrency: "usd" },
  },
]);

Deno.test("extractPrice: selector, structured data, hints, rounding", () => {
  const cases: [string, string, Partial<ExtractionHints>, unknown][] = [
    ["first structured product", PAGE, {}, { ok: true, price: "49.90", currency: "EUR", via: "json-ld" }],
    ["sku hint", PAGE, { sku_hint: "wal-1" }, {
      ok: true,
      price: "79.1235",
      currency: "USD",
      via: "json-ld",
    }],
    ["name hint", PAGE, { name_hint: "walnut" }, {
      ok: true,
      price: "79.1235",
      currency: "USD",
      via: "json-ld",
    }],
    ["unknown sku", PAGE, { sku_hint: "X" }, { ok: false, reason: "no product with sku X on the page" }],
    [
      "selector with thousands separators",
      `<p class="price">1.234,50 €</p>`,
      { price_selector: ".price", default_currency: "EUR" },
      { ok: true, price: "1234.50", currency: "EUR", via: "selector" },
    ],
    [
      "selector on a meta tag",
      `<meta itemprop="price" content="12.5">`,
      { price_selector: "meta[itemprop=price]" },
      { ok: true, price: "12.5", currency: null, via: "selector" },
    ],
    [
      "selector without a price",
      `<p class="price">call us</p>`,
      { price_selector: ".price" },
      { ok: false, reason: "price_selector .price holds no price: call us" },
    ],
    [
      "selector matching nothing",
      `<p>1</p>`,
      { price_selector: ".price" },
      { ok: false, reason: "price_selector .price matches nothing on the page" },
    ],
  ];
  for (const [name, html, hints, want] of cases) {
    assert.deepEqual(extractPrice(html, "https://shop.example/p", { ...NO_HINTS, ...hints }), want, name);
  }
  const none = extractPrice("<p>no data</p>", "https://shop.example/p", NO_HINTS);
  assert.equal(none.ok, false);
});
