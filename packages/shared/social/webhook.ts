/**
 * The publishing provider's webhooks (social-webhook-handler). Late / Zernio signs each delivery
 * with the hex HMAC-SHA256 of the raw body under the secret configured with the webhook
 * (providers.md §6a), in `X-Zernio-Signature` (legacy `X-Late-Signature`). The scheme has no
 * signed timestamp header, so freshness comes from the signed body: its `timestamp` must be
 * within REPLAY_WINDOW_SECONDS of now, and its `id` is applied once (social_webhook_events).
 *
 * 401 unsigned, forged (constant-time comparison by crypto.subtle.verify), or outside the replay
 * window; 400 not an event; 200 {received, event, outcome} otherwise, where outcome is applied,
 * duplicate (the same id again: nothing changes), unknown_post, unknown_account or ignored.
 * Events: post.published | failed | partial | cancelled and post.platform.published | failed
 * (status, URL, error of the post), comment.received (one more comment on the post's metrics),
 * account.disconnected (the account goes inactive); others are acknowledged and ignored.
 * Payloads: {id, event, post: {id, status, publishedAt?, platforms: [{platform, status,
 * platformPostId?, publishedUrl?, error?}]}, timestamp}; {id, event, comment: {id, postId,
 * platform, text}, timestamp}; {id, event, account: {accountId, ...}, timestamp}.
 * Secret: LATE_WEBHOOK_SECRET (503 webhook_not_configured without it).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";

export const REPLAY_WINDOW_SECONDS = 5 * 60;

const enc = new TextEncoder();
const refused = (message: string) => new DomainError("unauthenticated", "invalid_signature", message);

export function lateWebhookSecret(): string {
  const s = env("LATE_WEBHOOK_SECRET");
  if (!s) {
    throw DomainError.unavailable(
      "The social webhook secret is not configured (LATE_WEBHOOK_SECRET)",
      "webhook_not_configured",
    );
  }
  return s;
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  return Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16));
}

/** Throws 401 unless `signature` is the body's HMAC under `secret` (constant time). */
export async function verifyLateSignature(
  secret: string,
  signature: string | null,
  rawBody: string,
): Promise<void> {
  if (!signature) throw refused("Missing X-Zernio-Signature (or X-Late-Signature) header");
  const given = hexBytes(signature.trim().replace(/^sha256=/, ""));
  if (!given) throw refused("Invalid signature");
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  if (!await crypto.subtle.verify("HMAC", key, given, enc.encode(rawBody))) {
    throw refused("Invalid signature");
  }
}

function eventTime(ts: unknown): number | null {
  if (typeof ts === "number" && Number.isFinite(ts)) return ts > 1e12 ? ts : ts * 1000;
  if (typeof ts === "string") {
    const t = Date.parse(ts);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

export async function handleLateWebhook(
  service: SupabaseClient,
  secret: string,
  signature: string | null,
  rawBody: string,
  now = Date.now(),
): Promise<{ event: string; outcome: string }> {
  await verifyLateSignature(secret, signature, rawBody);
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(rawBody);
  } catch (_) {
    throw DomainError.invalid("The webhook body is not JSON", undefined, "invalid_json");
  }
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
    throw DomainError.invalid("The webhook body is not an event object");
  }
  const { id, event } = payload;
  if (typeof id !== "string" || id.length === 0 || id.length > 200 || typeof event !== "string") {
    throw DomainError.invalid("The event needs a string id and event");
  }
  const at = eventTime(payload.timestamp);
  if (at === null) throw refused("The event has no timestamp");
  if (Math.abs(now - at) > REPLAY_WINDOW_SECONDS * 1000) {
    throw refused("The event is outside the replay window");
  }
  const { data, error } = await service.rpc("social_apply_webhook_event", {
    p_event_id: id,
    p_event: event,
    p_payload: payload,
  });
  if (error) throw DomainError.internal(`Could not apply the event: ${error.message}`);
  return { event, outcome: String(data) };
}
