/** Quotes: the quote document type, money formatting, PDF layout and rendering, PDF storage rules. */
export * from "./types.ts";
export * from "./money.ts";
export * from "./schemas.ts";
export * from "./text.ts";
export * from "./layout.ts";
export * from "./pdf.ts";
export * from "./storage.ts";
