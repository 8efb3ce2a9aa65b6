/**
 * messaging-api's action table: for each action of spec "Messaging" the workspace role it needs
 * and the handler (parse done, workspace authorised -> one domain call -> the spec's response).
 */
import type { WorkspaceRoleName } from "@shared/auth/context.ts";
import { DomainError } from "@shared/errors.ts";
import {
  type Action,
  type ActionBody,
  analytics,
  analyticsWindow,
  balance,
  bulkStatus,
  deliver,
  enqueueBulk,
  getSettings,
  listChannels,
  listLogs,
  listTemplates,
  type MessagingContext,
  type MessagingRequest,
  PROVIDER_API_ERROR,
  type RecipientResult,
  type SendPlan,
  syncChannels,
  updateSettings,
} from "@shared/messaging/mod.ts";

const ADMINS: WorkspaceRoleName[] = ["owner", "admin"];
const SENDERS: WorkspaceRoleName[] = ["owner", "admin", "member"];
const MEMBERS = null;

type Body<A extends Action> = ActionBody<A>;
type Table = {
  [A in Action]: {
    roles: WorkspaceRoleName[] | null;
    run: (ctx: MessagingContext, body: Body<A>) => Promise<unknown>;
  };
};

function sendPlan(b: Body<"send"> | Body<"send-bulk">, recipients: SendPlan["recipients"]): SendPlan {
  return {
    ...b,
    recipients,
    variables: b.variables ?? b.templateVariables ?? {},
    tags: b.tags ?? {},
  };
}

/** A one-recipient send that did not go out is the request's failure, in the spec's words. */
function singleResult(r: RecipientResult) {
  if (r.status === "sent") return { success: true, messageId: r.messageId, logId: r.logId };
  throw new DomainError("upstream", "provider_error", PROVIDER_API_ERROR, { providerMessage: r.error });
}

export const ACTIONS: Table = {
  send: {
    roles: SENDERS,
    run: async (ctx, b) => {
      const tos = Array.isArray(b.to) ? b.to : [b.to];
      const results = await deliver(ctx, {
        ...sendPlan(b, tos.map((to) => ({ to }))),
        single: !Array.isArray(b.to),
      });
      if (!Array.isArray(b.to)) return singleResult(results[0]);
      const sent = results.filter((r) => r.status === "sent").length;
      return {
        success: sent > 0,
        sent,
        failed: results.length - sent,
        results: results.map((r) => ({
          success: r.status === "sent",
          messageId: r.messageId ?? null,
          status: r.status,
          to: r.to,
          ...(r.error ? { error: r.error } : {}),
        })),
      };
    },
  },
  // Recorded and queued, answered at once: the worker (messaging-bulk-worker) sends at the
  // channel's pace; send-bulk-status reads the progress. `sent` is 0 here by construction.
  "send-bulk": {
    roles: SENDERS,
    run: async (ctx, b) => {
      const r = await enqueueBulk(ctx, sendPlan(b, b.recipients));
      return {
        success: true,
        bulkId: r.bulkId,
        status: "queued",
        total: r.total,
        queued: r.queued,
        sent: 0,
        failed: r.failed,
        optedOut: r.optedOut,
        results: r.results,
      };
    },
  },
  "send-bulk-status": {
    roles: MEMBERS,
    run: async (ctx, b) => ({ success: true, ...await bulkStatus(ctx, b.bulkId, b) }),
  },
  channels: {
    roles: MEMBERS,
    run: async (ctx, b) => ({ success: true, channels: await listChannels(ctx, b.channelType) }),
  },
  templates: {
    roles: MEMBERS,
    run: async (ctx, b) => ({ success: true, templates: await listTemplates(ctx, b.channelType) }),
  },
  logs: {
    roles: MEMBERS,
    run: async (ctx, b) => ({
      success: true,
      logs: await listLogs(ctx, { ...b, channelType: b.channelType ?? b.channel }),
    }),
  },
  analytics: {
    roles: MEMBERS,
    run: async (ctx, b) => {
      const w = analyticsWindow(
        ctx.clock.now(),
        b.dateRange?.start ?? b.startDate,
        b.dateRange?.end ?? b.endDate,
      );
      return { success: true, ...await analytics(ctx, w, b.channelType) };
    },
  },
  balance: { roles: ADMINS, run: async (ctx) => ({ success: true, ...await balance(ctx) }) },
  "send-test": {
    roles: SENDERS,
    run: async (ctx, b) => {
      const plan: SendPlan = b.campaignId
        ? {
          channel: b.channel,
          templateId: b.campaignId,
          recipients: [{ to: b.testNumber }],
          variables: b.variables ?? {},
          messageType: "transactional",
          tags: { test: true },
        }
        : {
          channel: b.channel,
          content: b.content,
          recipients: [{ to: b.testNumber }],
          variables: b.variables ?? {},
          messageType: "transactional",
          tags: { test: true },
        };
      if (b.campaignId) {
        // The template decides the channel of a campaign test.
        const t = await ctx.db.from("messaging_templates").select("channel_type").eq("id", b.campaignId).eq(
          "workspace_id",
          ctx.workspaceId,
        ).maybeSingle();
        if (t.data) plan.channel = t.data.channel_type;
      }
      const { messageId } = singleResult((await deliver(ctx, { ...plan, single: true }))[0]);
      return { success: true, messageId };
    },
  },
  "sync-channels": { roles: ADMINS, run: async (ctx) => ({ success: true, ...await syncChannels(ctx) }) },
  "get-settings": {
    roles: MEMBERS,
    run: async (ctx) => ({ success: true, settings: await getSettings(ctx) }),
  },
  "update-settings": {
    roles: ADMINS,
    run: async (ctx, b) => ({ success: true, settings: await updateSettings(ctx, b.settings) }),
  },
};

/** Runs the body's action (the table above pairs each action with the handler for its body). */
export function runAction(ctx: MessagingContext, body: MessagingRequest): Promise<Record<string, unknown>> {
  const run = ACTIONS[body.action].run as (ctx: MessagingContext, b: MessagingRequest) => Promise<unknown>;
  return run(ctx, body) as Promise<Record<string, unknown>>;
}
