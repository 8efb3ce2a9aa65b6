/**
 * Svix / Standard Webhooks signature verification, as Resend signs its webhooks
 * (providers.md §2): headers svix-id, svix-timestamp (unix seconds) and svix-signature (one or
 * more space-separated `v1,<base64>`; other versions are skipped); the key is the base64 decoding
 * of the secret after `whsec_`; the signed string is `${id}.${timestamp}.${rawBody}`,
 * HMAC-SHA256. The timestamp must be within 5 minutes either way. Signatures are compared with
 * crypto.subtle.verify, which compares in constant time.
 */
import { DomainError } from "../errors.ts";

export const TOLERANCE_SECONDS = 5 * 60;

export interface SvixHeaders {
  id: string | null;
  timestamp: string | null;
  signature: string | null;
}

const encoder = new TextEncoder();

function base64Bytes(s: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));
  } catch (_) {
    // Not base64: the caller treats it as "no usable key/signature".
    return null;
  }
}

function hmacKey(secret: string): Promise<CryptoKey> {
  const raw = base64Bytes(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  if (!raw || raw.length === 0) {
    throw DomainError.internal("The webhook secret is not a whsec_ base64 secret");
  }
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

const refused = (message: string) => new DomainError("unauthenticated", "invalid_signature", message);

/** Throws an `unauthenticated` DomainError (401) unless the delivery is signed with `secret` and fresh. */
export async function verifySvixSignature(
  secret: string,
  headers: SvixHeaders,
  rawBody: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<void> {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) {
    throw refused("Missing svix-id, svix-timestamp or svix-signature header");
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw refused("Invalid svix-timestamp");
  const ts = Number(timestamp);
  if (nowSeconds - ts > TOLERANCE_SECONDS) throw refused("Message timestamp too old");
  if (ts - nowSeconds > TOLERANCE_SECONDS) throw refused("Message timestamp too new");
  const key = await hmacKey(secret);
  const signed = encoder.encode(`${id}.${timestamp}.${rawBody}`);
  for (const entry of signature.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) continue;
    const bytes = base64Bytes(value);
    if (bytes && await crypto.subtle.verify("HMAC", key, bytes, signed)) return;
  }
  throw refused("No matching signature found");
}
