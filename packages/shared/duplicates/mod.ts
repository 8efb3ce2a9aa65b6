/**
 * Duplicate-material detection (issue 8): pure domain code behind POST /api/duplicates/detect
 * and /batch-detect. No database, no HTTP: store.ts loads products, stores and reads detections
 * and merges (the AI backend's routes/duplicates.ts calls it); schemas.ts has the requests.
 */
export * from "./types.ts";
export * from "./batch.ts";
export {
  confidenceLevel,
  contextSimilarity,
  DEFAULT_SIMILARITY_THRESHOLD,
  descriptionSimilarity,
  metadataSimilarity,
  nameSimilarity,
  overallSimilarity,
  passesContext,
  recommendedAction,
  WEIGHTS,
} from "./scoring.ts";
export { canonicalValue, descriptionWords, extractFactory, metadataProperties } from "./similarity.ts";
export { realQuickRatio, SequenceMatcher } from "./sequence_matcher.ts";
