/**
 * messaging-webhook's request, in order: Twilio's credentials configured (503), a form-encoded
 * body (400), the X-Twilio-Signature over the configured URL and every posted field (403,
 * checked before anything is read or written), then the incoming message (opt-out keywords) or
 * the status callback (MessageSid required, 400). The function renders a refusal as
 * {success: false, error}.
 */
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import type { Clock } from "./clock.ts";
import { CREDENTIALS_MISSING } from "./provider.ts";
import { applyStatusCallback, handleIncoming, verifyTwilioSignature, webhookUrl } from "./webhook.ts";

export interface TwilioCallback {
  type: "status" | "incoming";
  authToken: string | undefined;
  contentType: string;
  body: () => Promise<string>;
  /** The query string exactly as received (part of what Twilio signed). */
  search: string;
  signature: string | undefined;
}

/** "incoming" once an incoming message was handled, else the status callback's log status. */
export async function receiveTwilioCallback(
  service: SupabaseClient,
  clock: Clock,
  req: TwilioCallback,
): Promise<{ incoming: true } | { incoming: false; status: string | null }> {
  if (!req.authToken) throw DomainError.unavailable(CREDENTIALS_MISSING, "credentials_missing");
  if (!req.contentType.startsWith("application/x-www-form-urlencoded")) {
    throw DomainError.invalid("Expected an application/x-www-form-urlencoded body");
  }
  const params = new URLSearchParams(await req.body());
  // The URL Twilio signed: our configured public URL plus the query exactly as received.
  if (!await verifyTwilioSignature(req.authToken, webhookUrl() + req.search, params, req.signature)) {
    throw DomainError.forbidden("Invalid or missing X-Twilio-Signature");
  }
  const now = clock.now();
  if (req.type === "incoming") {
    await handleIncoming(service, params, now);
    return { incoming: true };
  }
  if (!params.get("MessageSid") && !params.get("SmsSid")) throw DomainError.invalid("MessageSid is required");
  return { incoming: false, status: await applyStatusCallback(service, params, now) };
}
