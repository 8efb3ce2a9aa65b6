/**
 * Product text embeddings (POST /api/admin/generate-product-embeddings): a workspace's products
 * embedded with the configured provider into product_embeddings, re-embedded when their text
 * changed (content_hash).
 */
import { contentHash } from "../content_hash.ts";
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import { toPgVector } from "../embeddings/provider.ts";
import { type Db, fail, type Json, requireWorkspace } from "./support.ts";

interface ProductRow {
  id: string;
  name: string;
  sku?: string | null;
  category?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** The text a product is embedded from: name, sku, category, description and metadata values. */
export function productText(p: Omit<ProductRow, "id">): string {
  const meta = Object.entries(p.metadata ?? {})
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  return [
    p.name,
    p.sku ? `SKU ${p.sku}` : null,
    p.category ? `Category: ${p.category}` : null,
    p.description ?? null,
    ...meta,
  ].filter(Boolean).join("\n");
}

/**
 * Embeds up to `limit` of a workspace's products that have no embedding, or whose text changed
 * since it was embedded, with the configured provider (one batched call), and stores them in one
 * upsert. Answers how many were embedded and how many still lack one.
 */
export async function generateProductEmbeddings(
  db: Db,
  embeddings: EmbeddingProvider,
  workspaceId: string,
  limit: number,
): Promise<Json> {
  await requireWorkspace(db, workspaceId);
  const products: ProductRow[] = [];
  for (let from = 0;; from += 1000) {
    const r = await db.from("products").select("id, name, sku, category, description, metadata")
      .eq("workspace_id", workspaceId).order("created_at").order("id").range(from, from + 999);
    if (r.error) fail("Reading products", r.error);
    products.push(...(r.data as ProductRow[]));
    if (r.data.length < 1000) break;
  }
  const stored = new Map<string, string>();
  for (let from = 0;; from += 1000) {
    const r = await db.from("product_embeddings").select("product_id, content_hash")
      .eq("workspace_id", workspaceId).order("product_id").range(from, from + 999);
    if (r.error) fail("Reading product embeddings", r.error);
    for (const e of r.data) stored.set(e.product_id, e.content_hash);
    if (r.data.length < 1000) break;
  }
  const todo: { p: ProductRow; text: string; hash: string }[] = [];
  for (const p of products) {
    const text = productText(p);
    const hash = await contentHash(text);
    if (stored.get(p.id) !== hash) todo.push({ p, text, hash });
  }
  const batch = todo.slice(0, limit);
  if (batch.length) {
    const vectors = await embeddings.embed(batch.map((t) => t.text), "document");
    const embedded_at = new Date().toISOString();
    const up = await db.from("product_embeddings").upsert(
      batch.map((t, i) => ({
        product_id: t.p.id,
        workspace_id: workspaceId,
        embedding: toPgVector(vectors[i]),
        embedding_model: embeddings.model,
        content_hash: t.hash,
        embedded_at,
      })),
      { onConflict: "product_id" },
    );
    if (up.error) fail("Storing product embeddings", up.error);
  }
  return {
    workspace_id: workspaceId,
    embedded: batch.length,
    product_ids: batch.map((t) => t.p.id),
    remaining: todo.length - batch.length,
    total_products: products.length,
    model: embeddings.model,
    provider: embeddings.name,
    dimensions: embeddings.dimensions,
  };
}
