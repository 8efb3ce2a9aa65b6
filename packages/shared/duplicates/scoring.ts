/**
 * The detection rules for one ordered pair (a, b): weights, thresholds, confidence, and the
 * pruning cascade that rejects a pair with cheap upper bounds before paying for difflib.
 *
 * Threshold reading. A pair is a duplicate when all of these hold:
 *   1. same factory (checked by the callers, which only pair products within a factory);
 *   2. name_similarity >= 0.50;
 *   3. the combined description-and-metadata threshold: the weighted mean of the two,
 *      (description x 0.30 + metadata x 0.20) / 0.50 >= 0.20. The spec calls it "combined" and
 *      gives these weights to the two parts, so the mean on their own weights keeps the 0.20 on
 *      the same 0..1 scale as every other threshold. It is evaluated exactly on the integer
 *      counts, so a boundary case such as a third of the words shared and no metadata passes
 *      instead of losing to float rounding;
 *   4. overall_similarity >= similarity_threshold (default 0.60).
 */
import { calculateRatio, realQuickRatio } from "./sequence_matcher.ts";
import {
  countRatio,
  countShared,
  Interner,
  nameCharacterOverlap,
  type PreparedProduct,
  prepareProduct,
  type PropertyOverlap,
  propertyOverlap,
  type SharedCounts,
  type WordOverlap,
  wordOverlap,
} from "./similarity.ts";
import type {
  ConfidenceLevel,
  DetectionStats,
  Product,
  RecommendedAction,
  SimilarityBreakdown,
} from "./types.ts";

/** Weights as integer tenths, so the combined threshold can be checked in integers. */
const NAME_TENTHS = 5, DESCRIPTION_TENTHS = 3, METADATA_TENTHS = 2;
export const WEIGHTS = {
  name: NAME_TENTHS / 10,
  description: DESCRIPTION_TENTHS / 10,
  metadata: METADATA_TENTHS / 10,
} as const;

const NAME_THRESHOLD = 0.5;
/** The combined threshold 0.20 as the fraction 1/5, for the exact integer comparison. */
const CONTEXT_NUMERATOR = 1, CONTEXT_DENOMINATOR = 5;
const CONTEXT_THRESHOLD = CONTEXT_NUMERATOR / CONTEXT_DENOMINATOR;
/** Default for the endpoints' optional similarity_threshold: above the name floor, below review. */
export const DEFAULT_SIMILARITY_THRESHOLD = 0.6;
const HIGH_CONFIDENCE = 0.85;
const MEDIUM_CONFIDENCE = 0.7;

/**
 * overall = name x 0.50 + description x 0.30 + metadata x 0.20. Every caller, including the
 * upper bounds, goes through this one expression: float + and x are monotone, so a bound fed
 * with larger inputs can never come out below the exact score.
 */
export function overallSimilarity(name: number, description: number, metadata: number): number {
  return name * WEIGHTS.name + description * WEIGHTS.description + metadata * WEIGHTS.metadata;
}

/** The value the combined threshold is about, for reporting; the decision uses passesContext. */
export function contextSimilarity(description: number, metadata: number): number {
  return (description * WEIGHTS.description + metadata * WEIGHTS.metadata) /
    (WEIGHTS.description + WEIGHTS.metadata);
}

/**
 * (0.3 c/L + 0.2 x/U) / 0.5 >= 1/5 with the weights in tenths and the denominators cleared:
 * 5 (3 c U + 2 x L) >= 1 (3 + 2) L U, all integers, so it is exact. An empty side has a zero
 * numerator, so reading its denominator as 1 makes it contribute 0, as countRatio does. Increasing in c and x and decreasing in U, which is what makes the
 * best-case bound in evaluatePair valid.
 */
export function passesContext(common: number, larger: number, matching: number, total: number): boolean {
  const l = larger || 1, u = total || 1;
  return CONTEXT_DENOMINATOR * (DESCRIPTION_TENTHS * common * u + METADATA_TENTHS * matching * l) >=
    CONTEXT_NUMERATOR * (DESCRIPTION_TENTHS + METADATA_TENTHS) * l * u;
}

export function confidenceLevel(overall: number): ConfidenceLevel {
  if (overall >= HIGH_CONFIDENCE) return "high";
  if (overall >= MEDIUM_CONFIDENCE) return "medium";
  return "low";
}

export function recommendedAction(overall: number): RecommendedAction {
  if (overall >= HIGH_CONFIDENCE) return "auto_merge";
  if (overall >= MEDIUM_CONFIDENCE) return "review";
  return "none";
}

export function assertThreshold(threshold: number): void {
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new RangeError(`similarity_threshold must be between 0 and 1, got ${threshold}`);
  }
}

/** All scores of an ordered pair: name similarity is ratio(a.name, b.name), b2j built on b. */
export interface PairScore {
  name: number;
  description: number;
  metadata: number;
  overall: number;
  words: WordOverlap;
  properties: PropertyOverlap;
}

/** Scores a pair with no shortcuts: the reference the pruned path must agree with. */
export function scorePair(a: PreparedProduct, b: PreparedProduct): PairScore {
  const shared = countShared(a, b);
  const words = wordOverlap(a, b, shared);
  const properties = propertyOverlap(a, b, shared);
  const name = b.matcher().ratio(a.nameSeq);
  const description = countRatio(words.common, words.larger);
  const metadata = countRatio(properties.matching, properties.total);
  return {
    name,
    description,
    metadata,
    overall: overallSimilarity(name, description, metadata),
    words,
    properties,
  };
}

/** Rules 2-4 on an exact score (rule 1, the factory, is the caller's blocking). */
export function isDuplicate(score: PairScore, threshold: number): boolean {
  return score.name >= NAME_THRESHOLD &&
    passesContext(
      score.words.common,
      score.words.larger,
      score.properties.matching,
      score.properties.total,
    ) &&
    score.overall >= threshold;
}

