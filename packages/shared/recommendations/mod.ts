/** Recommendations: collaborative filtering (cf.ts), the API's schemas and its use cases. */
export * from "./cf.ts";
export * from "./schemas.ts";
export * from "./service.ts";
