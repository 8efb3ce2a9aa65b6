/**
 * Stage 5, create-chunks (progress 60-80): the text is cut into segments that never cross a
 * product boundary - consecutive pages owned by the same product (by its page range; pages no
 * product covers form their own segments) - with index pages left out. Each segment is chunked
 * by the knowledge base's chunker (chunk_size / chunk_overlap, default 512 / 50), each chunk gets
 * one 1024-dimension text embedding (input type `document`) and is linked to its segment's
 * product. Rows are upserted on (document_id, chunk_index); chunks left over from an earlier run
 * with other settings are removed.
 */
import { chunkMarkdown } from "@shared/kb/chunking.ts";
import { toPgVector } from "@shared/embeddings/provider.ts";
import { check, type StageContext } from "./context.ts";
import type { DiscoveredProduct } from "./extract.ts";

export interface ChunksInput {
  document_id: string;
  extracted_text: string[];
  index_pages: number[];
  products: DiscoveredProduct[];
  product_ids: string[];
  chunk_size: number;
  chunk_overlap: number;
}
export interface PlannedChunk {
  chunk_index: number;
  content: string;
  page_start: number;
  page_end: number;
  product_id: string | null;
}
export interface ChunksOutput {
  chunk_count: number;
  chunks_per_product: Record<string, number>;
}

const EMBED_BATCH = 64;

/** The chunks of a document, before embedding (pure: the unit tests call it directly). */
export function planChunks(input: Omit<ChunksInput, "document_id" | "product_ids">): PlannedChunk[] {
  const skip = new Set(input.index_pages);
  const products = [...input.products].sort((a, b) => a.page_start - b.page_start);
  const owner = (page: number) =>
    products.find((p) => page >= p.page_start && page <= p.page_end)?.id ?? null;
  const segments: { product: string | null; pages: number[] }[] = [];
  input.extracted_text.forEach((text, i) => {
    const page = i + 1;
    if (skip.has(page) || !text.trim()) return;
    const product = owner(page);
    const last = segments.at(-1);
    if (last && last.product === product && last.pages.at(-1) === page - 1) last.pages.push(page);
    else segments.push({ product, pages: [page] });
  });
  const out: PlannedChunk[] = [];
  for (const seg of segments) {
    let text = "";
    const starts: { page: number; at: number }[] = [];
    for (const page of seg.pages) {
      if (text) text += "\n\n";
      starts.push({ page, at: text.length });
      text += input.extracted_text[page - 1].trim();
    }
    const pageAt = (offset: number) => [...starts].reverse().find((s) => s.at <= offset)!.page;
    for (const c of chunkMarkdown(text, { size: input.chunk_size, overlap: input.chunk_overlap })) {
      out.push({
        chunk_index: out.length,
        content: c.content,
        page_start: pageAt(c.char_start),
        page_end: pageAt(Math.max(c.char_start, c.char_end - 1)),
        product_id: seg.product,
      });
    }
  }
  return out;
}

export async function createChunks(ctx: StageContext, input: ChunksInput): Promise<ChunksOutput> {
  const wanted = new Set(input.product_ids);
  const planned = planChunks({ ...input, products: input.products.filter((p) => wanted.has(p.id)) });
  for (let i = 0; i < planned.length; i += EMBED_BATCH) {
    const batch = planned.slice(i, i + EMBED_BATCH);
    const vectors = await ctx.textEmbeddings.embed(batch.map((c) => c.content), "document");
    check(
      await ctx.db.from("document_chunks").upsert(
        batch.map((c, j) => ({
          document_id: input.document_id,
          ...c,
          embedding: toPgVector(vectors[j]),
          embedding_model: ctx.textEmbeddings.model,
        })),
        { onConflict: "document_id,chunk_index" },
      ),
      "Saving chunks",
    );
  }
  check(
    await ctx.db.from("document_chunks").delete().eq("document_id", input.document_id)
      .gte("chunk_index", planned.length),
    "Removing stale chunks",
  );
  const perProduct: Record<string, number> = {};
  for (const c of planned) if (c.product_id) perProduct[c.product_id] = (perProduct[c.product_id] ?? 0) + 1;
  return { chunk_count: planned.length, chunks_per_product: perProduct };
}
