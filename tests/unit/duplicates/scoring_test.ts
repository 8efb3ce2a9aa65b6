// Weights, thresholds, confidence bands and detect(), table-driven against the spec's numbers.
import assert from "node:assert/strict";
import fixture from "../../fixtures/duplicates/difflib_cases.json" with { type: "json" };
import {
  confidenceLevel,
  contextSimilarity,
  DEFAULT_SIMILARITY_THRESHOLD,
  detect,
  overallSimilarity,
  passesContext,
  type Product,
  recommendedAction,
  WEIGHTS,
} from "@shared/duplicates/mod.ts";

Deno.test("overall = name x 0.50 + description x 0.30 + metadata x 0.20", () => {
  assert.deepEqual(WEIGHTS, { name: 0.5, description: 0.3, metadata: 0.2 });
  const cases: [number, number, number, number][] = [
    [1, 1, 1, 1],
    [0, 0, 0, 0],
    [1, 0, 0, 0.5],
    [0, 1, 0, 0.3],
    [0, 0, 1, 0.2],
    [0.8, 0.5, 0.25, 0.6],
    [0.5, 1, 1, 1 - 0.25],
  ];
  for (const [n, d, m, expected] of cases) {
    assert.ok(Math.abs(overallSimilarity(n, d, m) - expected) < 1e-15, `${n} ${d} ${m}`);
  }
});

Deno.test("combined threshold: (description x 0.30 + metadata x 0.20) / 0.50 >= 0.20, exactly", () => {
  // [common words, larger word count, matching properties, total properties, passes]
  const cases: [number, number, number, number, boolean][] = [
    [0, 0, 0, 0, false], // nothing to compare is no evidence
    [1, 3, 0, 0, true], // description 1/3 alone is exactly 0.20
    [1, 4, 0, 0, false],
    [0, 0, 1, 2, true], // metadata 1/2 alone is exactly 0.20
    [0, 0, 1, 3, false],
    [0, 5, 1, 2, true],
    [1, 10, 1, 4, false], // (0.03 + 0.05) / 0.5 = 0.16
    [2, 10, 1, 4, true], // (0.06 + 0.05) / 0.5 = 0.22
    [3, 3, 2, 2, true],
  ];
  for (const [c, l, x, u, expected] of cases) {
    assert.equal(passesContext(c, l, x, u), expected, `${c}/${l} ${x}/${u}`);
  }
  // Why the integer form: in floats the 1/3 boundary rounds to just under 0.20.
  assert.ok(contextSimilarity(1 / 3, 0) < 0.2);
  assert.equal(contextSimilarity(1, 1), 1);
});

Deno.test("confidence bands and recommended actions", () => {
  const cases: [number, string, string][] = [
    [1, "high", "auto_merge"],
    [0.85, "high", "auto_merge"],
    [0.8499999, "medium", "review"],
    [0.7, "medium", "review"],
    [0.6999999, "low", "none"],
    [0.6, "low", "none"],
    [0, "low", "none"],
  ];
  for (const [overall, level, action] of cases) {
    assert.equal(confidenceLevel(overall), level, String(overall));
    assert.equal(recommendedAction(overall), action, String(overall));
  }
});

const base: Product = {
  id: "p-0",
  name: "Porcelain Tile 60x60 Matt Grey",
  description: "Grey porcelain tile with a matt finish for floors",
  metadata: { factory: "Marazzi", color: "grey", finish: "matt", size: "60x60" },
};
const variant = (id: string, patch: Partial<Product>): Product => ({ ...base, id, ...patch });

Deno.test("detect: empty without factory metadata, even for identical candidates", () => {
  const product = { ...base, metadata: { color: "grey" } };
  assert.deepEqual(
    detect(product, [variant("p-1", { metadata: { color: "grey" } }), variant("p-2", {})]),
    [],
  );
  assert.deepEqual(detect({ ...base, metadata: undefined }, [variant("p-1", {})]), []);
});

Deno.test("detect: the factory must match, however it is spelled", () => {
  const matches = detect(base, [
    variant("p-1", { metadata: { ...base.metadata, factory: "Florim" } }),
    variant("p-2", { metadata: { brand: " MARAZZI ", color: "grey", finish: "matt", size: "60x60" } }),
    variant("p-3", { metadata: { color: "grey", finish: "matt", size: "60x60" } }),
  ]);
  assert.deepEqual(matches.map((m) => [m.product_id, m.factory]), [["p-2", "marazzi"]]);
  assert.equal(matches[0].overall_similarity, 1);
});

