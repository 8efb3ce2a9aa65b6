/**
 * Stage 4, extract-metadata (progress 50-60): the metadata model reads each product's pages and
 * answers its attributes (dimensions, colors, patterns, materials, finishes, applications,
 * certifications and any others it finds); each product row's metadata is replaced with them,
 * so a re-run writes the same values again.
 */
import { z } from "zod";
import { callJson } from "./llm.ts";
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

const SYSTEM = "You extract product attributes from a building-materials catalogue. Answer with one JSON " +
  "object with the lists dimensions, colors, patterns, materials, finishes, applications, " +
  "certifications (strings; empty when absent) and any other attribute you find as a key.";

export async function extractMetadata(
  ctx: StageContext,
  input: { document_id: string; product_ids: string[]; products: DiscoveredProduct[]; pdf_text: string[] },
): Promise<MetadataOutput> {
  const out: MetadataOutput = { products: [] };
  for (const product of input.products.filter((p) => input.product_ids.includes(p.id))) {
    const pages = input.pdf_text.slice(product.page_start - 1, product.page_end)
      .map((t, i) => `--- Page ${product.page_start + i} ---\n${t}`).join("\n\n");
    const metadata = await callJson(
      ctx.llm(),
      {
        model: ctx.ai.metadata_extraction_model,
        temperature: ctx.ai.metadata_temperature,
        maxTokens: ctx.ai.metadata_max_tokens,
        system: SYSTEM,
        content: [{ type: "text", text: `Product: ${product.name}\n\n${pages}` }],
      },
      metadataReply,
      `Metadata of ${product.name}`,
      ctx.track,
    );
    check(
      await ctx.db.from("pipeline_products").update({ metadata }).eq("id", product.id)
        .eq("document_id", input.document_id),
      "Saving product metadata",
    );
    out.products.push({ id: product.id, name: product.name, metadata });
  }
  return out;
}
