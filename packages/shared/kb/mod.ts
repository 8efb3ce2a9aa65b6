/** Knowledge-base domain code: chunking, content hashing, request schemas, search shaping. */
export * from "./chunking.ts";
export * from "./hash.ts";
export * from "./schemas.ts";
export * from "./search.ts";
export * from "./pricing.ts";
