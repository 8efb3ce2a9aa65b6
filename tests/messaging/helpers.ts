/**
 * The messaging cast: a team (owner, admin, member, viewer, outsider) whose workspace has a
 * default SMS channel and a default WhatsApp channel, the Twilio stand-in reset with automatic
 * callbacks off (tests send each callback themselves), and a caller for messaging-api.
 */
import { useBulkWorkerKick } from "@shared/messaging/bulk.ts";
import type { Platform } from "../../stack/platform.ts";
import type { TwilioStandIn } from "../../stack/sandbox/providers/twilio.ts";
import { createTeam, type Team } from "../helpers/team.ts";
import type { TestUser } from "../helpers/platform.ts";

export interface MessagingSetup extends Team {
  tw: TwilioStandIn;
  smsChannel: string;
  waChannel: string;
  smsSender: string;
  waSender: string;
}

let n = 0;

/** A fresh E.164 number (the test modules' numbers never collide). */
export function phone(): string {
  return `+1555${String(Date.now() % 1_000_000).padStart(6, "0")}${String(n++ % 10)}`;
}

/** The kicks send-bulk made (the worker is not woken on its own in these tests: they run it). */
export const kicks: number[] = [];
useBulkWorkerKick(() => {
  kicks.push(Date.now());
  return Promise.resolve();
});

/** One run of messaging-bulk-worker, as pg_cron calls it (service-role key). */
export async function runWorker(p: Platform): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${p.url}/functions/v1/messaging-bulk-worker`, {
    method: "POST",
    headers: {
      apikey: p.config.serviceRoleKey,
      authorization: `Bearer ${p.config.serviceRoleKey}`,
      "content-type": "application/json",
    },
    body: "{}",
  });
  return { status: res.status, body: await res.json() };
}

export async function setup(
  p: Platform,
  prefix: string,
  channel: { daily_quota?: number; max_send_rate?: number } = {},
): Promise<MessagingSetup> {
  const tw = p.sandbox!.get("twilio");
  tw.reset();
  tw.autoCallbacks = false;
  const team = await createTeam(p, { prefix });
  const smsSender = phone();
  const waSender = phone();
  const sms = await p.db.query<{ id: string }>(
    `insert into public.messaging_channels (workspace_id, channel_type, sender_id, display_name, is_default,
       daily_quota, max_send_rate) values ($1, 'sms', $2, 'Main SMS', true, $3, $4) returning id`,
    [team.ws, smsSender, channel.daily_quota ?? 1000, channel.max_send_rate ?? 600],
  );
  const wa = await p.db.query<{ id: string }>(
    `insert into public.messaging_channels (workspace_id, channel_type, sender_id, display_name, is_default,
       config) values ($1, 'whatsapp', $2, 'WhatsApp', true, '{}') returning id`,
    [team.ws, waSender],
  );
  return { ...team, tw, smsChannel: sms.rows[0].id, waChannel: wa.rows[0].id, smsSender, waSender };
}

export async function call(
  p: Platform,
  user: TestUser | null,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> & { success: boolean; error?: string } }> {
  const headers: Record<string, string> = { apikey: p.config.anonKey, "content-type": "application/json" };
  if (user) headers.authorization = `Bearer ${user.accessToken}`;
  const res = await fetch(`${p.url}/functions/v1/messaging-api`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export interface LogRow {
  id: string;
  status: string;
  provider_message_id: string | null;
  to_number: string;
  from_number: string;
  content: string | null;
  cost: string | null;
  currency: string | null;
  segment_count: number | null;
  error_code: string | null;
  error_message: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  read_at: Date | null;
  failed_at: Date | null;
  created_at: Date;
  template_id: string | null;
  bulk_id: string | null;
  message_type: string;
}

export async function logsOf(p: Platform, ws: string): Promise<LogRow[]> {
  const r = await p.db.query<LogRow>(
    `select * from public.messaging_logs where workspace_id = $1 order by created_at, to_number`,
    [ws],
  );
  return r.rows;
}

export async function logById(p: Platform, id: string): Promise<LogRow> {
  const r = await p.db.query<LogRow>(`select * from public.messaging_logs where id = $1`, [id]);
  if (r.rows.length !== 1) throw new Error(`no log ${id}`);
  return r.rows[0];
}
