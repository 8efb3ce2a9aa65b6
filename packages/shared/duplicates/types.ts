/** Data shapes of duplicate detection, named after the spec's fields and cache columns. */

/** A product as the detection rules see it; `metadata` is the products.metadata JSON. */
export interface Product {
  id: string;
  name: string;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
}

export type ConfidenceLevel = "high" | "medium" | "low";

/** The spec's guidance turned into an action: auto-merge at >= 85 %, manual review at 70-85 %. */
export type RecommendedAction = "auto_merge" | "review" | "none";

export interface WeightedComponent {
  similarity: number;
  weight: number;
  /** similarity x weight: this component's share of overall_similarity. */
  weighted: number;
}

/** What each rule saw, stored as duplicate_detection_cache.similarity_breakdown. */
export interface SimilarityBreakdown {
  factory: string;
  name: WeightedComponent;
  description: WeightedComponent & { common_words: number; larger_word_count: number };
  metadata: WeightedComponent & { matching_properties: number; total_properties: number };
  /** (description x 0.30 + metadata x 0.20) / 0.50, the value the 0.20 combined threshold applies to. */
  context_similarity: number;
  thresholds: { name: number; context: number; overall: number };
}

interface Scores {
  overall_similarity: number;
  name_similarity: number;
  description_similarity: number;
  metadata_similarity: number;
  confidence_level: ConfidenceLevel;
  recommended_action: RecommendedAction;
  similarity_breakdown: SimilarityBreakdown;
}

/** One result of detect(): a candidate that duplicates the product under test. */
export interface DuplicateMatch extends Scores {
  product_id: string;
  product_name: string;
  factory: string;
}

/** One result of batchDetect(); product_id_1 < product_id_2, as the cache rows store them. */
export interface DuplicatePair extends Scores {
  product_id_1: string;
  product_name_1: string;
  product_id_2: string;
  product_name_2: string;
  factory: string;
}

/**
 * Where the pairs went. Every pair of the input lands in exactly one bucket:
 * total_pairs = blocked_by_factory + pruned_by_length + pruned_by_context_bound
 *   + pruned_by_context + pruned_by_quick_ratio + scored_exactly.
 */
export interface DetectionStats {
  products: number;
  products_without_factory: number;
  factories: number;
  total_pairs: number;
  /** Pairs never enumerated: different or missing factory. */
  blocked_by_factory: number;
  /** Same-factory pairs, the ones the remaining buckets split. */
  pairs_considered: number;
  /** real_quick_ratio (name lengths) cannot reach the name or overall threshold. */
  pruned_by_length: number;
  /** Even if every shared-size word and key matched, the combined or overall threshold fails. */
  pruned_by_context_bound: number;
  /** Exact description/metadata similarity fails the combined or overall threshold. */
  pruned_by_context: number;
  /** difflib's quick_ratio (character multiset) cannot reach the name or overall threshold. */
  pruned_by_quick_ratio: number;
  /** Full SequenceMatcher ratio computed. */
  scored_exactly: number;
  /** Pairs that passed every rule, before `limit` is applied. */
  duplicates_found: number;
}

export interface BatchResult {
  pairs: DuplicatePair[];
  stats: DetectionStats;
}
