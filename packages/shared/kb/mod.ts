/**
 * Knowledge-base domain code, the KB's one home: chunking, request schemas, search shaping, and the
 * gate for pricing documents (pricing.ts calls the price engine; pricing never imports kb). Content
 * hashes are content_hash.ts. The modules that talk to the database (functions of a
 * `WorkspaceScope` or `CallerScope`, never the HTTP context) are imported by path, not from here:
 * access.ts (the Pricing gate), store.ts (chunk, embed, write), documents.ts (the document
 * actions), catalog.ts (categories, attachments, health), knowledge_base.ts (kb_search,
 * search_knowledge_base), pdf.ts (a PDF's text, with unpdf).
 */
export * from "./chunking.ts";
export * from "./schemas.ts";
export * from "./search.ts";
export * from "./pricing.ts";
