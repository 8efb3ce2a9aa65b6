/**
 * Duplicate-material detection (issue 8): pure domain code behind POST /api/duplicates/detect
 * and /batch-detect. No database, no HTTP; the endpoints load products and call these.
 */
export * from "./types.ts";
export * from "./batch.ts";
export {
  assertThreshold,
  confidenceLevel,
  CONTEXT_THRESHOLD,
  contextSimilarity,
  DEFAULT_SIMILARITY_THRESHOLD,
  descriptionSimilarity,
  HIGH_CONFIDENCE,
  MEDIUM_CONFIDENCE,
  metadataSimilarity,
  NAME_THRESHOLD,
  nameSimilarity,
  overallSimilarity,
  passesContext,
  recommendedAction,
  WEIGHTS,
} from "./scoring.ts";
export {
  canonicalValue,
  descriptionWords,
  extractFactory,
  FACTORY_KEYS,
  metadataProperties,
  normaliseName,
} from "./similarity.ts";
export { type MatchBlock, realQuickRatio, SequenceMatcher } from "./sequence_matcher.ts";
