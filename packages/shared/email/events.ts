/**
 * The email provider webhook (spec "Email provider webhook"): Resend's events, Svix-signed.
 *
 * Stages: verify the signature (signature.ts: 401 when forged, tampered or older/newer than 5
 * minutes) -> parse the envelope {type, created_at, data {email_id, to, bounce?}} (400 when it
 * is not one) -> apply it with email_apply_webhook, which records the svix-id first (a replayed
 * delivery is answered 200 and changes nothing) and updates the log, the day's counters, the
 * suppression list and the sending domain's rates in one transaction.
 *
 * | event                  | email_logs                                   | email_analytics (day of created_at) | other                           |
 * | ---------------------- | -------------------------------------------- | ----------------------------------- | ------------------------------- |
 * | email.sent             | status sent, sent_at                         | sent +1 (first time)                | domain rates                    |
 * | email.delivered        | status delivered, delivered_at               | delivered +1 (first time)           | domain rates                    |
 * | email.delivery_delayed | status kept, delayed_at                      | delivery_delayed +1                 |                                 |
 * | email.bounced          | status bounced, bounced_at, bounce_type      | bounced +1 (first time)             | Permanent: recipients suppressed; domain rates |
 * | email.complained       | status complained, complained_at             | complained +1 (first time)          | recipients suppressed; domain rates |
 * | email.opened           | status kept, opened_at (first), open_count+1 | opened +1 (first open)              |                                 |
 * | email.clicked          | status kept, clicked_at (first), click_count+1 | clicked +1 (first click)          |                                 |
 * | email.failed           | status failed, failed_at, error_message      | failed +1                           |                                 |
 *
 * Statuses only move forward (queued < sent < delivered < bounced < complained; failed is
 * final): a late email.delivered after a bounce keeps `bounced`. Domain rates: bounce_rate and
 * complaint_rate are percentages of the domain's sent mail; reputation_status is `poor` from
 * 10% bounces or 0.5% complaints, `warning` from 4% or 0.1%, else `good`. Other event types
 * (email.scheduled, domain.*, contact.* ...) are acknowledged and ignored. An event for an
 * email we did not send is acknowledged (so the provider stops retrying) and recorded.
 */
import { z } from "zod";
import { DomainError } from "../errors.ts";
import { rows } from "../supabase/postgrest.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { type SvixHeaders, verifySvixSignature } from "./signature.ts";

export const EVENT_MAP: Readonly<Record<string, string>> = {
  "email.sent": "sent",
  "email.delivered": "delivered",
  "email.delivery_delayed": "delivery_delayed",
  "email.bounced": "bounced",
  "email.complained": "complained",
  "email.opened": "opened",
  "email.clicked": "clicked",
  "email.failed": "failed",
};

const Envelope = z.object({
  type: z.string().min(1),
  created_at: z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be a timestamp").optional(),
  data: z.object({
    email_id: z.string().min(1),
    to: z.array(z.string()).optional(),
    bounce: z.object({ type: z.string().optional(), message: z.string().optional() }).optional(),
    failed: z.object({ reason: z.string().optional() }).optional(),
  }).loose(),
}).loose();

export type WebhookOutcome = "applied" | "duplicate" | "unknown_email" | "ignored";

export async function handleEmailWebhook(
  service: SupabaseClient,
  secret: string,
  headers: SvixHeaders,
  rawBody: string,
): Promise<{ outcome: WebhookOutcome; type: string }> {
  await verifySvixSignature(secret, headers, rawBody);
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch (_) {
    throw DomainError.invalid("The webhook body is not JSON");
  }
  const parsed = Envelope.safeParse(json);
  if (!parsed.success) {
    // A type without data (domain.*, contact.*) is not an email event: acknowledge it.
    const type = (json as { type?: unknown })?.type;
    if (typeof type === "string" && !EVENT_MAP[type]) return { outcome: "ignored", type };
    throw DomainError.invalid(`Not an email event: ${parsed.error.issues[0]?.message ?? "bad shape"}`);
  }
  const event = parsed.data;
  const kind = EVENT_MAP[event.type];
  if (!kind) return { outcome: "ignored", type: event.type };
  const recipients = (event.data.to ?? []).map((e) => e.toLowerCase());
  const details = {
    recipients: recipients.length ? recipients : null,
    bounce_type: event.data.bounce?.type ?? null,
    message: event.data.bounce?.message ?? event.data.failed?.reason ?? null,
  };
  const outcome = rows(
    await service.rpc("email_apply_webhook", {
      p_svix_id: headers.id,
      p_event: kind,
      p_provider_message_id: event.data.email_id,
      p_at: event.created_at ?? new Date().toISOString(),
      p_details: details,
    }),
    "Email webhook",
  ) as WebhookOutcome;
  return { outcome, type: event.type };
}
