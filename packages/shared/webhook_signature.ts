/**
 * Timestamped webhook signatures, the one scheme the project signs its own webhooks with
 * (pdf-batch-process's completion webhook, `X-Batch-Signature`) and verifies deliveries with
 * (flow-webhook, `X-Webhook-Signature`). Stripe's layout:
 *
 *     t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
 *
 * keyed by the UTF-8 bytes of the shared secret. Signing the timestamp with the body lets a
 * receiver refuse a delivery older (or newer) than TOLERANCE_SECONDS, so a captured delivery
 * cannot be replayed forever; a receiver that must refuse a second copy inside that window too
 * keeps `deliveryId` of each one it accepted (flow-webhook does). Several `v1=` entries are
 * allowed (a sender rotating its secret); one match suffices. Compared in constant time
 * (crypto.subtle.verify). Refusals are `unauthenticated` DomainErrors (401) naming the problem.
 */
import { DomainError } from "./errors.ts";
import type { ErrorCode } from "./error_codes.ts";

export const TOLERANCE_SECONDS = 5 * 60;

const enc = new TextEncoder();

function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    usage,
  ]);
}

/** The bytes signed: `<t>.` followed by the raw body. */
function signedBytes(timestamp: string, body: Uint8Array | string): Uint8Array<ArrayBuffer> {
  const head = enc.encode(`${timestamp}.`);
  const rest = typeof body === "string" ? enc.encode(body) : body;
  const out = new Uint8Array(head.length + rest.length);
  out.set(head);
  out.set(rest, head.length);
  return out;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** The header value for `body` signed with `secret` at `timestamp` (unix seconds, default now). */
export async function signatureHeader(
  secret: string,
  body: Uint8Array | string,
  timestamp = Math.floor(Date.now() / 1000),
): Promise<string> {
  const t = String(timestamp);
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), signedBytes(t, body));
  return `t=${t},v1=${hex(new Uint8Array(mac))}`;
}

export interface VerifiedDelivery {
  /** The signed timestamp, unix seconds. */
  timestamp: number;
  /**
   * Names this delivery: the hex SHA-256 of `<t>.<matching v1>`. The v1 commits to t and the
   * body, so a resent copy has the same id, and a sender's retry signed afresh (new t) another.
   */
  deliveryId: string;
}

const refused = (code: ErrorCode, message: string) => new DomainError("unauthenticated", code, message);

/**
 * Throws a 401 DomainError unless `header` (named `headerName` in messages) signs `body` with
 * `secret` at a time within TOLERANCE_SECONDS of `nowSeconds`: `signature_required` without a
 * header, `invalid_signature` for another format (a body-only `sha256=<hex>` included) or no
 * matching v1, `signature_expired` outside the window.
 */
export async function verifySignatureHeader(
  secret: string,
  header: string | null,
  body: Uint8Array | string,
  opts: { headerName: string; nowSeconds?: number },
): Promise<VerifiedDelivery> {
  const name = opts.headerName;
  if (!header?.trim()) throw refused("signature_required", `${name} is required`);
  let t: string | null = null;
  const macs: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(",")) {
    const [k, v = ""] = part.trim().split("=", 2).map((s) => s.trim());
    if (k === "t") t = v;
    else if (k === "v1" && /^[0-9a-fA-F]{64}$/.test(v)) {
      macs.push(Uint8Array.from(v.match(/../g)!, (b) => parseInt(b, 16)));
    }
  }
  if (t === null || !/^\d{1,12}$/.test(t) || macs.length === 0) {
    throw refused(
      "invalid_signature",
      `${name} must be t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` +
        (/^(sha256=)?[0-9a-f]{64}$/i.test(header.trim())
          ? "; a signature of the body alone is not accepted"
          : ""),
    );
  }
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const ts = Number(t);
  if (Math.abs(now - ts) > TOLERANCE_SECONDS) {
    throw refused(
      "signature_expired",
      `${name} timestamp ${t} is ${
        now > ts ? "older" : "newer"
      } than ${TOLERANCE_SECONDS} s; sign each delivery when sending it`,
    );
  }
  const key = await hmacKey(secret, "verify");
  const signed = signedBytes(t, body);
  for (const mac of macs) {
    if (await crypto.subtle.verify("HMAC", key, mac, signed)) {
      const id = await crypto.subtle.digest("SHA-256", enc.encode(`${t}.${hex(mac)}`));
      return { timestamp: ts, deliveryId: hex(new Uint8Array(id)) };
    }
  }
  throw refused("invalid_signature", `Invalid ${name}`);
}
