/**
 * price_lookup (owners and admins of the workspace only): the model chooses the arguments; the
 * price is computed by the deterministic engine (packages/shared/pricing) from the workspace's
 * stored price entries. The tool streams price_lookup_matches and the engine's price_proposal
 * itself, after its audit id, so what the user sees never passes through the model; the model
 * gets the same proposal to write its prose from.
 *
 * Audit (agent_tool_call_logs): tool_args = the model's arguments as sent; result_summary =
 * {match_count, hints, documents, index_cached, reparsed, timing_ms, proposal}; zero_result =
 * no price entry matched the request at all.
 */
import { priceLookupMatchesChunk, PriceLookupParamsSchema, PriceProposalSchema } from "../../pricing/mod.ts";
import { lookupWorkspacePrice } from "../../pricing/store.ts";
import type { AgentTool } from "./registry.ts";

const MODEL_SNIPPETS = 5;

export const priceLookupTool: AgentTool<typeof PriceLookupParamsSchema> = {
  name: "price_lookup",
  description:
    "Look up the price of a product in the workspace's Pricing documents (price lists, discount rules, " +
    "contract terms, promotions). Returns a price_proposal computed from those documents: list price, " +
    "discount, final unit price, total for the quantity, sources, reasoning and warnings. Give the product " +
    "name as the user wrote it, and the SKU, manufacturer, quantity and unit when known. Give the customer " +
    "(the company the quote is for) whenever the quote or the conversation names one: contract terms agreed " +
    "for one customer apply only when the lookup is for that customer. A proposal with confidence low " +
    "but a final price is a candidate only: give it as such, with the warnings saying what to check.",
  schema: PriceLookupParamsSchema,
  roles: ["owner", "admin"],
  async run(ctx, input) {
    ctx.emit({
      type: "tool_progress",
      tool_name: "price_lookup",
      status: `Looking up the price of ${input.sku ? `${input.sku} ` : ""}"${input.product_name}"`,
    });
    if (input.product_id) {
      const { data, error } = await ctx.db.from("products").select("id")
        .eq("id", input.product_id).eq("workspace_id", ctx.workspaceId).maybeSingle();
      if (error) throw new Error(`Reading the product: ${error.message}`);
      if (!data) {
        return {
          content: `product_id ${input.product_id} is not a product of this workspace.`,
          isError: true,
        };
      }
    }
    const found = await lookupWorkspacePrice(ctx.db, ctx.workspaceId, { ...input, today: ctx.today });
    const { proposal, matches, hints } = found.result;
    // The engine's output is the contract; a shape drift is a bug to surface, not to stream.
    PriceProposalSchema.parse(proposal);
    ctx.emit({
      type: "tool_progress",
      tool_name: "price_lookup",
      status: `Found ${matches.length} matching ${matches.length === 1 ? "entry" : "entries"} in ` +
        `${found.documents} Pricing ${
          found.documents === 1 ? "document" : "documents"
        }; composing the proposal`,
    });
    return {
      content: JSON.stringify({
        note: "This price_proposal was computed from the Pricing documents and is already shown to the " +
          "user. Quote its figures exactly; do not compute or adjust prices.",
        price_proposal: proposal,
        top_matches: matches.slice(0, MODEL_SNIPPETS).map((m) => ({
          doc_title: m.doc_title,
          price_doc_type: m.price_doc_type,
          status: m.status,
          snippet: m.snippet,
        })),
      }),
      audit: {
        summary: {
          match_count: matches.length,
          hints,
          documents: found.documents,
          index_cached: found.cached,
          reparsed: found.reparsed,
          timing_ms: found.timing_ms,
          proposal,
        },
        zero_result: matches.length === 0,
      },
      chunks: [priceLookupMatchesChunk(found.result), proposal],
    };
  },
};
