/**
 * OAuth states for social-oauth: signed, single-use and expiring.
 *
 * A state is `<payload>.<mac>`, both base64url: the payload is {n: a 32-byte random nonce,
 * w: workspace id, p: platform, u: user id, e: expiry (unix seconds)}, the mac its HMAC-SHA256
 * under SOCIAL_OAUTH_STATE_SECRET (when unset, a key derived from SUPABASE_SERVICE_ROLE_KEY with
 * the label "social-oauth-state/v1": a server secret either way). The database keeps only the
 * nonce's SHA-256 (social_oauth_states) and spends it once, atomically, before expires_at.
 *
 * redeem refuses, with 400 and a code: invalid_state (not ours: bad shape or signature, checked
 * in constant time by crypto.subtle.verify), state_mismatch (issued for another workspace,
 * platform or user), state_expired, state_used (already spent, or unknown).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { env, requireEnv } from "../env.ts";
import { DomainError } from "../errors.ts";
import type { ErrorCode } from "../error_codes.ts";
import type { Platform } from "./platforms.ts";

/** How long a connect may take, from the oauth_url to the callback. */
export const STATE_TTL_SECONDS = 10 * 60;

const enc = new TextEncoder();

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64url(s: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return null;
  try {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  } catch (_) {
    // Not base64url: the caller refuses the state as invalid.
    return null;
  }
}

async function sha256Hex(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(text)));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function stateKey(): Promise<CryptoKey> {
  const own = env("SOCIAL_OAUTH_STATE_SECRET");
  let raw: Uint8Array<ArrayBuffer>;
  if (own) {
    raw = enc.encode(own);
  } else {
    const base = await crypto.subtle.importKey(
      "raw",
      enc.encode(requireEnv("SUPABASE_SERVICE_ROLE_KEY")),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    raw = new Uint8Array(await crypto.subtle.sign("HMAC", base, enc.encode("social-oauth-state/v1")));
  }
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

export interface StateClaims {
  workspaceId: string;
  userId: string;
  platform: Platform;
}

interface Payload {
  n: string;
  w: string;
  p: string;
  u: string;
  e: number;
}

/** Issues a state for a connect and records its nonce (service client). */
export async function issueState(
  service: SupabaseClient,
  claims: StateClaims,
  now = Date.now(),
): Promise<{ state: string; expiresAt: string }> {
  const nonce = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const e = Math.floor(now / 1000) + STATE_TTL_SECONDS;
  const payload: Payload = { n: nonce, w: claims.workspaceId, p: claims.platform, u: claims.userId, e };
  const body = b64url(enc.encode(JSON.stringify(payload)));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await stateKey(), enc.encode(body)));
  const expiresAt = new Date(e * 1000).toISOString();
  const { error } = await service.from("social_oauth_states").insert({
    workspace_id: claims.workspaceId,
    user_id: claims.userId,
    platform: claims.platform,
    nonce_hash: await sha256Hex(nonce),
    expires_at: expiresAt,
  });
  if (error) throw DomainError.internal(`Could not record the OAuth state: ${error.message}`);
  return { state: `${body}.${b64url(mac)}`, expiresAt };
}

const refuse = (code: ErrorCode, message: string) => DomainError.invalid(message, undefined, code);

/** Verifies a state against the callback's claims and spends it; see the module doc for refusals. */
export async function redeemState(
  service: SupabaseClient,
  state: string,
  claims: StateClaims,
  now = Date.now(),
): Promise<void> {
  const [body, mac, extra] = state.split(".");
  const macBytes = mac === undefined ? null : fromB64url(mac);
  if (!body || !macBytes || extra !== undefined) {
    throw refuse("invalid_state", "The OAuth state is not valid");
  }
  const genuine = await crypto.subtle.verify("HMAC", await stateKey(), macBytes, enc.encode(body));
  if (!genuine) throw refuse("invalid_state", "The OAuth state is not valid");
  let payload: Payload;
  try {
    payload = JSON.parse(new TextDecoder().decode(fromB64url(body) ?? new Uint8Array()));
  } catch (_) {
    // Signed by us but unreadable cannot happen; refuse it like a forgery all the same.
    throw refuse("invalid_state", "The OAuth state is not valid");
  }
  if (payload.w !== claims.workspaceId || payload.p !== claims.platform || payload.u !== claims.userId) {
    throw refuse("state_mismatch", "The OAuth state was issued for another workspace, platform or user");
  }
  if (typeof payload.e !== "number" || payload.e * 1000 <= now) {
    throw refuse("state_expired", "The OAuth state has expired: start the connection again");
  }
  // Spend it: one UPDATE, so two callbacks racing with the same state cannot both pass.
  const nonceHash = await sha256Hex(payload.n);
  const { data, error } = await service.from("social_oauth_states")
    .update({ used_at: new Date(now).toISOString() })
    .eq("nonce_hash", nonceHash)
    .is("used_at", null)
    .gt("expires_at", new Date(now).toISOString())
    .select("id");
  if (error) throw DomainError.internal(`Could not spend the OAuth state: ${error.message}`);
  if (!data || data.length !== 1) {
    const row = await service.from("social_oauth_states").select("used_at").eq("nonce_hash", nonceHash)
      .maybeSingle();
    if (row.data && row.data.used_at === null) {
      throw refuse("state_expired", "The OAuth state has expired: start the connection again");
    }
    throw refuse("state_used", "The OAuth state was already used: start the connection again");
  }
}
