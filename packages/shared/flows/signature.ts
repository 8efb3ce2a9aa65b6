/**
 * flow-webhook's secret. Each webhook-triggered flow gets its own `whsec_` secret at save-flow
 * (never readable by clients); senders sign deliveries with it in X-Webhook-Signature, the
 * project's timestamped scheme (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
 * ../webhook_signature.ts), which webhook.ts verifies.
 */
export function newWebhookSecret(): string {
  const b = crypto.getRandomValues(new Uint8Array(32));
  return "whsec_" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
