/**
 * Stage 4, extract-metadata (progress 50-60): the metadata model reads each product's pages and
 * answers its attributes (dimensions, colors, patterns, materials, finishes, applications,
 * certifications and any others it finds); each product row's metadata is replaced with them,
 * so a re-run writes the same values again. The system prompt is ai_prompts'
 * extract-metadata/product_metadata (pipeline/prompts.ts); the model answers by calling
 * `report_product_metadata` (a forced tool call validated with `metadataReply`, model layer).
 */
import { z } from "zod";
import { check, type StageContext } from "./context.ts";
import type { DiscoveredProduct } from "./extract.ts";

export interface MetadataOutput {
  products: { id: string; name: string; metadata: Record<string, unknown> }[];
}

const listOf = z.array(z.string()).optional();
const metadataReply = z.object({
  dimensions: listOf,
  colors: listOf,
  patterns: listOf,
  materials: listOf,
  finishes: listOf,
  applications: listOf,
  certifications: listOf,
}).catchall(z.unknown());

export async function extractMetadata(
  ctx: StageContext,
  input: { document_id: string; product_ids: string[]; products: DiscoveredProduct[]; pdf_text: string[] },
): Promise<MetadataOutput> {
  const out: MetadataOutput = { products: [] };
  const system = await ctx.prompt("extract-metadata/product_metadata");
  // Every product's answer first, then the writes: a model failure leaves no metadata half-saved.
  for (const product of input.products.filter((p) => input.product_ids.includes(p.id))) {
    const pages = input.pdf_text.slice(product.page_start - 1, product.page_end)
      .map((t, i) => `--- Page ${product.page_start + i} ---\n${t}`).join("\n\n");
    const { value: metadata } = await ctx.llm.structured(metadataReply, {
      model: ctx.ai.metadata_extraction_model,
      system,
      prompt: [{ type: "text", text: `Product: ${product.name}\n\n${pages}` }],
      maxTokens: ctx.ai.metadata_max_tokens,
      purpose: `Metadata of ${product.name}`,
      tool: "report_product_metadata",
      description: "Report the product's attributes found on its pages: each list holds strings and is " +
        "empty when the pages say nothing about it; any other attribute goes under its own key.",
      signal: ctx.signal,
    });
    out.products.push({ id: product.id, name: product.name, metadata });
  }
  for (const { id, metadata } of out.products) {
    check(
      await ctx.db.from("pipeline_products").update({ metadata }).eq("id", id)
        .eq("document_id", input.document_id),
      "Saving product metadata",
    );
  }
  return out;
}
