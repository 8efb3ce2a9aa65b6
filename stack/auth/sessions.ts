/**
 * Sessions and refresh-token rotation, as GoTrue does it: each refresh revokes the presented token
 * and issues its child; presenting a revoked token again is refused and, since it means the token
 * leaked or was replayed, revokes the whole session (GoTrue's reuse detection without the 10 s
 * reuse interval).
 */
import { signAccessToken } from "@shared/auth/jwks.ts";
import type { Queryable } from "../db/database.ts";
import { AuthError, Errors } from "./errors.ts";
import { findUserById, userJson, type UserRow } from "./users.ts";

export interface TokenSettings {
  jwtSecret: string;
  jwtExpirySeconds: number;
  issuer: string;
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function accessToken(
  s: TokenSettings,
  user: UserRow,
  sessionId: string,
  amr: { method: string; timestamp: number }[],
): Promise<{ token: string; exp: number }> {
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + s.jwtExpirySeconds;
  const token = await signAccessToken({
    iss: s.issuer,
    sub: user.id,
    aud: user.aud,
    exp,
    iat,
    email: user.email ?? "",
    phone: user.phone ?? "",
    app_metadata: user.raw_app_meta_data,
    user_metadata: user.raw_user_meta_data,
    role: user.role,
    aal: "aal1",
    amr,
    session_id: sessionId,
    is_anonymous: user.is_anonymous,
  }, s.jwtSecret);
  return { token, exp };
}

async function sessionResponse(
  tx: Queryable,
  s: TokenSettings,
  user: UserRow,
  sessionId: string,
  refreshToken: string,
  amr: { method: string; timestamp: number }[],
) {
  const { token, exp } = await accessToken(s, user, sessionId, amr);
  return {
    access_token: token,
    token_type: "bearer",
    expires_in: s.jwtExpirySeconds,
    expires_at: exp,
    refresh_token: refreshToken,
    user: await userJson(tx, user),
  };
}

/** Starts a session for a user who just proved who they are. */
export async function issueSession(tx: Queryable, s: TokenSettings, user: UserRow, method: string) {
  const sessionId = crypto.randomUUID();
  await tx.query(`insert into auth.sessions (id, user_id) values ($1, $2)`, [sessionId, user.id]);
  const refresh = randomToken();
  await tx.query(
    `insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3)`,
    [refresh, user.id, sessionId],
  );
  const signedIn = await tx.query<UserRow>(
    `update auth.users set last_sign_in_at = now() where id = $1 returning *`,
    [user.id],
  );
  await tx.query(`update auth.identities set last_sign_in_at = now() where user_id = $1`, [user.id]);
  const amr = [{ method, timestamp: Math.floor(Date.now() / 1000) }];
  return sessionResponse(tx, s, signedIn.rows[0], sessionId, refresh, amr);
}

interface RefreshRow {
  id: number;
  token: string;
  user_id: string;
  revoked: boolean;
  session_id: string;
}

/**
 * Rotates a refresh token. Returns either the new session or the error to answer with; on reuse
 * the session is revoked and that revocation must be committed even though the call fails.
 */
export async function refreshSession(
  tx: Queryable,
  s: TokenSettings,
  presented: string,
): Promise<{ session: Awaited<ReturnType<typeof sessionResponse>> } | { error: AuthError }> {
  const r = await tx.query<RefreshRow>(
    `select t.* from auth.refresh_tokens t join auth.sessions s on s.id = t.session_id
      where t.token = $1 for update of t`,
    [presented],
  );
  const row = r.rows[0];
  if (!row) return { error: Errors.refreshTokenNotFound() };
  if (row.revoked) {
    await tx.query(`delete from auth.sessions where id = $1`, [row.session_id]);
    return { error: Errors.refreshTokenAlreadyUsed() };
  }
  const user = await findUserById(tx, row.user_id);
  if (!user) return { error: Errors.refreshTokenNotFound() };
  if (user.banned_until && new Date(user.banned_until) > new Date()) return { error: Errors.userBanned() };
  await tx.query(`update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1`, [row.id]);
  const next = randomToken();
  await tx.query(
    `insert into auth.refresh_tokens (token, user_id, session_id, parent) values ($1, $2, $3, $4)`,
    [next, row.user_id, row.session_id, row.token],
  );
  await tx.query(`update auth.sessions set refreshed_at = now(), updated_at = now() where id = $1`, [
    row.session_id,
  ]);
  const amr = [{ method: "token_refresh", timestamp: Math.floor(Date.now() / 1000) }];
  return { session: await sessionResponse(tx, s, user, row.session_id, next, amr) };
}
