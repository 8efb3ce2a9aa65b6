/**
 * catalog_description_writer: products of the workspace without a description get one written by
 * the language model (Anthropic Messages API, packages/shared/agent/llm.ts) from their own facts
 * (name, SKU, category, attributes), never invented specifications. Costs CREDITS_PER_PRODUCT per
 * product, debited through the credit ledger before the model is called and refunded in full if
 * the run fails; the descriptions are saved together in one statement at the end (all or none).
 *
 * Model: BACKGROUND_AGENT_MODEL (default claude-haiku-4-5).
 */
import { z } from "zod";
import type Anthropic from "@anthropic-ai/sdk";
import { env } from "../../env.ts";
import { rows } from "../../supabase/postgrest.ts";
import type { AgentKind } from "../types.ts";

export const CREDITS_PER_PRODUCT = 2;
const DEFAULT_MODEL = "claude-haiku-4-5";
const MAX_DESCRIPTION_CHARS = 2000;

const input = z.object({
  max_products: z.number().int().min(1).max(50).default(10)
    .meta({ description: "At most this many products are described in one run" }),
  language: z.string().min(2).max(35).default("en")
    .meta({ description: "Language of the descriptions (BCP 47 tag or name)" }),
});

const SYSTEM = "You write product descriptions for a building-materials catalog. Use only the facts given " +
  "(name, SKU, category, attributes); never invent dimensions, standards, certifications or prices. " +
  "Answer with the description only: 2 to 4 sentences of plain text, no headings, no quotes.";

interface ProductFacts {
  id: string;
  name: string;
  sku: string | null;
  category: string | null;
  metadata: Record<string, unknown> | null;
}

function textOf(message: Anthropic.Message): string {
  return message.content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("\n")
    .trim();
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
    await ctx.step("charge", async () => {
      await ctx.charge(credits, `${products.length} product description(s)`);
      await ctx.log.info("charge", `Charged ${credits} credits for ${products.length} product(s)`);
    });
    const model = env("BACKGROUND_AGENT_MODEL") ?? DEFAULT_MODEL;
    const llm = ctx.llm();
    const written = await ctx.step("generate", async () => {
      const out: { id: string; name: string; description: string }[] = [];
      for (const p of products) {
        const facts = { name: p.name, sku: p.sku, category: p.category, attributes: p.metadata ?? {} };
        const message = await llm.messages.create({
          model,
          max_tokens: 400,
          system: SYSTEM,
          messages: [{
            role: "user",
            content: `Language: ${ctx.input.language}\nProduct facts (JSON):\n${JSON.stringify(facts)}`,
          }],
        });
        const text = textOf(message).slice(0, MAX_DESCRIPTION_CHARS);
        if (!text) throw new Error(`The model returned no description for "${p.name}"`);
        out.push({ id: p.id, name: p.name, description: text });
        await ctx.log.info("generate", `Described "${p.name}"`, {
          product_id: p.id,
          input_tokens: message.usage.input_tokens,
          output_tokens: message.usage.output_tokens,
        });
      }
      return out;
    });
    const saved = await ctx.step("save", async () => {
      const n = rows(
        await ctx.service.rpc("agent_save_product_descriptions", {
          p_workspace_id: ctx.agent.workspace_id,
          p_items: written.map(({ id, description }) => ({ id, description })),
        }),
        "Product descriptions",
      ) as number;
      if (n < written.length) {
        await ctx.log.warn(
          "save",
          `${written.length - n} product(s) got a description elsewhere meanwhile; kept theirs`,
        );
      }
      await ctx.log.info("save", `Saved ${n} description(s)`);
      return n;
    });
    return { products_described: saved, credits_charged: credits, model, descriptions: written };
  },
};
