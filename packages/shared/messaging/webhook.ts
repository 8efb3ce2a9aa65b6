/**
 * messaging-webhook's work (spec "Messaging provider webhook"): Twilio's X-Twilio-Signature
 * check, status callbacks applied forward-only (messaging_apply_status) and incoming messages'
 * opt-out keywords. Nothing here runs before the signature has been verified.
 */
import { env, requireEnv } from "../env.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";
import { fromProviderAddress } from "./phone.ts";

const encoder = new TextEncoder();

/**
 * Twilio's signature: HMAC-SHA1 (key: the auth token) over the full URL the request was sent to
 * followed by every POST parameter as name+value, names sorted (a repeated name contributes each
 * distinct value, sorted), base64-encoded.
 */
export async function twilioSignature(
  authToken: string,
  url: string,
  params: URLSearchParams,
): Promise<string> {
  let data = url;
  for (const name of [...new Set(params.keys())].sort()) {
    for (const value of [...new Set(params.getAll(name))].sort()) data += name + value;
  }
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(authToken),
    { name: "HMAC", hash: "SHA-1" },
    false,
    [
      "sign",
    ],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(data)));
  return btoa(String.fromCharCode(...mac));
}

function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

export async function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: URLSearchParams,
  header: string | null | undefined,
): Promise<boolean> {
  if (!header) return false;
  return constantTimeEqual(await twilioSignature(authToken, url, params), header);
}

export const CALLBACK_STATUSES = [
  "accepted",
  "queued",
  "sending",
  "sent",
  "delivered",
  "undelivered",
  "failed",
  "read",
] as const;

/**
 * Applies one status callback. Returns the log's status afterwards, or null when no log has the
 * MessageSid (a message sent elsewhere on the account): the callback is acknowledged and ignored.
 */
export async function applyStatusCallback(
  service: SupabaseClient,
  params: URLSearchParams,
  at: number,
): Promise<string | null> {
  const price = params.get("Price");
  const r = await service.rpc("messaging_apply_status", {
    sid: params.get("MessageSid") ?? params.get("SmsSid"),
    provider_status: params.get("MessageStatus") ?? params.get("SmsStatus"),
    at: new Date(at).toISOString(),
    err_code: params.get("ErrorCode") || null,
    err_message: params.get("ErrorMessage") || null,
    price: price && Number.isFinite(Number(price)) ? Number(price) : null,
    price_unit: params.get("PriceUnit") || null,
  });
  return rows(r) as string | null;
}

/** Twilio's default opt-out and opt-in keywords (a message that is the keyword alone, any case). */
export const OPT_OUT_KEYWORDS = [
  "STOP",
  "STOPALL",
  "UNSUBSCRIBE",
  "CANCEL",
  "END",
  "QUIT",
  "REVOKE",
  "OPTOUT",
];
export const OPT_IN_KEYWORDS = ["START", "YES", "UNSTOP"];

export function keywordOf(params: URLSearchParams): { kind: "optout" | "optin"; keyword: string } | null {
  const body = (params.get("Body") ?? "").trim().toUpperCase();
  const advanced = (params.get("OptOutType") ?? "").toUpperCase();
  if (OPT_OUT_KEYWORDS.includes(body) || advanced === "STOP") {
    return { kind: "optout", keyword: body || "STOP" };
  }
  if (OPT_IN_KEYWORDS.includes(body) || advanced === "START") {
    return { kind: "optin", keyword: body || "START" };
  }
  return null;
}

export type IncomingOutcome = "opted_out" | "opted_in" | "ignored";

/**
 * An incoming message: a STOP-family keyword puts the sender on the opt-out list of the
 * workspace owning the number it was sent to (source keyword); a START-family keyword takes
 * them off it again (keyword entries of that channel and `all`). Other messages change nothing.
 */
export async function handleIncoming(
  service: SupabaseClient,
  params: URLSearchParams,
  at: number,
): Promise<IncomingOutcome> {
  const kw = keywordOf(params);
  const to = params.get("To");
  const from = params.get("From");
  if (!kw || !to || !from) return "ignored";
  const recipient = fromProviderAddress(to);
  const sender = fromProviderAddress(from);
  if (!/^\+[1-9]\d{1,14}$/.test(sender.number)) return "ignored";
  const owners = rows(
    await service.from("messaging_channels").select("workspace_id").eq("channel_type", recipient.channel)
      .eq("sender_id", recipient.number).limit(1),
  ) as { workspace_id: string }[];
  if (owners.length === 0) return "ignored";
  const workspaceId = owners[0].workspace_id;
  if (kw.kind === "optout") {
    rows(
      await service.from("messaging_optouts").upsert({
        workspace_id: workspaceId,
        phone_number: sender.number,
        channel_type: recipient.channel,
        opted_out_at: new Date(at).toISOString(),
        reason: `Replied ${kw.keyword}`,
        source: "keyword",
      }, { onConflict: "workspace_id,phone_number,channel_type" }),
    );
    return "opted_out";
  }
  rows(
    await service.from("messaging_optouts").delete().eq("workspace_id", workspaceId)
      .eq("phone_number", sender.number).eq("source", "keyword").in("channel_type", [
        recipient.channel,
        "all",
      ]),
  );
  return "opted_in";
}

/**
 * messaging-webhook's public URL, without query: what the provider is given as StatusCallback
 * and what signatures are computed over. MESSAGING_WEBHOOK_URL overrides it (a proxy or custom
 * domain); by default it is the project's functions URL. The URL the function itself sees is
 * not used: behind the edge gateway it is not the URL Twilio signed.
 */
export function webhookUrl(): string {
  const explicit = env("MESSAGING_WEBHOOK_URL");
  if (explicit) return explicit.replace(/\?.*$/, "");
  return `${requireEnv("SUPABASE_URL").replace(/\/+$/, "")}/functions/v1/messaging-webhook`;
}