/**
 * The length bound alone, shared with the batch scan, which skips whole runs of longer names
 * once it fails: real_quick_ratio only shrinks as the other name grows, so this does too.
 */
export function failsLengthBound(la: number, lb: number, threshold: number): boolean {
  const nameBound = realQuickRatio(la, lb);
  return nameBound < NAME_THRESHOLD || overallSimilarity(nameBound, 1, 1) < threshold;
}

export type PruneCounters = Pick<
  DetectionStats,
  | "pruned_by_length"
  | "pruned_by_context_bound"
  | "pruned_by_context"
  | "pruned_by_quick_ratio"
  | "scored_exactly"
>;

export function emptyPruneCounters(): PruneCounters {
  return {
    pruned_by_length: 0,
    pruned_by_context_bound: 0,
    pruned_by_context: 0,
    pruned_by_quick_ratio: 0,
    scored_exactly: 0,
  };
}

/**
 * Same verdict as isDuplicate(scorePair(a, b)), cheapest evidence first. Each step either
 * proves the pair cannot pass (an upper bound below a threshold) or hands on; only survivors
 * pay for SequenceMatcher. `shared` may carry counts the caller already has. Returns the exact
 * score of a duplicate, or null.
 */
export function evaluatePair(
  a: PreparedProduct,
  b: PreparedProduct,
  threshold: number,
  counters: PruneCounters,
  shared?: SharedCounts,
): PairScore | null {
  const la = a.nameSeq.length, lb = b.nameSeq.length;
  if (failsLengthBound(la, lb, threshold)) {
    counters.pruned_by_length++;
    return null;
  }
  const nameBound = realQuickRatio(la, lb);

  // Best case for the context: every word of the smaller description and every key of the
  // smaller metadata matches, and the key union is no larger than the larger key set.
  const wa = a.words.length, wb = b.words.length, ka = a.keys.length, kb = b.keys.length;
  const minWords = Math.min(wa, wb), maxWords = Math.max(wa, wb);
  const minKeys = Math.min(ka, kb), maxKeys = Math.max(ka, kb);
  const descriptionBound = countRatio(minWords, maxWords), metadataBound = countRatio(minKeys, maxKeys);
  if (
    !passesContext(minWords, maxWords, minKeys, maxKeys) ||
    overallSimilarity(nameBound, descriptionBound, metadataBound) < threshold
  ) {
    counters.pruned_by_context_bound++;
    return null;
  }

  // Plain numbers until the pair survives: this runs for millions of pairs in a batch.
  const counts = shared ?? countShared(a, b);
  const commonWords = counts.words, matching = counts.properties, totalKeys = ka + kb - counts.keys;
  const description = countRatio(commonWords, maxWords);
  const metadata = countRatio(matching, totalKeys);
  if (
    !passesContext(commonWords, maxWords, matching, totalKeys) ||
    overallSimilarity(nameBound, description, metadata) < threshold
  ) {
    counters.pruned_by_context++;
    return null;
  }

  // quick_ratio is symmetric, so it bounds ratio(a, b) whichever side carries b2j.
  const quick = calculateRatio(nameCharacterOverlap(a, b), la + lb);
  if (quick < NAME_THRESHOLD || overallSimilarity(quick, description, metadata) < threshold) {
    counters.pruned_by_quick_ratio++;
    return null;
  }

  counters.scored_exactly++;
  const name = b.matcher().ratio(a.nameSeq);
  const overall = overallSimilarity(name, description, metadata);
  const words = { common: commonWords, larger: maxWords };
  const properties = { matching, total: totalKeys };
  const score = { name, description, metadata, overall, words, properties };
  return isDuplicate(score, threshold) ? score : null;
}

export function buildBreakdown(factory: string, score: PairScore, threshold: number): SimilarityBreakdown {
  return {
    factory,
    name: { similarity: score.name, weight: WEIGHTS.name, weighted: score.name * WEIGHTS.name },
    description: {
      similarity: score.description,
      weight: WEIGHTS.description,
      weighted: score.description * WEIGHTS.description,
      common_words: score.words.common,
      larger_word_count: score.words.larger,
    },
    metadata: {
      similarity: score.metadata,
      weight: WEIGHTS.metadata,
      weighted: score.metadata * WEIGHTS.metadata,
      matching_properties: score.properties.matching,
      total_properties: score.properties.total,
    },
    context_similarity: contextSimilarity(score.description, score.metadata),
    thresholds: { name: NAME_THRESHOLD, context: CONTEXT_THRESHOLD, overall: threshold },
  };
}

/** Name similarity of two raw names: difflib ratio of the normalised names, b2j on `b`. */
export function nameSimilarity(a: string, b: string): number {
  return scoreRaw({ id: "a", name: a }, { id: "b", name: b }).name;
}

/** Description similarity of two raw descriptions (see descriptionWords for tokenisation). */
export function descriptionSimilarity(a: string | null | undefined, b: string | null | undefined): number {
  return scoreRaw({ id: "a", name: "", description: a }, { id: "b", name: "", description: b }).description;
}

/** Metadata similarity of two raw metadata objects, factory keys excluded. */
export function metadataSimilarity(
  a: Record<string, unknown> | null | undefined,
  b: Record<string, unknown> | null | undefined,
): number {
  return scoreRaw({ id: "a", name: "", metadata: a }, { id: "b", name: "", metadata: b }).metadata;
}

function scoreRaw(a: Product, b: Product): PairScore {
  const interner = new Interner();
  return scorePair(prepareProduct(a, interner), prepareProduct(b, interner));
}
