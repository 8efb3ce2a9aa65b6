/**
 * Knowledge-base domain code: chunking, request schemas, search shaping, and the gate for pricing
 * documents (pricing.ts calls the price engine; pricing never imports kb). Content hashes are
 * content_hash.ts.
 */
export * from "./chunking.ts";
export * from "./schemas.ts";
export * from "./search.ts";
export * from "./pricing.ts";
