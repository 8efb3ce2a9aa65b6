/**
 * Stage 6, create-relationships (progress 80-100): chunk-image and product-image relationships.
 * Chunk text (1024-d) and image vectors (768-d) live in different spaces, so the similarity is
 * the pages' proximity: 1 / (1 + d), d the distance in pages between the image's page and the
 * chunk's (or product's) page range - 1 on the same page, 0.5 on the next. Pairs at or above
 * similarity_threshold (default 0.5) are upserted on (kind, source_id, image_id). Images, chunks
 * and products are read in pages of 1,000 ordered by id, so a document of any size is covered.
 */
import { readPages } from "@shared/supabase/postgrest.ts";
import { check, type StageContext } from "./context.ts";

export interface RelationshipsOutput {
  chunk_image: number;
  product_image: number;
}

export function pageSimilarity(page: number, start: number, end: number): number {
  const d = page < start ? start - page : page > end ? page - end : 0;
  return 1 / (1 + d);
}

export async function createRelationships(
  ctx: StageContext,
  input: { document_id: string; product_ids: string[]; similarity_threshold: number },
): Promise<RelationshipsOutput> {
  const doc = input.document_id;
  // Every image, chunk and product of the document, paged by id: a single read stops at max_rows
  // (1,000) without an error, and a relationship missed here is never created.
  type Span = { id: string; page_start: number; page_end: number };
  const all = async <T>(table: string, columns: string, what: string): Promise<T[]> =>
    check(
      await readPages<T>(() => ctx.db.from(table).select(columns).eq("document_id", doc).order("id")),
      what,
    );
  const images = await all<{ id: string; page_number: number }>(
    "document_images",
    "id, page_number",
    "Reading images",
  );
  const chunks = await all<Span>("document_chunks", "id, page_start, page_end", "Reading chunks");
  const wanted = new Set(input.product_ids);
  const products = (await all<Span>("pipeline_products", "id, page_start, page_end", "Reading products"))
    .filter((p) => wanted.has(p.id));
  const rows: Record<string, unknown>[] = [];
  const pair = (kind: string, source: { id: string; page_start: number; page_end: number }) => {
    for (const im of images) {
      const similarity = pageSimilarity(im.page_number, source.page_start, source.page_end);
      if (similarity >= input.similarity_threshold) {
        rows.push({ document_id: doc, kind, source_id: source.id, image_id: im.id, similarity });
      }
    }
  };
  chunks.forEach((c) => pair("chunk_image", c));
  const chunkImage = rows.length;
  products.forEach((p) => pair("product_image", p));
  for (let i = 0; i < rows.length; i += 500) {
    check(
      await ctx.db.from("document_relationships").upsert(rows.slice(i, i + 500), {
        onConflict: "kind,source_id,image_id",
      }),
      "Saving relationships",
    );
  }
  return { chunk_image: chunkImage, product_image: rows.length - chunkImage };
}
