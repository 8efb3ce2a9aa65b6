/**
 * Content hashes of KB documents: sha256 of the exact content, lower-case hex. An update whose
 * hash equals the stored one keeps the stored chunks and embeddings.
 */
export async function contentHash(content: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(content));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
