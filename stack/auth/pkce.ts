/**
 * The PKCE variant of the mailed links (GoTrue internal/api/pkce.go, models/flow_state.go), used
 * by clients with `flowType: "pkce"` (@supabase/ssr's default): the request carries
 * code_challenge and code_challenge_method, the mailed link's token gets the `pkce_` prefix,
 * GET /verify lands on redirect_to with `?code=<auth code>`, and the client trades the code and
 * its verifier at POST /token?grant_type=pkce. Auth codes work once and within five minutes
 * (GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION's default).
 */
import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { AuthError, Errors } from "./errors.ts";

export const PKCE_PREFIX = "pkce_";
const FLOW_STATE_EXPIRY_SECONDS = 300;

export interface PkceParams {
  challenge: string;
  method: "s256" | "plain";
}

/** Reads code_challenge / code_challenge_method from a request body; null for the implicit flow. */
export function pkceParams(body: Record<string, unknown>): PkceParams | null {
  const challenge = body.code_challenge;
  const method = body.code_challenge_method;
  if ((challenge === undefined || challenge === null || challenge === "") && !method) return null;
  if (typeof challenge !== "string" || !challenge || typeof method !== "string" || !method) {
    throw Errors.validation("PKCE flow requires code_challenge_method and code_challenge");
  }
  const m = method.toLowerCase();
  if (m !== "s256" && m !== "plain") throw Errors.validation("code challenge method not supported");
  if (challenge.length < 43 || challenge.length > 128) {
    throw Errors.validation("code challenge has to be between 43 and 128 characters");
  }
  return { challenge, method: m };
}

/** Records the challenge for the user's pending link (one flow state per request). */
export async function createFlowState(
  tx: Queryable,
  userId: string,
  p: PkceParams,
  authenticationMethod: string,
): Promise<void> {
  await tx.query(
    `insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type,
       authentication_method, created_at, updated_at)
     values (gen_random_uuid(), $1, $2, $3::auth.code_challenge_method, $4, 'email', $5, now(), now())`,
    [userId, crypto.randomUUID(), p.method, p.challenge, authenticationMethod],
  );
}

/** GET /verify of a pkce_ link: the newest flow state of the user for this method yields its code. */
export async function issueAuthCode(
  tx: Queryable,
  userId: string,
  authenticationMethod: string,
): Promise<string> {
  const r = await tx.query<{ id: string; auth_code: string }>(
    `select id, auth_code from auth.flow_state where user_id = $1 and authentication_method = $2
      order by created_at desc limit 1`,
    [userId, authenticationMethod],
  );
  const row = r.rows[0];
  if (!row) throw new AuthError(404, "flow_state_not_found", "No associated flow state found.");
  await tx.query(`update auth.flow_state set auth_code_issued_at = now(), updated_at = now() where id = $1`, [
    row.id,
  ]);
  return row.auth_code;
}

function challengeOf(verifier: string, method: string): string {
  if (method === "plain") return verifier;
  return createHash("sha256").update(verifier).digest("base64url");
}

/** POST /token?grant_type=pkce: the user and method behind a live auth code whose verifier matches. */
export async function redeemAuthCode(
  tx: Queryable,
  authCode: string,
  verifier: string,
): Promise<{ userId: string; method: string }> {
  if (!authCode || !verifier) {
    throw Errors.validation("invalid request: both auth code and code verifier should be non-empty");
  }
  const r = await tx.query<
    {
      id: string;
      user_id: string;
      code_challenge: string;
      code_challenge_method: string;
      authentication_method: string;
      expired: boolean;
    }
  >(
    `delete from auth.flow_state where auth_code = $1
      returning id, user_id, code_challenge, code_challenge_method::text, authentication_method,
        coalesce(auth_code_issued_at, created_at) < now() - make_interval(secs => $2::int) as expired`,
    [authCode, FLOW_STATE_EXPIRY_SECONDS],
  );
  const row = r.rows[0];
  if (!row || !row.user_id) {
    throw new AuthError(404, "flow_state_not_found", "invalid flow state, no valid flow state found");
  }
  if (row.expired) {
    throw new AuthError(400, "flow_state_expired", "invalid flow state, flow state has expired");
  }
  if (challengeOf(verifier, row.code_challenge_method) !== row.code_challenge) {
    throw new AuthError(
      403,
      "bad_code_verifier",
      "code challenge does not match previously saved code verifier",
    );
  }
  return { userId: row.user_id, method: row.authentication_method };
}