Deno.test("detect: skips the product itself and reports every field of an exact duplicate", () => {
  const [match, ...rest] = detect(base, [
    base,
    variant("p-1", { name: "  porcelain tile 60X60 matt grey " }),
  ]);
  assert.equal(rest.length, 0);
  assert.deepEqual(match, {
    product_id: "p-1",
    product_name: "  porcelain tile 60X60 matt grey ",
    factory: "marazzi",
    overall_similarity: 1,
    name_similarity: 1,
    description_similarity: 1,
    metadata_similarity: 1,
    confidence_level: "high",
    recommended_action: "auto_merge",
    similarity_breakdown: {
      factory: "marazzi",
      name: { similarity: 1, weight: 0.5, weighted: 0.5 },
      description: { similarity: 1, weight: 0.3, weighted: 0.3, common_words: 9, larger_word_count: 9 },
      metadata: { similarity: 1, weight: 0.2, weighted: 0.2, matching_properties: 3, total_properties: 3 },
      context_similarity: 1,
      thresholds: { name: 0.5, context: 0.2, overall: DEFAULT_SIMILARITY_THRESHOLD },
    },
  });
});

Deno.test("detect: each of the three thresholds can reject on its own", () => {
  const sameContext = { description: base.description, metadata: base.metadata };
  // Name 0.5 passes ("ab"/"ac" share 1 of 2+2 characters), 0 fails, at overall threshold 0.
  const named = detect({ ...base, name: "ab" }, [
    variant("n-pass", { ...sameContext, name: "ac" }),
    variant("n-fail", { ...sameContext, name: "xy" }),
  ], 0);
  assert.deepEqual(named.map((m) => [m.product_id, m.name_similarity]), [["n-pass", 0.5]]);

  // Same name, so overall >= 0.5; the combined description/metadata rule decides.
  const bare = { factory: "Marazzi" };
  const product = { ...base, description: "alpha beta gamma", metadata: bare };
  const context = detect(product, [
    variant("c-third", { description: "alpha delta epsilon", metadata: bare }),
    variant("c-quarter", { description: "alpha delta epsilon zeta", metadata: bare }),
    variant("c-none", { description: "delta", metadata: bare }),
  ], 0);
  assert.deepEqual(context.map((m) => m.product_id), ["c-third"]);
  assert.equal(context[0].description_similarity, 1 / 3);

  // Everything identical except half the metadata: overall 0.9; the threshold is inclusive.
  const half = variant("o-1", {
    metadata: { factory: "Marazzi", color: "grey", finish: "gloss", size: "30x30" },
  });
  const overall = detect(base, [half], 0)[0].overall_similarity;
  assert.equal(detect(base, [half], overall).length, 1);
  assert.equal(detect(base, [half], overall + 1e-9).length, 0);
});

Deno.test("detect: sorted by overall similarity, ties by id; threshold validated", () => {
  const matches = detect(base, [
    variant("b", { description: "grey porcelain tile" }),
    variant("c", {}),
    variant("a", {}),
    variant("d", { name: "Porcelain Tile 60x60 Matte Gray" }),
  ], 0.5);
  assert.deepEqual(matches.map((m) => m.product_id), ["a", "c", "d", "b"]);
  for (const bad of [-0.01, 1.01, Number.NaN]) assert.throws(() => detect(base, [], bad), RangeError);
});

Deno.test("detect: name similarity is ratio(product, candidate), with b2j on the candidate", () => {
  // A pair whose two directions differ and both pass the name threshold.
  const c = fixture.cases.find((c) =>
    c.kind.startsWith("material") && c.ratio !== c.ratio_reversed &&
    Math.min(c.ratio, c.ratio_reversed) >= 0.5
  )!;
  const p = variant("x", { name: c.a }), q = variant("y", { name: c.b });
  assert.equal(detect(p, [q], 0)[0].name_similarity, c.ratio);
  assert.equal(detect(q, [p], 0)[0].name_similarity, c.ratio_reversed);
});
