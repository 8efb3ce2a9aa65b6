/**
 * flow-webhook's signature: X-Webhook-Signature is the HMAC-SHA256 of the raw request body with
 * the flow's webhook secret, as hex, optionally prefixed `sha256=`. Compared in constant time
 * (crypto.subtle.verify); a flow that requires a signature never accepts an unsigned body.
 */
const enc = new TextEncoder();

function key(secret: string, usage: "sign" | "verify") {
  return crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    usage,
  ]);
}

export async function signBody(secret: string, body: Uint8Array<ArrayBuffer> | string): Promise<string> {
  const bytes = typeof body === "string" ? enc.encode(body) : body;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await key(secret, "sign"), bytes));
  return "sha256=" + Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function verifySignature(
  secret: string,
  body: Uint8Array<ArrayBuffer>,
  header: string | null,
): Promise<boolean> {
  if (!header || !secret) return false;
  const hex = header.trim().replace(/^sha256=/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const mac = new Uint8Array(32);
  for (let i = 0; i < 32; i++) mac[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  // HMAC verification in WebCrypto compares in constant time.
  return await crypto.subtle.verify("HMAC", await key(secret, "verify"), mac, body);
}

export function newWebhookSecret(): string {
  const b = crypto.getRandomValues(new Uint8Array(32));
  return "whsec_" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
