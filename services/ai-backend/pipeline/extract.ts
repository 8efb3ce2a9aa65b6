/**
 * Stage 0, extract (progress 0-10): reads the PDF (text per page, embedded images), records the
 * document, and discovers its products with the discovery model: each product's name and page
 * range, and which pages are index pages (contents, indexes) that chunking skips. Products are
 * upserted on (document_id, name), so a re-run finds the same rows. The discovery system prompt is
 * ai_prompts' extract/product_discovery (pipeline/prompts.ts); the model answers by calling
 * `report_products` (a forced tool call validated with `discoveryReply`, model layer).
 */
import { z } from "zod";
import { check, type StageContext } from "./context.ts";

export interface ExtractedImage {
  filename: string;
  path: string;
  page_number: number;
  width: number;
  height: number;
}
export interface DiscoveredProduct {
  id: string;
  name: string;
  page_start: number;
  page_end: number;
}
export interface ExtractOutput {
  document_id: string;
  page_count: number;
  pages: string[];
  index_pages: number[];
  extracted_images: ExtractedImage[];
  products: DiscoveredProduct[];
}

const discoveryReply = z.object({
  products: z.array(z.object({
    name: z.string().trim().min(1).max(300),
    page_start: z.number().int().min(1),
    page_end: z.number().int().min(1),
  })).max(1000),
  index_pages: z.array(z.number().int().min(1)).default([]),
});

export async function extract(ctx: StageContext): Promise<ExtractOutput> {
  const pdf = await ctx.pdf();
  const pageCount = pdf.pages.length;
  const text = pdf.pages.map((t, i) => `--- Page ${i + 1} ---\n${t}`).join("\n\n");
  // The model answers before anything is written: a failed discovery leaves no rows behind.
  const { value: found } = await ctx.llm.structured(discoveryReply, {
    model: ctx.ai.discovery_model,
    system: await ctx.prompt("extract/product_discovery"),
    prompt: [{ type: "text", text }],
    maxTokens: ctx.ai.discovery_max_tokens,
    purpose: "Product discovery",
    tool: "report_products",
    description: "Report every product of the catalogue with the first and last page it is described on, " +
      "and the pages that are only a table of contents or an index.",
    signal: ctx.signal,
  });
  check(
    await ctx.db.from("pipeline_documents").upsert({
      id: ctx.documentId,
      job_id: ctx.job.id,
      user_id: ctx.job.user_id,
      workspace_id: ctx.job.workspace_id,
      filename: ctx.job.filename,
      page_count: pageCount,
    }, { onConflict: "id" }),
    "Recording the document",
  );

  // Keep ranges inside the document and in order; one row per name (the first range wins).
  const byName = new Map<string, { name: string; page_start: number; page_end: number }>();
  for (const p of found.products) {
    const start = Math.min(p.page_start, pageCount), end = Math.min(Math.max(p.page_end, start), pageCount);
    if (start < 1 || byName.has(p.name)) continue;
    byName.set(p.name, { name: p.name, page_start: start, page_end: end });
  }
  let products: DiscoveredProduct[] = [];
  if (byName.size) {
    const rows = check(
      await ctx.db.from("pipeline_products")
        .upsert([...byName.values()].map((p) => ({ document_id: ctx.documentId, ...p })), {
          onConflict: "document_id,name",
        })
        .select("id, name, page_start, page_end"),
      "Recording the products",
    ) as DiscoveredProduct[];
    products = rows.sort((a, b) => a.page_start - b.page_start || a.name.localeCompare(b.name));
  }
  return {
    document_id: ctx.documentId,
    page_count: pageCount,
    pages: pdf.pages,
    index_pages: [...new Set(found.index_pages.filter((n) => n <= pageCount))].sort((a, b) => a - b),
    extracted_images: pdf.images.map((im) => ({
      filename: im.filename,
      path: `${ctx.documentId}/${im.filename}`,
      page_number: im.page_number,
      width: im.width,
      height: im.height,
    })),
    products,
  };
}
