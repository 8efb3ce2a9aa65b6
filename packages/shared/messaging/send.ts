/**
 * The send pipeline (send, send-bulk, send-test), stage by stage:
 *   resolve the channel -> resolve the template -> plan each recipient (E.164, variables, opt-out)
 *   -> hold the channel's daily quota -> pace on max_send_rate -> log queued -> provider -> log
 *   sent/failed.
 * Every message handed to the provider leaves a messaging_logs row (written by the service
 * path); opted-out recipients are never sent to and never reach the provider.
 */
import { DomainError } from "../errors.ts";
import { readInGroups, readPages, rows } from "../supabase/postgrest.ts";
import { utcDayStart } from "./clock.ts";
import type { ChannelRow, MessagingContext, TemplateRow } from "./context.ts";
import { SendPacer, WINDOW_MS } from "./limiter.ts";
import { type ChannelType, requireE164, toProviderAddress } from "./phone.ts";
import { type OutgoingMessage, ProviderError } from "./provider.ts";
import { contentVariables, renderTemplate, type Variables } from "./template.ts";

export interface SendPlan {
  channel: ChannelType;
  from?: string;
  recipients: { to: string; variables?: Variables }[];
  content?: string;
  templateSlug?: string;
  templateId?: string;
  variables?: Variables;
  mediaUrl?: string | string[];
  messageType: string;
  tags?: unknown;
  whatsappContentSid?: string;
  bulkId?: string;
  /** One addressee (send with a string `to`, send-test): its refusal is the request's error. */
  single?: boolean;
}

export interface RecipientResult {
  to: string;
  status: "sent" | "failed" | "opted_out";
  messageId?: string;
  logId?: string;
  error?: string;
}

/** Sends run this many at a time; the pacer keeps them within max_send_rate. */
const CONCURRENCY = 8;

export const ALL_OPTED_OUT = "All recipients have opted out";
export const TEMPLATE_NOT_FOUND = "Template not found";

export async function resolveChannel(
  ctx: MessagingContext,
  type: ChannelType,
  from?: string,
): Promise<ChannelRow> {
  let q = ctx.db.from("messaging_channels").select("*").eq("workspace_id", ctx.workspaceId)
    .eq("channel_type", type).eq("is_active", true);
  q = from ? q.eq("sender_id", requireE164(from, "from")) : q.eq("is_default", true);
  const found = rows(await q.limit(1)) as ChannelRow[];
  if (found.length === 0) {
    throw from
      ? DomainError.notFound(`No active ${type} channel with sender ${from}`)
      : DomainError.invalid(`No default ${type} channel configured`, undefined, "no_default_channel");
  }
  return found[0];
}

export async function resolveTemplate(
  ctx: MessagingContext,
  by: { templateSlug?: string; templateId?: string },
): Promise<TemplateRow | null> {
  if (!by.templateSlug && !by.templateId) return null;
  let q = ctx.db.from("messaging_templates").select("*").eq("workspace_id", ctx.workspaceId).eq(
    "is_active",
    true,
  );
  q = by.templateId ? q.eq("id", by.templateId) : q.eq("slug", by.templateSlug!);
  const found = rows(await q.limit(1)) as TemplateRow[];
  if (found.length === 0) throw DomainError.notFound(TEMPLATE_NOT_FOUND);
  return found[0];
}

export interface Planned {
  to: string;
  content: string | null;
  contentVariables?: Record<string, string>;
  variables: Variables;
}

/** The message one recipient gets, or the reason they get none. */
function planRecipient(
  plan: SendPlan,
  template: TemplateRow | null,
  contentSid: string | undefined,
  r: { to: string; variables?: Variables },
): Planned {
  const variables = { ...plan.variables, ...r.variables };
  const to = requireE164(r.to);
  if (contentSid) {
    // WhatsApp Content API: the provider renders the approved template from ContentVariables.
    const declared = template?.variables ?? [];
    const body = template ? renderTemplate(template.content, variables, declared) : plan.content ?? null;
    return { to, content: body, contentVariables: contentVariables(declared, variables), variables };
  }
  // Only a template's declared variables are required; plain content is never refused for `{{`.
  if (template) {
    return { to, content: renderTemplate(template.content, variables, template.variables), variables };
  }
  if (!plan.content) throw DomainError.invalid("content is required when no template is given");
  return { to, content: renderTemplate(plan.content, variables), variables };
}

