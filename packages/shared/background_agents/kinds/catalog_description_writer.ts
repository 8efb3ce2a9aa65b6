/**
 * catalog_description_writer: products of the workspace without a description get one written by
 * the language model (the model layer, packages/shared/llm: a forced `write_description` tool
 * call per product) from their own facts (name, SKU, category, attributes), never invented
 * specifications. Costs CREDITS_PER_PRODUCT per product, debited through the credit ledger before
 * the model is called (after checking a model provider is configured) and refunded in full if the
 * run fails; the descriptions are saved together in one statement at the end (all or none). A
 * model failure fails the run at `generate` with the layer's code: model_unavailable (provider
 * unreachable or erroring, after its retry) or model_bad_output (an unusable answer twice).
 *
 * Model: BACKGROUND_AGENT_MODEL (default the platform's HAIKU, vendor-haiku-4-5).
 */
import { z } from "zod";
import { env } from "../../env.ts";
import { HAIKU } from "../../llm/mod.ts";
import { rows } from "../../supabase/postgrest.ts";
import type { AgentKind } from "../types.ts";

export const CREDITS_PER_PRODUCT = 2;
const MAX_DESCRIPTION_CHARS = 2000;

const input = z.object({
  max_products: z.number().int().min(1).max(50).default(10)
    .meta({ description: "At most this many products are described in one run" }),
  language: z.string().min(2).max(35).default("en")
    .meta({ description: "Language of the descriptions (BCP 47 tag or name)" }),
});

const SYSTEM = "You write product descriptions for a building-materials catalog. Use only the facts given " +
  "(name, SKU, category, attributes); never invent dimensions, standards, certifications or prices. " +
  "Write the description only: 2 to 4 sentences of plain text, no headings, no quotes.";

const descriptionAnswer = z.object({
  description: z.string().trim().min(1).max(MAX_DESCRIPTION_CHARS)
    .meta({ description: "The product description: 2 to 4 sentences of plain text" }),
});

interface ProductFacts {
  id: string;
  name: string;
  sku: string | null;
  category: string | null;
  metadata: Record<string, unknown> | null;
}

export const catalogDescriptionWriter: AgentKind<typeof input> = {
  id: "catalog_description_writer",
  name: "Catalog description writer",
  description: "Writes descriptions for products that have none, with the language model, from each " +
    `product's own facts. Costs ${CREDITS_PER_PRODUCT} credits per product (refunded if the run fails).`,
  input,
  delegated: false,
  cost: { credits_per_unit: CREDITS_PER_PRODUCT, unit: "product described" },
  async run(ctx) {
    const products = await ctx.step("find_products", async () => {
      const found = rows(
        await ctx.service.from("products").select("id, name, sku, category, metadata, description")
          .eq("workspace_id", ctx.agent.workspace_id).neq("status", "archived")
          .or("description.is.null,description.eq.").order("created_at").order("id")
          .limit(ctx.input.max_products),
        "Products",
      ) as (ProductFacts & { description: string | null })[];
      await ctx.log.info("find_products", `${found.length} product(s) without a description`, {
        product_ids: found.map((p) => p.id),
      });
      return found;
    });
    if (products.length === 0) return { products_described: 0, credits_charged: 0, descriptions: [] };
    const credits = products.length * CREDITS_PER_PRODUCT;
    const llm = ctx.llm();
    await ctx.step("charge", async () => {
      llm.assertConfigured("Product descriptions");
      await ctx.charge(credits, `${products.length} product description(s)`);
      await ctx.log.info("charge", `Charged ${credits} credits for ${products.length} product(s)`);
    });
    const model = env("BACKGROUND_AGENT_MODEL") ?? HAIKU;
    const descriptions = await ctx.step("generate", async () => {
      const out: { id: string; name: string; description: string }[] = [];
      for (const p of products) {
        const facts = { name: p.name, sku: p.sku, category: p.category, attributes: p.metadata ?? {} };
        const answer = await llm.structured(descriptionAnswer, {
          model,
          system: SYSTEM,
          prompt: `Language: ${ctx.input.language}\nProduct facts (JSON):\n${JSON.stringify(facts)}`,
          maxTokens: 600,
          purpose: `Description of ${p.name}`,
          tool: "write_description",
          description: "Give the product's description, written from the facts given only.",
        });
        out.push({ id: p.id, name: p.name, description: answer.value.description });
        await ctx.log.info("generate", `Described "${p.name}"`, {
          product_id: p.id,
          model: answer.model,
          input_tokens: answer.usage.input_tokens,
          output_tokens: answer.usage.output_tokens,
        });
      }
      return out;
    });
    const saved = await ctx.step("save", async () => {
      const n = rows(
        await ctx.service.rpc("agent_save_product_descriptions", {
          p_workspace_id: ctx.agent.workspace_id,
          p_items: descriptions.map(({ id, description }) => ({ id, description })),
        }),
        "Product descriptions",
      ) as number;
      if (n < descriptions.length) {
        await ctx.log.warn(
          "save",
          `${descriptions.length - n} product(s) got a description elsewhere meanwhile; kept theirs`,
        );
      }
      await ctx.log.info("save", `Saved ${n} description(s)`);
      return n;
    });
    return { products_described: saved, credits_charged: credits, model, descriptions };
  },
};
