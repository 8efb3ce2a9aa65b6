/** Search shaping: quick-pick fields, caller access levels, slugs, and the pricing gate. */
import assert from "node:assert/strict";
import {
  allowedAccessLevels,
  checkPriceDocument,
  type HybridRow,
  isQuickPick,
  QUICK_PICK_FIELDS,
  slugify,
  toQuickPick,
  toSearchHit,
} from "../../../packages/shared/kb/mod.ts";

const row: HybridRow = {
  chunk_id: "c1",
  doc_id: "d1",
  document_title: "Mapei price list",
  content: "| MP-100 | Keraflex | 12,50 |",
  chunk_index: 0,
  heading: "Mapei",
  category_id: "cat",
  category_slug: "pricing",
  category_name: "Pricing",
  access_level: "admin",
  price_doc_type: "price_list",
  status: "published",
  vector_score: 0.61234567,
  text_score: 0.2,
  relevance_score: 0.488641969,
};

Deno.test("a quick-pick result has exactly the spec's seven fields; id is the kb_docs id", () => {
  const q = toQuickPick(row);
  assert.deepEqual(Object.keys(q).sort(), [...QUICK_PICK_FIELDS].sort());
  assert.deepEqual(q, {
    id: "d1",
    document_title: "Mapei price list",
    content: "| MP-100 | Keraflex | 12,50 |",
    category_slug: "pricing",
    category_name: "Pricing",
    price_doc_type: "price_list",
    relevance_score: 0.488642,
  });
});

Deno.test("a search hit carries category_slug, category_name and price_doc_type", () => {
  const h = toSearchHit(row);
  for (const k of ["category_slug", "category_name", "price_doc_type", "relevance_score", "chunk_id"]) {
    assert.ok(k in h, k);
  }
});

Deno.test("caller kinds and explicit access levels intersect", () => {
  for (
    const [caller, explicit, expected] of [
      ["public", undefined, ["public"]],
      ["agent", undefined, ["public", "member", "admin"]],
      ["admin", ["admin"], ["admin"]],
      ["public", ["admin"], []],
      [null, ["member"], ["member"]],
      [null, undefined, null],
    ] as const
  ) {
    assert.deepEqual(
      allowedAccessLevels(caller, explicit as never),
      expected === null ? null : [...expected],
    );
  }
});

Deno.test("quick pick is the pricing slug; slugs from names", () => {
  assert.equal(isQuickPick("pricing"), true);
  assert.equal(isQuickPick("Pricing"), false);
  assert.equal(isQuickPick(undefined), false);
  assert.equal(slugify("Tiles & Adhesives 2026"), "tiles-adhesives-2026");
  assert.equal(slugify("Préisliste Ü"), "preisliste-u");
  assert.equal(slugify("***"), "category");
});

Deno.test("pricing documents: a promotion needs its effective date range", () => {
  for (
    const [type, content, ok] of [
      ["promotion", "Spring promo 10% off Marazzi tiles, valid 2026-03-01 to 2026-04-30", true],
      ["promotion", "Spring promo 10% off Marazzi tiles", false],
      ["promotion", "Spring promo 10% off Marazzi tiles from 2026-03-01", false],
      ["discount_rule", "- All Mapei products 15% off", true],
      ["price_list", "| SKU | Price |\n|---|---|\n| MP-1 | 12,50 EUR |", true],
      ["price_list", "no table at all", false],
      ["bogus", "x", false],
    ] as const
  ) {
    const r = checkPriceDocument(type, content);
    assert.equal(r.ok, ok, `${type}: ${content}: ${JSON.stringify(r)}`);
  }
});
