/**
 * Content hashes of documents: sha256 of the exact content, lower-case hex. kb_docs.content_hash
 * and price_entries.content_hash both hold it: a KB update whose hash equals the stored one keeps
 * the stored chunks and embeddings, and the price engine re-parses a document only when its hash
 * (or the parser version) changed. Its own module so that kb and pricing both use it without
 * importing each other (kb calls pricing, never the reverse).
 */
export async function contentHash(content: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(content));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
