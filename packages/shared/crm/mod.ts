/** CRM: request schemas, safe search filters, contact-user matching and platform user records. */
export * from "./schemas.ts";
export * from "./search.ts";
export * from "./matching.ts";
export * from "./users.ts";
