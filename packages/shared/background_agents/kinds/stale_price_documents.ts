/**
 * stale_price_documents: price documents of the knowledge base (kb_docs with a price_doc_type,
 * published) not updated for max_age_days; the workspace's owners and admins are notified so the
 * price lookup does not quote from an outdated list.
 */
import { z } from "zod";
import { rows } from "../../supabase/postgrest.ts";
import { notifyManagers } from "../notify.ts";
import type { AgentKind } from "../types.ts";

const DAY_MS = 86_400_000;

const input = z.object({
  max_age_days: z.number().int().min(1).max(3650).default(90)
    .meta({ description: "A price document older than this many days (since its last update) is stale" }),
  notify: z.boolean().default(true).meta({ description: "Notify the workspace's owners and admins" }),
});

export const stalePriceDocuments: AgentKind<typeof input> = {
  id: "stale_price_documents",
  name: "Stale price document checker",
  description: "Finds published price documents (price lists, discount rules, contract terms, promotions) " +
    "not updated for max_age_days and notifies the workspace's owners and admins.",
  input,
  delegated: false,
  cost: null,
  async run(ctx) {
    const cutoff = new Date(ctx.now.getTime() - ctx.input.max_age_days * DAY_MS);
    const stale = await ctx.step("find_stale_documents", async () => {
      const docs = rows(
        await ctx.service.from("kb_docs").select("id, title, price_doc_type, updated_at")
          .eq("workspace_id", ctx.agent.workspace_id).eq("status", "published")
          .not("price_doc_type", "is", null).lt("updated_at", cutoff.toISOString())
          .order("updated_at").order("id").limit(500),
        "Price documents",
      ) as { id: string; title: string; price_doc_type: string; updated_at: string }[];
      const found = docs.map((d) => ({
        ...d,
        age_days: Math.floor((ctx.now.getTime() - new Date(d.updated_at).getTime()) / DAY_MS),
      }));
      await ctx.log.info(
        "find_stale_documents",
        `${found.length} price document(s) older than ${ctx.input.max_age_days} days`,
        {
          document_ids: found.map((d) => d.id),
        },
      );
      return found;
    });
    const notified = stale.length && ctx.input.notify
      ? await ctx.step("notify", async () => {
        const users = await notifyManagers(ctx.service, ctx.agent.workspace_id, {
          type: "stale_price_documents",
          title: `${stale.length} price document(s) need an update`,
          message: stale.slice(0, 10).map((d) => `${d.title} (${d.age_days} days)`).join(", "),
          data: { agent_id: ctx.agent.id, run_id: ctx.run.id, document_ids: stale.map((d) => d.id) },
        });
        await ctx.log.info("notify", `Notified ${users.length} owner(s) and admin(s)`);
        return users.length;
      })
      : 0;
    return { max_age_days: ctx.input.max_age_days, stale_documents: stale, notified_users: notified };
  },
};
