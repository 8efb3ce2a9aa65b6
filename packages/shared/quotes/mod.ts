/**
 * Quotes: the quote document type, PDF layout and rendering, PDF storage rules. Amounts are
 * formatted by the money module (../money.ts).
 */
export * from "./types.ts";
export * from "./schemas.ts";
export * from "./text.ts";
export * from "./layout.ts";
export * from "./pdf.ts";
export * from "./storage.ts";
