/**
 * duplicate_scan (delegated to the AI backend): the workspace's whole catalogue through the
 * duplicate detector's batch scan (packages/shared/duplicates batchDetect), the pairs stored in
 * duplicate_detection_cache (a reviewed or dismissed pair keeps its status), and the owners and
 * admins notified of what was found.
 */
import { z } from "zod";
import { rows } from "../../supabase/postgrest.ts";
import { batchDetect, DEFAULT_SIMILARITY_THRESHOLD, type Product } from "../../duplicates/mod.ts";
import { notifyManagers } from "../notify.ts";
import type { AgentKind } from "../types.ts";

const PAGE = 1000;

const input = z.object({
  similarity_threshold: z.number().min(0).max(1).default(DEFAULT_SIMILARITY_THRESHOLD)
    .meta({ description: "Minimum overall similarity of a pair, 0 to 1" }),
  limit: z.number().int().min(1).max(10_000).default(1000)
    .meta({ description: "How many of the best pairs to store" }),
  notify: z.boolean().default(true).meta({ description: "Notify the workspace's owners and admins" }),
});

export const duplicateScan: AgentKind<typeof input> = {
  id: "duplicate_scan",
  name: "Duplicate product scan",
  description: "Scans the workspace's catalogue for duplicate products, stores the pairs for review " +
    "(duplicate detection cache) and notifies the owners and admins. Runs on the AI backend.",
  input,
  delegated: true,
  cost: null,
  async run(ctx) {
    const products = await ctx.step("load_catalogue", async () => {
      const all: Product[] = [];
      for (let from = 0;; from += PAGE) {
        const page = rows(
          await ctx.service.from("products").select("id, name, description, metadata")
            .eq("workspace_id", ctx.agent.workspace_id).order("id").range(from, from + PAGE - 1),
          "Products",
        ) as Product[];
        all.push(...page);
        if (page.length < PAGE) break;
      }
      await ctx.log.info("load_catalogue", `Loaded ${all.length} product(s)`);
      return all;
    });
    const { pairs, stats } = await ctx.step("detect", async () => {
      const result = batchDetect(products, ctx.input.similarity_threshold, ctx.input.limit);
      await ctx.log.info("detect", `${result.stats.duplicates_found} duplicate pair(s) found`, {
        stats: result.stats as unknown as Record<string, unknown>,
      });
      return result;
    });
    const stored = pairs.length
      ? await ctx.step("store", async () => {
        // One jsonb array of every stored row: up to 10,000 pairs, past max_rows (1,000) that
        // would cut a set-returning function's answer without an error.
        const saved = rows(
          await ctx.service.rpc("store_duplicate_detections", {
            p_workspace_id: ctx.agent.workspace_id,
            p_pairs: pairs,
          }),
          "Duplicate detections",
        ) as { id: string; status: string }[];
        await ctx.log.info("store", `Stored ${saved.length} detection(s) for review`);
        return saved;
      })
      : [];
    const pendingReview = stored.filter((s) => s.status === "pending").length;
    const notified = pendingReview && ctx.input.notify
      ? await ctx.step("notify", async () => {
        const users = await notifyManagers(ctx.service, ctx.agent.workspace_id, {
          type: "duplicate_scan",
          title: `${pendingReview} possible duplicate product pair(s) to review`,
          message: pairs.slice(0, 5).map((p) => `${p.product_name_1} / ${p.product_name_2}`).join(", "),
          data: { agent_id: ctx.agent.id, run_id: ctx.run.id, cache_ids: stored.map((s) => s.id) },
        });
        await ctx.log.info("notify", `Notified ${users.length} owner(s) and admin(s)`);
        return users.length;
      })
      : 0;
    return {
      products_scanned: products.length,
      duplicates_found: stats.duplicates_found,
      pairs_stored: stored.length,
      pending_review: pendingReview,
      pairs: pairs.map((p) => ({
        product_id_1: p.product_id_1,
        product_id_2: p.product_id_2,
        overall_similarity: p.overall_similarity,
        confidence_level: p.confidence_level,
      })),
      notified_users: notified,
    };
  },
};
