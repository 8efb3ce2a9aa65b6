/**
 * Batch duplicate detection on a 10,000-product synthetic catalogue, against the exhaustive
 * all-pairs scan on the same data. Exits non-zero if the two disagree on a single field.
 *
 *   npx -y deno@2.9.6 run -A bench/duplicates.ts [size] [threshold]
 */
import { isDeepStrictEqual } from "node:util";
import { batchDetect, type BatchResult, exhaustiveDetect } from "@shared/duplicates/mod.ts";
import { syntheticCatalogue } from "../fixtures/duplicates/synthetic_catalogue.ts";

const size = Number(Deno.args[0] ?? 10_000);
const threshold = Number(Deno.args[1] ?? 0.6);
const products = syntheticCatalogue({ size, seed: 8 });

function timed(run: () => BatchResult): [BatchResult, number] {
  const start = performance.now();
  const result = run();
  return [result, performance.now() - start];
}

const [batch, batchMs] = timed(() => batchDetect(products, threshold));
const [exhaustive, exhaustiveMs] = timed(() => exhaustiveDetect(products, threshold));

const s = batch.stats;
const pct = (n: number) => `${((100 * n) / s.pairs_considered).toFixed(1)} %`;
console.log(
  `catalogue: ${s.products} products, ${s.factories} factories, ${s.products_without_factory} without factory`,
);
console.log(`threshold: ${threshold}`);
console.log(
  `pairs: ${s.total_pairs} total, ${s.blocked_by_factory} blocked by factory, ${s.pairs_considered} same-factory`,
);
console.log(`  pruned by length bound:         ${s.pruned_by_length} (${pct(s.pruned_by_length)})`);
console.log(
  `  pruned by context best case:    ${s.pruned_by_context_bound} (${pct(s.pruned_by_context_bound)})`,
);
console.log(`  pruned by exact context:        ${s.pruned_by_context} (${pct(s.pruned_by_context)})`);
console.log(`  pruned by quick_ratio bound:    ${s.pruned_by_quick_ratio} (${pct(s.pruned_by_quick_ratio)})`);
console.log(`  scored exactly (difflib ratio): ${s.scored_exactly} (${pct(s.scored_exactly)})`);
console.log(`duplicates found: ${s.duplicates_found}`);
console.log(`batchDetect:      ${batchMs.toFixed(0)} ms`);
console.log(
  `exhaustiveDetect: ${exhaustiveMs.toFixed(0)} ms (${exhaustive.stats.scored_exactly} pairs scored)`,
);
console.log(`speed-up:         ${(exhaustiveMs / batchMs).toFixed(1)}x`);

if (!isDeepStrictEqual(batch.pairs, exhaustive.pairs)) {
  console.error("MISMATCH: batchDetect and exhaustiveDetect returned different pairs");
  Deno.exit(1);
}
console.log(`identical results: ${batch.pairs.length} pairs`);
