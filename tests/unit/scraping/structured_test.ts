/** Structured product extraction: JSON-LD (top level, arrays, @graph, variants), microdata, OpenGraph, prices. */
import assert from "node:assert/strict";
import {
  extractStructuredProducts,
  normalizePrice,
  structuredDataIssues,
} from "../../../packages/shared/scraping/structured.ts";
import { storable } from "../../../packages/shared/scraping/runner.ts";

const PAGE = "https://shop.example.com/tiles/oak-1";
const ld = (v: unknown) => `<script type="application/ld+json">${JSON.stringify(v)}</script>`;
const page = (head: string, body = "") =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

Deno.test("normalizePrice: numbers and strings become decimal strings", () => {
  const cases: [unknown, string | undefined][] = [
    [19.9, "19.9"],
    [1e21, "1000000000000000000000"],
    [0, "0"],
    ["19.90", "19.90"],
    ["€ 1,234.50", "1234.50"],
    ["1.234,50 €", "1234.50"],
    ["12,5", "12.5"],
    ["1,234", "1234"],
    ["1.234.567", "1234567"],
    ["$0049.00", "49.00"],
    ["free", undefined],
    ["", undefined],
    ["-5", undefined],
    [-5, undefined],
    [NaN, undefined],
    [null, undefined],
    [true, undefined],
  ];
  for (const [input, want] of cases) {
    assert.equal(normalizePrice(input as never), want, `normalizePrice(${JSON.stringify(input)})`);
  }
});

Deno.test("JSON-LD: a plain Product with an Offer", () => {
  const html = page(ld({
    "@context": "https://schema.org",
    "@type": "Product",
    name: "Oak Floor Tile",
    description: "  Solid   oak ",
    sku: "OAK-1",
    brand: { "@type": "Brand", name: "Woodcraft" },
    image: ["/img/oak.jpg", "/img/oak2.jpg"],
    gtin13: "4006381333931",
    offers: {
      "@type": "Offer",
      price: 49.5,
      priceCurrency: "eur",
      availability: "https://schema.org/InStock",
      url: "/tiles/oak-1?v=1",
    },
  }));
  assert.deepEqual(extractStructuredProducts(html, PAGE), [{
    name: "Oak Floor Tile",
    description: "Solid oak",
    sku: "OAK-1",
    brand: "Woodcraft",
    price: "49.5",
    currency: "EUR",
    availability: "InStock",
    image: "https://shop.example.com/img/oak.jpg",
    url: "https://shop.example.com/tiles/oak-1?v=1",
    gtin: "4006381333931",
    source: "json-ld",
  }]);
});

Deno.test("JSON-LD: @graph, arrays, type arrays, AggregateOffer, priceSpecification, variants, ItemList", () => {
  const cases: {
    label: string;
    data: unknown;
    want: { name: string; price?: string; currency?: string }[];
  }[] = [
    {
      label: "@graph with other nodes",
      data: {
        "@context": "https://schema.org",
        "@graph": [
          { "@type": "WebPage", name: "Page" },
          { "@type": "Organization", name: "Shop" },
          { "@type": "Product", name: "Tile A", offers: { price: "10.00", priceCurrency: "USD" } },
        ],
      },
      want: [{ name: "Tile A", price: "10.00", currency: "USD" }],
    },
    {
      label: "top-level array, offers array (first priced one wins)",
      data: [
        { "@type": "BreadcrumbList" },
        {
          "@type": ["Product", "Thing"],
          name: "Tile B",
          offers: [{ "@type": "Offer", availability: "OutOfStock" }, { price: 12, priceCurrency: "GBP" }],
        },
      ],
      want: [{ name: "Tile B", price: "12", currency: "GBP" }],
    },
    {
      label: "AggregateOffer lowPrice",
      data: {
        "@type": "Product",
        name: "Tile C",
        offers: { "@type": "AggregateOffer", lowPrice: "7.25", highPrice: "9", priceCurrency: "EUR" },
      },
      want: [{ name: "Tile C", price: "7.25", currency: "EUR" }],
    },
    {
      label: "priceSpecification",
      data: {
        "@type": "http://schema.org/Product",
        name: "Tile D",
        offers: { "@type": "Offer", priceSpecification: { price: "3.10", priceCurrency: "CHF" } },
      },
      want: [{ name: "Tile D", price: "3.10", currency: "CHF" }],
    },
    {
      label: "ProductGroup variants",
      data: {
        "@type": "ProductGroup",
        name: "Tile family",
        hasVariant: [
          { "@type": "Product", name: "Tile E small", offers: { price: 1, priceCurrency: "EUR" } },
          { "@type": "Product", name: "Tile E large", offers: { price: 2, priceCurrency: "EUR" } },
        ],
      },
      want: [
        { name: "Tile E small", price: "1", currency: "EUR" },
        { name: "Tile E large", price: "2", currency: "EUR" },
      ],
    },
    {
      label: "ItemList of products",
      data: {
        "@type": "ItemList",
        itemListElement: [
          { "@type": "ListItem", position: 1, item: { "@type": "Product", name: "Tile F" } },
          { "@type": "ListItem", position: 2, item: { "@type": "Product", name: "Tile G" } },
        ],
      },
      want: [{ name: "Tile F" }, { name: "Tile G" }],
    },
    { label: "product without a name is skipped", data: { "@type": "Product", sku: "X" }, want: [] },
    { label: "no product", data: { "@type": "Article", name: "Blog" }, want: [] },
  ];
  for (const c of cases) {
    const got = extractStructuredProducts(page(ld(c.data)), PAGE).map((p) => {
      const o: { name: string; price?: string; currency?: string } = { name: p.name };
      if (p.price) o.price = p.price;
      if (p.currency) o.currency = p.currency;
      return o;
    });
    assert.deepEqual(got, c.want, c.label);
  }
});

