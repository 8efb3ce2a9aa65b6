/**
 * Entry points: detect() for one product against candidates, batchDetect() for every pair in a
 * catalogue, and exhaustiveDetect(), the naive all-pairs scan batchDetect must agree with.
 *
 * Pair orientation. difflib's ratio is not symmetric (b2j is built on the second name), so a
 * pair needs a fixed order. detect() compares (product, candidate). The batch functions sort
 * products by id and compare (lower id, higher id): the result then does not depend on the
 * order rows arrive in, a pair always has the same key in duplicate_detection_cache, and each
 * pair equals detect(lower-id product, [higher-id product]).
 */
import {
  assertThreshold,
  buildBreakdown,
  confidenceLevel,
  DEFAULT_SIMILARITY_THRESHOLD,
  emptyPruneCounters,
  evaluatePair,
  isDuplicate,
  type PairScore,
  recommendedAction,
  scorePair,
} from "./scoring.ts";
import { scanBlock } from "./block_scan.ts";
import { extractFactory, Interner, type PreparedProduct, prepareProduct } from "./similarity.ts";
import type { BatchResult, DetectionStats, DuplicateMatch, DuplicatePair, Product } from "./types.ts";

function scoreFields(factory: string, score: PairScore, threshold: number) {
  return {
    overall_similarity: score.overall,
    name_similarity: score.name,
    description_similarity: score.description,
    metadata_similarity: score.metadata,
    confidence_level: confidenceLevel(score.overall),
    recommended_action: recommendedAction(score.overall),
    similarity_breakdown: buildBreakdown(factory, score, threshold),
  };
}

function compareIds(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Duplicates of `product` among `candidates` (the product itself, by id, is skipped), best
 * first; ties broken by candidate id. Empty when the product has no factory metadata.
 */
export function detect(
  product: Product,
  candidates: readonly Product[],
  threshold: number = DEFAULT_SIMILARITY_THRESHOLD,
): DuplicateMatch[] {
  assertThreshold(threshold);
  const interner = new Interner();
  const a = prepareProduct(product, interner);
  const factory = a.factory;
  if (factory === null) return [];
  const counters = emptyPruneCounters();
  const matches: DuplicateMatch[] = [];
  for (const candidate of candidates) {
    if (candidate.id === product.id || extractFactory(candidate.metadata) !== factory) continue;
    const b = prepareProduct(candidate, interner);
    const score = evaluatePair(a, b, threshold, counters);
    if (score) {
      matches.push({
        product_id: candidate.id,
        product_name: candidate.name,
        factory,
        ...scoreFields(factory, score, threshold),
      });
    }
  }
  return matches.sort((x, y) =>
    y.overall_similarity - x.overall_similarity || compareIds(x.product_id, y.product_id)
  );
}

/** Both scans start here: validated, id-sorted, prepared once. */
function prepareCatalogue(products: readonly Product[], threshold: number, limit: number | undefined) {
  assertThreshold(threshold);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
    throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  }
  const sorted = [...products].sort((x, y) => compareIds(x.id, y.id));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].id === sorted[i - 1].id) throw new RangeError(`duplicate product id ${sorted[i].id}`);
  }
  const interner = new Interner();
  return sorted.map((p) => prepareProduct(p, interner));
}

function toPair(a: PreparedProduct, b: PreparedProduct, score: PairScore, threshold: number): DuplicatePair {
  const factory = a.factory!;
  return {
    product_id_1: a.product.id,
    product_name_1: a.product.name,
    product_id_2: b.product.id,
    product_name_2: b.product.name,
    factory,
    ...scoreFields(factory, score, threshold),
  };
}

/** Best first, then by ids, then `limit` (the top pairs; all of them when omitted). */
function finish(pairs: DuplicatePair[], limit: number | undefined, stats: DetectionStats): BatchResult {
  pairs.sort((x, y) =>
    y.overall_similarity - x.overall_similarity ||
    compareIds(x.product_id_1, y.product_id_1) ||
    compareIds(x.product_id_2, y.product_id_2)
  );
  stats.duplicates_found = pairs.length;
  return { pairs: limit === undefined ? pairs : pairs.slice(0, limit), stats };
}

/** n choose 2, written so an empty input counts +0 pairs rather than -0. */
function pairsOf(n: number): number {
  return n < 2 ? 0 : (n * (n - 1)) / 2;
}

function baseStats(
  prepared: readonly PreparedProduct[],
  blocks: ReadonlyMap<string, unknown[]>,
): DetectionStats {
  const n = prepared.length;
  let considered = 0, withFactory = 0;
  for (const members of blocks.values()) {
    considered += pairsOf(members.length);
    withFactory += members.length;
  }
  return {
    products: n,
    products_without_factory: n - withFactory,
    factories: blocks.size,
    total_pairs: pairsOf(n),
    blocked_by_factory: pairsOf(n) - considered,
    pairs_considered: considered,
    ...emptyPruneCounters(),
    duplicates_found: 0,
  };
}

/** Products grouped by factory, each group in id order; products without a factory are dropped. */
function blocksByFactory(prepared: readonly PreparedProduct[]): Map<string, PreparedProduct[]> {
  const blocks = new Map<string, PreparedProduct[]>();
  for (const p of prepared) {
    if (p.factory === null) continue;
    const block = blocks.get(p.factory);
    if (block) block.push(p);
    else blocks.set(p.factory, [p]);
  }
  return blocks;
}

/**
 * Every duplicate pair in the catalogue, identical to exhaustiveDetect but without scoring most
 * pairs: products are blocked by factory, and each block is scanned by scanBlock, where bounds
 * reject pairs cheapest first and only survivors reach SequenceMatcher.
 */
export function batchDetect(
  products: readonly Product[],
  threshold: number = DEFAULT_SIMILARITY_THRESHOLD,
  limit?: number,
): BatchResult {
  const prepared = prepareCatalogue(products, threshold, limit);
  const blocks = blocksByFactory(prepared);
  const stats = baseStats(prepared, blocks);
  const pairs: DuplicatePair[] = [];
  for (const block of blocks.values()) {
    scanBlock(block, threshold, stats, (a, b, score) => pairs.push(toPair(a, b, score, threshold)));
  }
  return finish(pairs, limit, stats);
}

/** The naive reference: every pair in id order, factory rule, then full exact scoring. */
export function exhaustiveDetect(
  products: readonly Product[],
  threshold: number = DEFAULT_SIMILARITY_THRESHOLD,
  limit?: number,
): BatchResult {
  const prepared = prepareCatalogue(products, threshold, limit);
  const stats = baseStats(prepared, blocksByFactory(prepared));
  const pairs: DuplicatePair[] = [];
  for (let i = 0; i < prepared.length; i++) {
    const a = prepared[i];
    if (a.factory === null) continue;
    for (let j = i + 1; j < prepared.length; j++) {
      const b = prepared[j];
      if (b.factory !== a.factory) continue;
      stats.scored_exactly++;
      const score = scorePair(a, b);
      if (isDuplicate(score, threshold)) pairs.push(toPair(a, b, score, threshold));
    }
  }
  return finish(pairs, limit, stats);
}
