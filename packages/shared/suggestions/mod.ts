/** Search suggestions: autocomplete, typo correction, query expansion, trending, analytics, clicks. */
export * from "./schemas.ts";
export * from "./suggestions.ts";