Deno.test("JSON-LD: a broken block is skipped and reported, a good one still read", () => {
  const html = page(
    `<script type="application/ld+json">{ "@type": "Product", name: broken</script>` +
      ld({ "@type": "Product", name: "Good tile" }),
  );
  const got = extractStructuredProducts(html, PAGE);
  assert.deepEqual(got.map((p) => p.name), ["Good tile"]);
  assert.equal(structuredDataIssues(got).length, 1);
  assert.match(structuredDataIssues(got)[0], /invalid JSON-LD/);
});

Deno.test("microdata: product with nested offer and brand scopes", () => {
  const body = `
  <div itemscope itemtype="https://schema.org/Product">
    <h1 itemprop="name">Slate Tile</h1>
    <img itemprop="image" src="/img/slate.png">
    <p itemprop="description">Natural slate</p>
    <span itemprop="sku">SL-9</span>
    <div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Stoneworks</span></div>
    <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
      <meta itemprop="priceCurrency" content="usd">
      <span itemprop="price" content="1299.00">$1,299.00</span>
      <link itemprop="availability" href="https://schema.org/PreOrder">
    </div>
    <div itemscope itemtype="https://schema.org/Review"><span itemprop="name">Not the product name</span></div>
  </div>`;
  assert.deepEqual(extractStructuredProducts(page("", body), PAGE), [{
    name: "Slate Tile",
    description: "Natural slate",
    sku: "SL-9",
    brand: "Stoneworks",
    image: "https://shop.example.com/img/slate.png",
    price: "1299.00",
    currency: "USD",
    availability: "PreOrder",
    source: "microdata",
  }]);
});

Deno.test("microdata and JSON-LD of the same product are not doubled; OpenGraph only as a fallback", () => {
  const og = `<meta property="og:type" content="product"><meta property="og:title" content="Brick Red">
    <meta property="og:description" content="Clay brick"><meta property="og:image" content="/b.jpg">
    <meta property="product:price:amount" content="0,89"><meta property="product:price:currency" content="eur">
    <meta property="product:availability" content="in stock"><meta property="product:brand" content="Claywork">`;
  const micro = `<div itemscope itemtype="http://schema.org/Product"><span itemprop="name">Brick Red</span>
    <span itemprop="sku">BR-1</span></div>`;
  const both = page(ld({ "@type": "Product", name: "Brick Red", sku: "BR-1" }) + og, micro);
  assert.deepEqual(extractStructuredProducts(both, PAGE).map((p) => p.source), ["json-ld"]);

  const ogOnly = extractStructuredProducts(page(og), PAGE);
  assert.deepEqual(ogOnly, [{
    name: "Brick Red",
    description: "Clay brick",
    price: "0.89",
    currency: "EUR",
    availability: "in stock",
    brand: "Claywork",
    image: "https://shop.example.com/b.jpg",
    source: "opengraph",
  }]);

  // An OpenGraph article is no product.
  const article = page(
    `<meta property="og:type" content="article"><meta property="og:title" content="News">`,
  );
  assert.deepEqual(extractStructuredProducts(article, PAGE), []);
  assert.deepEqual(extractStructuredProducts("", PAGE), []);
  assert.deepEqual(extractStructuredProducts("<not really html", PAGE), []);
});

Deno.test("storable: prices the table cannot hold move to data.price_raw", () => {
  const base = { name: "X", source_url: PAGE, source: "llm" as const, data: {} };
  assert.deepEqual(storable({ ...base, price: "12.345678" }), { ...base, price: "12.345678" });
  assert.deepEqual(storable({ ...base, price: "9999999999.99" }), { ...base, price: "9999999999.99" });
  assert.deepEqual(storable({ ...base, price: "10000000000" }), {
    ...base,
    data: { price_raw: "10000000000" },
  });
  assert.deepEqual(storable(base), base);
});
