// batchDetect must return exactly what the naive all-pairs scan returns, while scoring few pairs.
import assert from "node:assert/strict";
import {
  batchDetect,
  type BatchResult,
  detect,
  type DetectionStats,
  exhaustiveDetect,
  type Product,
} from "@shared/duplicates/mod.ts";
import {
  plantedCatalogue,
  seededRandom,
  syntheticCatalogue,
} from "../../../fixtures/duplicates/synthetic_catalogue.ts";

const { products: catalogue, planted } = plantedCatalogue({ size: 2000, seed: 1 });
const exhaustive = exhaustiveDetect(catalogue, 0.6);
const batch = batchDetect(catalogue, 0.6);

function assertBucketsAddUp(s: DetectionStats) {
  assert.equal(
    s.blocked_by_factory + s.pruned_by_length + s.pruned_by_context_bound + s.pruned_by_context +
      s.pruned_by_quick_ratio + s.scored_exactly,
    s.total_pairs,
  );
  assert.equal(s.total_pairs, (s.products * (s.products - 1)) / 2);
  assert.equal(s.pairs_considered + s.blocked_by_factory, s.total_pairs);
}

Deno.test("batchDetect equals the exhaustive scan on a 2,000-product catalogue", () => {
  assert.ok(exhaustive.pairs.length > 500, `${exhaustive.pairs.length} pairs`);
  assert.deepEqual(batch.pairs, exhaustive.pairs);
  assert.equal(batch.stats.duplicates_found, exhaustive.stats.duplicates_found);
  assertBucketsAddUp(batch.stats);
  assertBucketsAddUp(exhaustive.stats);
  // The exhaustive scan scores every same-factory pair; the batch only a small share.
  assert.equal(exhaustive.stats.scored_exactly, exhaustive.stats.pairs_considered);
  assert.ok(batch.stats.scored_exactly * 10 < batch.stats.pairs_considered, JSON.stringify(batch.stats));
  for (const bucket of ["pruned_by_length", "pruned_by_context", "pruned_by_quick_ratio"] as const) {
    assert.ok(batch.stats[bucket] > 0, bucket);
  }
});

Deno.test("batchDetect equals the exhaustive scan at every threshold and seed", () => {
  for (const [seed, threshold] of [[2, 0], [3, 0.3], [4, 0.5], [5, 0.7], [6, 0.85], [7, 0.95], [8, 1]]) {
    const products = syntheticCatalogue({ size: 500, seed, duplicateShare: 0.15 });
    const b = batchDetect(products, threshold), e = exhaustiveDetect(products, threshold);
    assert.deepEqual(b.pairs, e.pairs, `seed ${seed} threshold ${threshold}`);
    assertBucketsAddUp(b.stats);
    assert.equal(b.stats.duplicates_found, b.pairs.length);
  }
});

Deno.test("planted near-duplicates are found, with the right factory", () => {
  const found = new Map(batch.pairs.map((p) => [`${p.product_id_1} ${p.product_id_2}`, p]));
  const byId = new Map(catalogue.map((p) => [p.id, p]));
  const hits = planted.filter(([x, y]) => found.has(x < y ? `${x} ${y}` : `${y} ${x}`));
  assert.ok(hits.length >= 0.9 * planted.length, `${hits.length} of ${planted.length}`);
  for (const [x, y] of hits) {
    const pair = found.get(x < y ? `${x} ${y}` : `${y} ${x}`)!;
    const name = (id: string) => byId.get(id)!.name;
    assert.equal(pair.product_name_1, name(pair.product_id_1));
    assert.equal(pair.product_name_2, name(pair.product_id_2));
    assert.match(pair.factory, /^[a-z' ]+$/);
  }
});

Deno.test("pairs are oriented by id, ordered by overall desc then ids, and equal detect()", () => {
  const { pairs } = batch;
  for (let k = 0; k < pairs.length; k++) {
    const p = pairs[k];
    assert.ok(p.product_id_1 < p.product_id_2);
    if (k > 0) {
      const q = pairs[k - 1];
      assert.ok(
        q.overall_similarity > p.overall_similarity ||
          (q.overall_similarity === p.overall_similarity &&
            (q.product_id_1 < p.product_id_1 ||
              (q.product_id_1 === p.product_id_1 && q.product_id_2 < p.product_id_2))),
      );
    }
  }
  const byId = new Map(catalogue.map((p) => [p.id, p]));
  for (const p of pairs.filter((_, k) => k % 25 === 0)) {
    const [match] = detect(byId.get(p.product_id_1)!, [byId.get(p.product_id_2)!], 0.6);
    const { product_id_1: _1, product_name_1: _n1, product_id_2, product_name_2, ...scores } = p;
    assert.deepEqual(match, { product_id: product_id_2, product_name: product_name_2, ...scores });
  }
});

Deno.test("the result does not depend on input order", () => {
  const rnd = seededRandom(99);
  const shuffled = catalogue.map((p) => [rnd(), p] as const).sort((x, y) => x[0] - y[0]).map(([, p]) => p);
  assert.deepEqual(batchDetect(shuffled, 0.6), batch);
});

Deno.test("limit keeps the top pairs; bad input is refused", () => {
  const top = batchDetect(catalogue, 0.6, 10);
  assert.deepEqual(top.pairs, batch.pairs.slice(0, 10));
  assert.equal(top.stats.duplicates_found, batch.pairs.length);
  assert.deepEqual(batchDetect(catalogue.slice(0, 300), 0.6, 0).pairs, []);
  const part = catalogue.slice(0, 500);
  assert.deepEqual(exhaustiveDetect(part, 0.6, 7).pairs, batchDetect(part, 0.6, 7).pairs);
  for (const limit of [-1, 1.5, Number.NaN]) {
    assert.throws(() => batchDetect(catalogue, 0.6, limit), RangeError);
  }
  assert.throws(() => batchDetect(catalogue, 1.5), RangeError);
  const twice: Product[] = [catalogue[0], { ...catalogue[1], id: catalogue[0].id }];
  assert.throws(() => batchDetect(twice), /duplicate product id/);
});

Deno.test("small catalogue: factory blocking, missing factories and empty input", () => {
  const tile = (
    id: string,
    factory: Record<string, string>,
    name = "Porcelain Tile 60x60 Matt Grey",
  ): Product => ({
    id,
    name,
    description: "grey porcelain tile",
    metadata: { ...factory, color: "grey" },
  });
  const products = [
    tile("d", { brand: "Florim" }),
    tile("a", { factory: "Marazzi" }),
    tile("c", { manufacturer: "MARAZZI" }, "Porcelain Tile 60x60 Matte Gray"),
    tile("b", {}),
    tile("e", { company: "florim " }),
    tile("f", { factory: "Marazzi" }, "Oak Parquet Natural"),
  ];
  const result: BatchResult = batchDetect(products);
  assert.deepEqual(
    result.pairs.map((
      p,
    ) => [p.product_id_1, p.product_id_2, p.factory, p.confidence_level, p.recommended_action]),
    [["d", "e", "florim", "high", "auto_merge"], ["a", "c", "marazzi", "high", "auto_merge"]],
  );
  assert.deepEqual(result.pairs, exhaustiveDetect(products).pairs);
  assert.equal(result.stats.products_without_factory, 1);
  assert.equal(result.stats.factories, 2);
  assert.equal(result.stats.pairs_considered, 3 + 1);
  assert.deepEqual(batchDetect([]).pairs, []);
  assert.equal(batchDetect([]).stats.total_pairs, 0);
});
