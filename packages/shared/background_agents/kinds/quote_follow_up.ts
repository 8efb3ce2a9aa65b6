/**
 * quote_follow_up: quote requests still `pending` pending_days after they were made (no proposal
 * or decision yet); the workspace's owners and admins are notified to follow them up.
 */
import { z } from "zod";
import { rows } from "../../supabase/postgrest.ts";
import { notifyManagers } from "../notify.ts";
import type { AgentKind } from "../types.ts";

const DAY_MS = 86_400_000;

const input = z.object({
  pending_days: z.number().int().min(1).max(365).default(3)
    .meta({ description: "A quote request pending for at least this many days needs a follow-up" }),
  notify: z.boolean().default(true).meta({ description: "Notify the workspace's owners and admins" }),
});

export const quoteFollowUp: AgentKind<typeof input> = {
  id: "quote_follow_up",
  name: "Quote follow-up",
  description: "Finds quote requests still pending after pending_days and notifies the workspace's owners " +
    "and admins to follow them up.",
  input,
  delegated: false,
  cost: null,
  async run(ctx) {
    const cutoff = new Date(ctx.now.getTime() - ctx.input.pending_days * DAY_MS);
    const pending = await ctx.step("find_pending_requests", async () => {
      const found = rows(
        await ctx.service.from("quote_requests")
          .select("id, quote_id, user_id, created_at, quotes(quote_number, title, customer_name)")
          .eq("workspace_id", ctx.agent.workspace_id).eq("status", "pending")
          .lt("created_at", cutoff.toISOString()).order("created_at").order("id").limit(500),
        "Quote requests",
      ) as unknown as {
        id: string;
        quote_id: string;
        user_id: string;
        created_at: string;
        quotes: { quote_number: string; title: string | null; customer_name: string | null } | null;
      }[];
      const list = found.map((r) => ({
        id: r.id,
        quote_id: r.quote_id,
        quote_number: r.quotes?.quote_number ?? null,
        customer_name: r.quotes?.customer_name ?? null,
        requested_by: r.user_id,
        created_at: r.created_at,
        pending_days: Math.floor((ctx.now.getTime() - new Date(r.created_at).getTime()) / DAY_MS),
      }));
      await ctx.log.info(
        "find_pending_requests",
        `${list.length} quote request(s) pending for ${ctx.input.pending_days}+ days`,
        { quote_request_ids: list.map((r) => r.id) },
      );
      return list;
    });
    const notified = pending.length && ctx.input.notify
      ? await ctx.step("notify", async () => {
        const users = await notifyManagers(ctx.service, ctx.agent.workspace_id, {
          type: "quote_follow_up",
          title: `${pending.length} quote request(s) await an answer`,
          message: pending.slice(0, 10).map((r) => `${r.quote_number ?? r.quote_id} (${r.pending_days} days)`)
            .join(", "),
          data: { agent_id: ctx.agent.id, run_id: ctx.run.id, quote_request_ids: pending.map((r) => r.id) },
        });
        await ctx.log.info("notify", `Notified ${users.length} owner(s) and admin(s)`);
        return users.length;
      })
      : 0;
    return { pending_days: ctx.input.pending_days, pending_requests: pending, notified_users: notified };
  },
};
