/**
 * Search tools every member of the workspace may use (viewers included: they only read).
 *
 * - product_search: the workspace's catalog (products), every word of the query in the name,
 *   SKU or description, through the caller's RLS.
 * - knowledge_base_search: hybrid search (kb_hybrid_search) over the KB documents of member-level
 *   categories only. Admin-level categories - Pricing among them - are left out on purpose, for
 *   admins too: prices reach the conversation only as price_lookup's computed proposal, never as
 *   raw price-list text for the model to do arithmetic on.
 */
import { z } from "zod";
import { env } from "../../env.ts";
import { embeddingsFromEnv, toPgVector } from "../../embeddings/mod.ts";
import { embeddingSketch } from "../../embeddings/simhash.ts";
import type { AgentTool } from "./registry.ts";

const MAX_WORDS = 6;

/** Words safe inside a PostgREST or=(...) filter: letters, digits, dot, dash, slash. */
export function searchWords(query: string): string[] {
  return query.split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}.\-/]/gu, ""))
    .filter((w) => w.length > 0)
    .slice(0, MAX_WORDS);
}

const ProductSearchSchema = z.object({
  query: z.string().min(1).max(200),
  limit: z.number().int().min(1).max(20).optional(),
});

export const productSearchTool: AgentTool<typeof ProductSearchSchema> = {
  name: "product_search",
  description: "Search the workspace's product catalog by name, SKU or description words. Returns products " +
    "with id, name, SKU, category and a short description (no prices).",
  schema: ProductSearchSchema,
  roles: ["owner", "admin", "member", "viewer"],
  async run(ctx, input) {
    ctx.emit({
      type: "tool_progress",
      tool_name: "product_search",
      status: `Searching products for "${input.query}"`,
    });
    const words = searchWords(input.query);
    if (!words.length) return { content: "The query has no searchable words.", isError: true };
    let q = ctx.db.from("products").select("id, name, sku, category, description")
      .eq("workspace_id", ctx.workspaceId).neq("status", "archived");
    for (const w of words) q = q.or(`name.ilike.*${w}*,sku.ilike.*${w}*,description.ilike.*${w}*`);
    const { data, error } = await q.order("name").limit(input.limit ?? 10);
    if (error) throw new Error(`Searching products: ${error.message}`);
    const products = (data ?? []).map((p) => ({
      ...p,
      description: p.description ? String(p.description).slice(0, 300) : null,
    }));
    return {
      content: JSON.stringify({ products }),
      audit: {
        summary: { result_count: products.length, query: input.query },
        zero_result: products.length === 0,
      },
    };
  },
};

const KbSearchSchema = z.object({
  query: z.string().min(1).max(500),
  limit: z.number().int().min(1).max(10).optional(),
});

export const knowledgeBaseSearchTool: AgentTool<typeof KbSearchSchema> = {
  name: "knowledge_base_search",
  description: "Search the workspace's knowledge base (product documentation, guides, specifications). " +
    "Returns the best matching passages with their document titles. Pricing documents are not searched: " +
    "use price_lookup for prices.",
  schema: KbSearchSchema,
  roles: ["owner", "admin", "member", "viewer"],
  async run(ctx, input) {
    ctx.emit({
      type: "tool_progress",
      tool_name: "knowledge_base_search",
      status: `Searching the knowledge base for "${input.query}"`,
    });
    const [embedding] = await embeddingsFromEnv(env).embed([input.query], "query");
    const { data, error } = await ctx.db.rpc("kb_hybrid_search", {
      p_workspace_id: ctx.workspaceId,
      p_query_text: input.query,
      p_query_embedding: toPgVector(embedding),
      p_query_sketch: embeddingSketch(embedding),
      p_match_count: input.limit ?? 5,
      p_access_levels: ["public", "member"],
      p_require_published: true,
    });
    if (error) throw new Error(`Searching the knowledge base: ${error.message}`);
    const passages = (data as Record<string, unknown>[]).map((r) => ({
      doc_id: r.doc_id,
      document_title: r.document_title,
      heading: r.heading,
      content: String(r.content).slice(0, 800),
      relevance_score: r.relevance_score,
    }));
    return {
      content: JSON.stringify({ passages }),
      audit: {
        summary: { result_count: passages.length, query: input.query },
        zero_result: passages.length === 0,
      },
    };
  },
};
