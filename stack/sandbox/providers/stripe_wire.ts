/**
 * Stripe's wire format for the stand-in (providers.md §3): bracket-nested form bodies
 * (`line_items[0][price_data][currency]=eur`, `metadata[user_id]=u1`) parsed into objects and
 * arrays, ids with Stripe's prefixes, the `{error: {...}}` shape with a `request-id` header, and
 * the `Stripe-Signature` header (t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">, keyed by the
 * UTF-8 bytes of the whole whsec_... secret).
 */

export type Form = { [key: string]: FormValue };
export type FormValue = string | Form | FormValue[];

/** Parses a form body the way Stripe does: `a[b][0][c]=v` becomes {a: {b: [{c: "v"}]}}. */
export function parseStripeForm(text: string): Form {
  const root: Form = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const head = /^[^[]+/.exec(key)?.[0] ?? key;
    const parts = [head, ...[...key.slice(head.length).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1])];
    // deno-lint-ignore no-explicit-any
    let node: any = root;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]);
      const slot = Array.isArray(node) ? Number(part) : part;
      if (last) {
        node[slot] = value;
      } else {
        if (node[slot] === undefined || typeof node[slot] === "string") node[slot] = nextIsIndex ? [] : {};
        node = node[slot];
      }
    }
  }
  return root;
}

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A Stripe-looking id: `cs_test_...`, `cus_...`, `evt_...`. */
export function stripeId(prefix: string, length = 24): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return prefix + Array.from(bytes, (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("");
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  402: "card_error",
  403: "invalid_request_error",
  404: "invalid_request_error",
  409: "idempotency_error",
  429: "rate_limit_error",
};

export interface StripeErrorFields {
  code?: string;
  param?: string;
  type?: string;
  decline_code?: string;
}

/** Stripe's error JSON: {error: {type, code, message, param, doc_url}} plus a request-id header. */
export function stripeError(
  status: number,
  message: string,
  fields: StripeErrorFields = {},
  headers: Record<string, string> = {},
): Response {
  const type = fields.type ?? ERROR_TYPES[status] ?? "api_error";
  const error: Record<string, unknown> = { type, message };
  if (fields.code) {
    error.code = fields.code;
    error.doc_url = `https://stripe.com/docs/error-codes/${fields.code.replaceAll("_", "-")}`;
  }
  if (fields.param) error.param = fields.param;
  if (fields.decline_code) error.decline_code = fields.decline_code;
  return Response.json({ error }, { status, headers: { "request-id": stripeId("req_", 14), ...headers } });
}

export function missingParam(param: string): Response {
  return stripeError(400, `Missing required param: ${param}.`, { code: "parameter_missing", param });
}

export function invalidParam(param: string, message: string): Response {
  return stripeError(400, message, { code: "parameter_invalid_empty", param });
}

export function noSuch(kind: string, id: string, param?: string): Response {
  return stripeError(404, `No such ${kind}: '${id}'`, { code: "resource_missing", param });
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The Stripe-Signature header value for `payload` signed at `timestamp` (unix seconds). */
export async function stripeSignature(payload: string, secret: string, timestamp: number): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${payload}`));
  return `t=${timestamp},v1=${hex(mac)}`;
}

/** Escapes text for the hosted sandbox pages. */
export function html(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
