/**
 * Batch duplicate detection on a 10,000-product synthetic catalogue, against the exhaustive
 * all-pairs scan on the same data, in the same process: `rounds` interleaved runs (batch,
 * exhaustive, batch, exhaustive ...) so a loaded machine slows both alike, the speed-up given
 * per round. Exits non-zero if the two disagree on a single field. Then batchDetect alone on a
 * `large`-product catalogue (the exhaustive scan would take about (large/size)^2 times its
 * 10k time, an hour at 100k, so it is not run there). Off by default (`large` = 0): batch-detect
 * alone took 760 s at 100k on 2 cores (2,041,206 duplicates), so `deno task bench` does not run it.
 *
 *   npx -y deno@2.9.6 run -A bench/duplicates.ts [size] [threshold] [rounds] [large]
 */
import { isDeepStrictEqual } from "node:util";
import { batchDetect, type BatchResult, exhaustiveDetect } from "@shared/duplicates/mod.ts";
import { syntheticCatalogue } from "../fixtures/duplicates/synthetic_catalogue.ts";

const size = Number(Deno.args[0] ?? 10_000);
const threshold = Number(Deno.args[1] ?? 0.6);
const rounds = Number(Deno.args[2] ?? 2);
const large = Number(Deno.args[3] ?? 0);
const products = syntheticCatalogue({ size, seed: 8 });
console.log(`cores: ${navigator.hardwareConcurrency}`);

function timed(run: () => BatchResult): [BatchResult, number] {
  const start = performance.now();
  const result = run();
  return [result, performance.now() - start];
}

const batchTimes: number[] = [], exhaustiveTimes: number[] = [];
let batch!: BatchResult, exhaustive!: BatchResult;
for (let round = 0; round < rounds; round++) {
  let ms: number;
  [batch, ms] = timed(() => batchDetect(products, threshold));
  batchTimes.push(ms);
  [exhaustive, ms] = timed(() => exhaustiveDetect(products, threshold));
  exhaustiveTimes.push(ms);
}
const batchMs = Math.min(...batchTimes), exhaustiveMs = Math.min(...exhaustiveTimes);

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
const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" / ");
console.log(`batchDetect:      ${ms(batchTimes)} ms`);
console.log(
  `exhaustiveDetect: ${ms(exhaustiveTimes)} ms (${exhaustive.stats.scored_exactly} pairs scored)`,
);
console.log(
  `speed-up:         ${batchTimes.map((b, i) => (exhaustiveTimes[i] / b).toFixed(1)).join(" / ")}x ` +
    `(best of each: ${(exhaustiveMs / batchMs).toFixed(1)}x)`,
);

if (!isDeepStrictEqual(batch.pairs, exhaustive.pairs)) {
  console.error("MISMATCH: batchDetect and exhaustiveDetect returned different pairs");
  Deno.exit(1);
}
console.log(`identical results: ${batch.pairs.length} pairs`);

if (large > 0) {
  const big = syntheticCatalogue({ size: large, seed: 8 });
  const [result, bigMs] = timed(() => batchDetect(big, threshold));
  console.log(
    `batchDetect, ${large} products: ${bigMs.toFixed(0)} ms, ${result.stats.pairs_considered} same-factory ` +
      `pairs, ${result.stats.duplicates_found} duplicates (exhaustive scan not run at this size)`,
  );
}
