// Property: on seeded random catalogues built to sit on the thresholds' edges (tiny alphabets so
// name ratios land near 0.5 and 0.8, word and key counts that put the combined context exactly on
// 1/5, empty names, non-ASCII names, missing descriptions and metadata), batchDetect returns
// exactly exhaustiveDetect's pairs, scores and order at every threshold, including thresholds
// equal to a pair's own overall_similarity.
import assert from "node:assert/strict";
import { batchDetect, exhaustiveDetect, type Product } from "@shared/duplicates/mod.ts";
import { seededRandom } from "../../../fixtures/duplicates/synthetic_catalogue.ts";

function adversarialCatalogue(seed: number, size: number): Product[] {
  const rnd = seededRandom(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const alphabet = [...pick(["ab", "abc", "ab ", "aé😀", "xyz0"])];
  const name = () =>
    rnd() < 0.05
      ? ""
      : Array.from({ length: int(12) + (rnd() < 0.02 ? 200 : 0) }, () => pick(alphabet)).join("");
  const words = ["w1", "w2", "w3", "w4", "w5", "w6"];
  const products: Product[] = [];
  for (let n = 0; n < size; n++) {
    const source = products.length > 0 && rnd() < 0.4 ? pick(products) : null;
    let productName = source ? source.name : name();
    // One or two edits: keeps ratios next to the 0.5 name floor and the 0.8 region.
    for (let e = int(3); e > 0 && productName.length > 0; e--) {
      const at = int(productName.length);
      productName = productName.slice(0, at) + (rnd() < 0.5 ? pick(alphabet) : "") +
        productName.slice(at + 1);
    }
    const description = rnd() < 0.15 ? null : words.filter(() => rnd() < 0.5).join(" ");
    const metadata: Record<string, unknown> = { factory: pick(["F", "f ", "G"]) };
    if (rnd() < 0.1) delete metadata.factory;
    for (const key of ["k1", "k2", "k3"]) if (rnd() < 0.5) metadata[key] = pick(["x", "y", 1]);
    products.push({ id: `p${String(n).padStart(4, "0")}`, name: productName, description, metadata });
  }
  return products;
}

Deno.test("batchDetect equals the exhaustive scan on adversarial near-threshold catalogues", () => {
  for (let seed = 1; seed <= 16; seed++) {
    const products = adversarialCatalogue(seed, 120);
    const reference = exhaustiveDetect(products, 0);
    // The thresholds include the exact overall scores present, where >= versus > decides.
    const scores = [...new Set(reference.pairs.map((p) => p.overall_similarity))];
    const thresholds = [0, 0.35, 0.5, 0.6, 0.7, 0.85, 1, ...scores.filter((_, k) => k % 20 === 0)];
    for (const threshold of thresholds) {
      const fast = batchDetect(products, threshold), slow = exhaustiveDetect(products, threshold);
      assert.deepEqual(fast.pairs, slow.pairs, `seed ${seed} threshold ${threshold}`);
      assert.equal(fast.stats.duplicates_found, slow.stats.duplicates_found);
    }
    assert.ok(seed > 1 || reference.pairs.length > 0, "the generator must produce duplicates");
  }
});