async function optedOut(
  ctx: MessagingContext,
  channel: ChannelType,
  numbers: string[],
): Promise<Set<string>> {
  // Groups of at most ~6 kB of URL each (a few hundred numbers), never one over-long request line.
  const found = rows(
    await readInGroups(
      [...new Set(numbers)],
      (list) =>
        ctx.service.from("messaging_optouts").select("phone_number").eq("workspace_id", ctx.workspaceId)
          .in("channel_type", [channel, "all"]).filter("phone_number", "in", list),
    ),
  ) as { phone_number: string }[];
  return new Set(found.map((f) => f.phone_number));
}

/**
 * The channel's attempts so far: today's count (UTC) and the times of the last minute's, oldest
 * first, up to `perMinute` of them (what the pacer needs; past 1,000 they are read in pages).
 */
async function channelUsage(
  ctx: MessagingContext,
  channelId: string,
  perMinute: number,
): Promise<{ today: number; recent: number[] }> {
  const now = ctx.clock.now();
  const dayStart = new Date(utcDayStart(now)).toISOString();
  const today = await ctx.service.from("messaging_logs").select("id", { count: "exact", head: true })
    .eq("channel_id", channelId).gte("created_at", dayStart);
  rows(today);
  const window = await readPages<{ created_at: string }>(
    () =>
      ctx.service.from("messaging_logs").select("created_at").eq("channel_id", channelId)
        .gt("created_at", new Date(now - WINDOW_MS).toISOString()).order("created_at").order("id"),
    Math.max(perMinute, 1),
  );
  const recent = rows(window, "Messaging log") as { created_at: string }[];
  return { today: today.count ?? 0, recent: recent.map((r) => Date.parse(r.created_at)) };
}

export function quotaMessage(channel: ChannelRow): string {
  return `Daily quota of ${channel.daily_quota} messages reached for ${channel.channel_type} channel ${channel.sender_id}`;
}

/** A send resolved and planned: what each recipient gets, or why they get nothing. */
export interface PreparedSend {
  channel: ChannelRow;
  template: TemplateRow | null;
  contentSid: string | undefined;
  planned: (Planned | RecipientResult)[];
  blocked: Set<string>;
}

/**
 * The stages before any slot is taken (send and send-bulk share them): channel, credentials,
 * template, each recipient's message, opt-outs. A bad number or a missing variable fails the
 * whole request when it is one recipient; every sendable recipient opted out is a 400.
 */
export async function prepareSend(ctx: MessagingContext, plan: SendPlan): Promise<PreparedSend> {
  const channel = await resolveChannel(ctx, plan.channel, plan.from);
  ctx.provider(); // fails fast (credentials) before anything is logged
  const template = await resolveTemplate(ctx, plan);
  if (template && template.channel_type !== plan.channel) {
    throw DomainError.invalid(
      `Template ${template.slug} is a ${template.channel_type} template, not ${plan.channel}`,
    );
  }
  const contentSid = plan.channel === "whatsapp"
    ? plan.whatsappContentSid ?? template?.whatsapp_content_sid ?? undefined
    : undefined;
  const single = plan.single === true;
  const planned: (Planned | RecipientResult)[] = plan.recipients.map((r) => {
    try {
      return planRecipient(plan, template, contentSid, r);
    } catch (err) {
      if (single || !(err instanceof DomainError) || err.kind !== "invalid") throw err;
      return { to: r.to, status: "failed" as const, error: err.message };
    }
  });
  const sendable = planned.filter((p): p is Planned => !("status" in p));
  const blocked = await optedOut(ctx, plan.channel, sendable.map((p) => p.to));
  if (sendable.length > 0 && sendable.every((p) => blocked.has(p.to))) {
    throw DomainError.invalid(ALL_OPTED_OUT, undefined, "all_opted_out");
  }
  return { channel, template, contentSid, planned, blocked };
}

export const OPTED_OUT_ERROR = "Recipient has opted out";

