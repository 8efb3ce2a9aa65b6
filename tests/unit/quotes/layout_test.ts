// The quote PDF layout (stage one): which figures appear, pagination, and bounds, with a fake
// fixed-width font so the test does not depend on a PDF library.
import assert from "node:assert/strict";
import {
  type DrawOp,
  type FontMetrics,
  layoutQuote,
  MAX_CELL_LINES,
  PAGE,
  type QuoteDocument,
  type QuoteLine,
  type TextOp,
  toFontText,
} from "@shared/quotes/mod.ts";

const ascii = new Set(Array.from({ length: 95 }, (_, i) => 32 + i));
const fonts: FontMetrics = {
  measure: (text, _font, size) => text.length * size * 0.5,
  sanitize: (text) => toFontText(text, ascii),
};
const at = new Date("2026-03-04T10:00:00Z");

function line(i: number, over: Partial<QuoteLine> = {}): QuoteLine {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    position: i,
    product_id: null,
    label: `Tile model ${i}`,
    quantity: 2,
    unit: "m2",
    unit_price: 10,
    discounted_price: 9,
    effective_unit_price: 9,
    list_total: 20,
    line_total: 18,
    price_source: "manual",
    notes: "internal note",
    ...over,
  };
}

function doc(items: QuoteLine[], totals: Partial<QuoteDocument["totals"]> = {}): QuoteDocument {
  return {
    quote: {
      id: "11111111-1111-4111-8111-111111111111",
      workspace_id: "22222222-2222-4222-8222-222222222222",
      quote_number: "Q-2026-000042",
      title: "Bathroom renovation",
      customer_name: "Ada Customer",
      customer_email: "ada@example.com",
      customer_company: "Ada Ltd",
      customer_address: "1 Main Street\nSpringfield",
      currency: "EUR",
      status: "draft",
      valid_until: "2026-04-01",
      notes: "Delivery in two weeks.",
      issue_date: "2026-03-01",
    },
    items,
    totals: {
      item_count: items.length,
      unpriced_item_count: 0,
      subtotal: 20 * items.length,
      discount_total: 2 * items.length,
      total: 18 * items.length,
      currency: "EUR",
      ...totals,
    },
    fingerprint: "f",
    pdf: { storage_path: null, fingerprint: null, generated_at: null },
  };
}

const texts = (pages: DrawOp[][]) =>
  pages.flat().filter((o): o is TextOp => o.kind === "text").map((o) => o.text);

Deno.test("layout shows number, customer, every line with unit and discounted prices, totals", () => {
  const pages = layoutQuote(
    doc([
      line(1),
      line(2, {
        label: "Grout white",
        quantity: 1.5,
        unit_price: 4.125,
        discounted_price: null,
        line_total: 6.19,
        list_total: 6.19,
      }),
    ], {
      subtotal: 26.19,
      discount_total: 2,
      total: 24.19,
    }),
    fonts,
    at,
  );
  const all = texts(pages);
  for (
    const want of [
      "QUOTE",
      "Q-2026-000042",
      "2026-03-01",
      "2026-04-01",
      "Ada Customer",
      "Ada Ltd",
      "ada@example.com",
      "1 Main Street",
      "Springfield",
      "Bathroom renovation",
      "Tile model 1",
      "Grout white",
      "10.00",
      "9.00",
      "18.00",
      "1.5",
      "4.125",
      "6.19",
      "Subtotal",
      "26.19",
      "Discount",
      "-2.00",
      "Total (EUR)",
      "24.19",
      "Delivery in two weeks.",
      "Page 1 of 1",
    ]
  ) assert.ok(all.includes(want), `missing ${want}`);
  assert.ok(!all.some((t) => t.includes("internal note")), "line notes are internal and not printed");
});

Deno.test("layout: no discount row without a discount; unpriced lines say so", () => {
  const all = texts(layoutQuote(
    doc([
      line(1, {
        unit_price: null,
        discounted_price: null,
        effective_unit_price: null,
        list_total: null,
        line_total: null,
      }),
    ], {
      subtotal: 0,
      discount_total: 0,
      total: 0,
      unpriced_item_count: 1,
    }),
    fonts,
    at,
  ));
  assert.ok(!all.includes("Discount"));
  assert.ok(all.includes("-"), "an unpriced cell shows a dash");
  assert.ok(all.some((t) => t.startsWith("1 line(s) without a price")));
  assert.ok(all.includes("0.00"));
});

Deno.test("layout: long quotes paginate, repeat the table header and number every page", () => {
  const pages = layoutQuote(doc(Array.from({ length: 150 }, (_, i) => line(i))), fonts, at);
  assert.ok(pages.length >= 3, `${pages.length} pages`);
  pages.forEach((ops, i) => {
    const t = ops.filter((o): o is TextOp => o.kind === "text").map((o) => o.text);
    assert.ok(t.includes("Description"), `page ${i + 1} has the table header`);
    assert.ok(t.includes(`Page ${i + 1} of ${pages.length}`));
    for (const op of ops) {
      const y = op.y;
      assert.ok(y >= PAGE.margin - 1 && y <= PAGE.height - PAGE.margin, `page ${i + 1}: y=${y}`);
    }
  });
  const labels = texts(pages).filter((t) => t.startsWith("Tile model "));
  assert.equal(labels.length, 150, "every line exactly once");
  assert.ok(texts([pages[pages.length - 1]]).includes("Total (EUR)"), "totals on the last page");
});

Deno.test("layout: a huge description is cut to fit a page, never drawn off it", () => {
  const pages = layoutQuote(doc([line(1, { label: "word ".repeat(3000) })]), fonts, at);
  const cells = texts(pages).filter((t) => t.startsWith("word") || t === "...");
  assert.equal(cells.length, MAX_CELL_LINES);
  assert.equal(cells[cells.length - 1], "...");
  for (const op of pages.flat()) assert.ok(op.y >= PAGE.margin - 1);
});

Deno.test("layout: right-aligned figures end at their column edge, inside the page", () => {
  const ops = layoutQuote(doc([line(1)]), fonts, at).flat().filter((o): o is TextOp => o.kind === "text");
  for (const op of ops) {
    const width = fonts.measure(op.text, op.font, op.size);
    const left = op.align === "right" ? op.x - width : op.x;
    const right = op.align === "right" ? op.x : op.x + width;
    assert.ok(
      left >= PAGE.margin - 0.01 && right <= PAGE.width - PAGE.margin + 0.01,
      `${op.text} at ${left}..${right}`,
    );
  }
});

Deno.test("layout: a quote without lines still renders its header and zero totals", () => {
  const all = texts(layoutQuote(doc([], { subtotal: 0, discount_total: 0, total: 0 }), fonts, at));
  for (
    const want of [
      "Q-2026-000042",
      "This quote has no lines.",
      "Subtotal",
      "Total (EUR)",
      "0.00",
      "Page 1 of 1",
    ]
  ) {
    assert.ok(all.includes(want), `missing ${want}`);
  }
});
