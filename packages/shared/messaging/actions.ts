/**
 * The reading and settings actions of messaging-api (channels, templates, logs, analytics,
 * get-settings, update-settings) and the provider-facing ones (balance, sync-channels). Reads
 * run as the caller, so RLS applies on top of the workspace filter.
 */
import { DomainError } from "../errors.ts";
import { readInGroups, rows } from "../supabase/postgrest.ts";
import type { ChannelRow, MessagingContext } from "./context.ts";
import type { ChannelType } from "./phone.ts";
import { providerApiError, ProviderError } from "./provider.ts";

export async function listChannels(ctx: MessagingContext, channelType?: ChannelType): Promise<ChannelRow[]> {
  let q = ctx.db.from("messaging_channels").select("*").eq("workspace_id", ctx.workspaceId);
  if (channelType) q = q.eq("channel_type", channelType);
  return rows(await q.order("created_at").order("id")) as ChannelRow[];
}

export async function listTemplates(ctx: MessagingContext, channelType?: ChannelType): Promise<unknown[]> {
  let q = ctx.db.from("messaging_templates").select("*").eq("workspace_id", ctx.workspaceId);
  if (channelType) q = q.eq("channel_type", channelType);
  return rows(await q.order("name").order("id")) as unknown[];
}

export interface LogFilter {
  channelType?: ChannelType;
  status?: string;
  messageType?: string;
  limit: number;
  offset: number;
}

export async function listLogs(ctx: MessagingContext, f: LogFilter): Promise<unknown[]> {
  let q = ctx.db.from("messaging_logs").select("*").eq("workspace_id", ctx.workspaceId);
  if (f.channelType) q = q.eq("channel_type", f.channelType);
  if (f.status) q = q.eq("status", f.status);
  if (f.messageType) q = q.eq("message_type", f.messageType);
  return rows(
    await q.order("created_at", { ascending: false }).order("id", { ascending: false })
      .range(f.offset, f.offset + f.limit - 1),
  ) as unknown[];
}

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The analytics window: [start, end) where a date-only end covers that whole UTC day; by
 * default the last 30 days (spec "analytics days 30").
 */
export function analyticsWindow(now: number, start?: string, end?: string): { start: string; end: string } {
  const endMs = end ? Date.parse(end) + (DATE_ONLY.test(end) ? DAY_MS : 0) : now;
  const startMs = start ? Date.parse(start) : endMs - 30 * DAY_MS;
  if (startMs >= endMs) throw DomainError.invalid("The date range must start before it ends");
  return { start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() };
}

export async function analytics(
  ctx: MessagingContext,
  window: { start: string; end: string },
  channelType?: ChannelType,
): Promise<Record<string, unknown>> {
  const r = await ctx.db.rpc("messaging_analytics", {
    ws: ctx.workspaceId,
    start_at: window.start,
    end_at: window.end,
    only_type: channelType ?? null,
  });
  return rows(r) as Record<string, unknown>;
}

export async function getSettings(ctx: MessagingContext): Promise<Record<string, unknown>> {
  const found = rows(
    await ctx.db.from("messaging_settings").select("settings").eq("workspace_id", ctx.workspaceId).limit(1),
  ) as { settings: Record<string, unknown> }[];
  return found[0]?.settings ?? {};
}

/** Replaces the workspace's settings (as the caller: the RLS policies admit owners and admins). */
export async function updateSettings(
  ctx: MessagingContext,
  settings: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const saved = rows(
    await ctx.db.from("messaging_settings").upsert({ workspace_id: ctx.workspaceId, settings })
      .select("settings").single(),
  ) as { settings: Record<string, unknown> };
  return saved.settings;
}

export async function balance(ctx: MessagingContext) {
  try {
    return await ctx.provider().balance();
  } catch (err) {
    throw err instanceof ProviderError ? providerApiError(err) : err;
  }
}

/**
 * Adds the account's SMS-capable numbers as sms channels of the workspace. A number another
 * workspace already has stays theirs (skipped); the first channel becomes the default when the
 * workspace has none. Answers `synced` (how many channels this call added: a count, as clients
 * read it), `syncedNumbers` (their numbers), `skipped` (numbers other workspaces hold) and
 * `channels` (all of the workspace's channels after the sync).
 */
export async function syncChannels(ctx: MessagingContext) {
  let numbers;
  try {
    numbers = await ctx.provider().incomingNumbers();
  } catch (err) {
    throw err instanceof ProviderError ? providerApiError(err) : err;
  }
  const sms = numbers.filter((n) => n.sms && /^\+[1-9]\d{1,14}$/.test(n.phoneNumber));
  // Every number on the account: read in groups so a large account does not make one over-long URL.
  const taken = rows(
    await readInGroups(
      sms.map((n) => n.phoneNumber),
      (list) =>
        ctx.service.from("messaging_channels").select("sender_id, workspace_id").eq("channel_type", "sms")
          .filter("sender_id", "in", list),
    ),
  ) as { sender_id: string; workspace_id: string }[];
  const owner = new Map(taken.map((t) => [t.sender_id, t.workspace_id]));
  const hasDefault = (await listChannels(ctx, "sms")).some((c) => c.is_default);
  const fresh = sms.filter((n) => !owner.has(n.phoneNumber));
  if (fresh.length) {
    rows(
      await ctx.db.from("messaging_channels").insert(fresh.map((n, i) => ({
        workspace_id: ctx.workspaceId,
        channel_type: "sms",
        provider: "twilio",
        sender_id: n.phoneNumber,
        display_name: n.friendlyName,
        is_default: !hasDefault && i === 0,
        config: { phone_number_sid: n.sid },
      }))),
    );
  }
  return {
    synced: fresh.length,
    syncedNumbers: fresh.map((n) => n.phoneNumber),
    skipped: sms.filter((n) => owner.has(n.phoneNumber) && owner.get(n.phoneNumber) !== ctx.workspaceId)
      .map((n) => n.phoneNumber),
    channels: await listChannels(ctx),
  };
}