/** Runs a send for every recipient; the results are in the recipients' order. */
export async function deliver(ctx: MessagingContext, plan: SendPlan): Promise<RecipientResult[]> {
  const { channel, template, contentSid, planned, blocked } = await prepareSend(ctx, plan);
  const single = plan.single === true;
  const sendable = planned.filter((p): p is Planned => !("status" in p));

  const usage = await channelUsage(ctx, channel.id, channel.max_send_rate);
  let quotaLeft = channel.daily_quota - usage.today;
  if (single && sendable.length === 1 && quotaLeft <= 0) {
    throw new DomainError("rate_limited", "daily_quota", quotaMessage(channel));
  }
  const pacer = new SendPacer(channel.max_send_rate, ctx.clock, usage.recent);
  const results: RecipientResult[] = new Array(planned.length);
  const queue: number[] = [];
  planned.forEach((p, i) => {
    if ("status" in p) results[i] = p;
    else if (blocked.has(p.to)) {
      results[i] = { to: p.to, status: "opted_out", error: OPTED_OUT_ERROR };
    } else if (quotaLeft-- > 0) queue.push(i);
    else results[i] = { to: p.to, status: "failed", error: quotaMessage(channel) };
  });

  const worker = async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      results[i] = await sendOne(ctx, plan, channel, template, contentSid, planned[i] as Planned, pacer);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return results;
}

/** What the provider is asked to send to one recipient (send and the bulk worker build it here). */
export function outgoingMessage(
  type: ChannelType,
  channel: Pick<ChannelRow, "sender_id" | "config">,
  p: { to: string; content: string | null; contentVariables?: Record<string, string> },
  contentSid: string | null | undefined,
  mediaUrl: string | string[] | null | undefined,
  statusCallback: string,
): OutgoingMessage {
  return {
    to: toProviderAddress(type, p.to),
    ...(type === "whatsapp" && channel.config.messaging_service_sid
      ? { messagingServiceSid: channel.config.messaging_service_sid }
      : { from: toProviderAddress(type, channel.sender_id) }),
    ...(contentSid ? { contentSid, contentVariables: p.contentVariables } : { body: p.content ?? undefined }),
    ...(mediaUrl ? { mediaUrl: Array.isArray(mediaUrl) ? mediaUrl : [mediaUrl] } : {}),
    statusCallback,
  };
}

async function sendOne(
  ctx: MessagingContext,
  plan: SendPlan,
  channel: ChannelRow,
  template: TemplateRow | null,
  contentSid: string | undefined,
  p: Planned,
  pacer: SendPacer,
): Promise<RecipientResult> {
  const at = await pacer.acquire();
  const mediaUrl = plan.mediaUrl ?? template?.media_url ?? undefined;
  const inserted = rows(
    await ctx.service.from("messaging_logs").insert({
      workspace_id: ctx.workspaceId,
      user_id: ctx.userId,
      channel_type: plan.channel,
      template_id: template?.id ?? null,
      channel_id: channel.id,
      from_number: channel.sender_id,
      to_number: p.to,
      content: p.content,
      message_type: plan.messageType,
      bulk_id: plan.bulkId ?? null,
      status: "queued",
      variables: p.variables,
      tags: plan.tags ?? {},
      created_at: new Date(at).toISOString(),
    }).select("id").single(),
  ) as { id: string };
  const message = outgoingMessage(plan.channel, channel, p, contentSid, mediaUrl, ctx.statusCallbackUrl);
  try {
    const sent = await ctx.provider().send(message);
    rows(
      await ctx.service.from("messaging_logs").update({
        provider_message_id: sent.sid,
        status: "sent",
        sent_at: new Date(ctx.clock.now()).toISOString(),
        segment_count: sent.segmentCount,
        cost: sent.price,
        currency: sent.priceUnit,
      }).eq("id", inserted.id).eq("status", "queued"),
    );
    return { to: p.to, status: "sent", messageId: sent.sid, logId: inserted.id };
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    rows(
      await ctx.service.from("messaging_logs").update({
        status: "failed",
        failed_at: new Date(ctx.clock.now()).toISOString(),
        error_code: err.code,
        error_message: err.message,
      }).eq("id", inserted.id),
    );
    return { to: p.to, status: "failed", logId: inserted.id, error: err.message };
  }
}
