/**
 * One-time email tokens, as GoTrue keeps them: the mail carries a random numeric code (the OTP)
 * and a link with its hash; only the hash is stored (crypto.GenerateTokenHash: hex SHA-224 of
 * email + code), in auth.one_time_tokens with one live token per user and type, and on the
 * matching auth.users column. Verifying deletes the row, so every token works once; a token older
 * than `[auth.email] otp_expiry` (GoTrue's GOTRUE_MAILER_OTP_EXP, 1 hour) is refused and dropped.
 */
import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.ts";

export type TokenType =
  | "confirmation_token"
  | "recovery_token"
  | "email_change_token_new"
  | "email_change_token_current"
  | "reauthentication_token";

export function generateOtp(length: number): string {
  const digits = crypto.getRandomValues(new Uint32Array(length));
  return Array.from(digits, (d) => String(d % 10)).join("");
}

export function tokenHash(email: string, otp: string): string {
  return createHash("sha224").update(email.toLowerCase() + otp).digest("hex");
}

/** The users column GoTrue mirrors each token type into (only those this schema has). */
const USER_COLUMN: Partial<Record<TokenType, [string, string]>> = {
  confirmation_token: ["confirmation_token", "confirmation_sent_at"],
  recovery_token: ["recovery_token", "recovery_sent_at"],
};

/** Issues a fresh token of `type` for the user (replacing any older one) and returns its code. */
export async function issueToken(
  tx: Queryable,
  userId: string,
  type: TokenType,
  relatesTo: string,
  otpLength: number,
): Promise<{ otp: string; hash: string }> {
  const otp = generateOtp(otpLength);
  const hash = tokenHash(relatesTo, otp);
  await tx.query(
    `insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)
     values (gen_random_uuid(), $1, $2::auth.one_time_token_type, $3, $4)
     on conflict (user_id, token_type) do update
       set token_hash = excluded.token_hash, relates_to = excluded.relates_to,
           created_at = now(), updated_at = now()`,
    [userId, type, hash, relatesTo.toLowerCase()],
  );
  const cols = USER_COLUMN[type];
  if (cols) {
    await tx.query(`update auth.users set ${cols[0]} = $2, ${cols[1]} = now() where id = $1`, [userId, hash]);
  }
  return { otp, hash };
}

export interface ConsumedToken {
  user_id: string;
  token_type: TokenType;
  relates_to: string;
}

/**
 * Takes the token with this hash and one of `types` out of the store. Returns it if it was live;
 * null if it never existed, was used, or expired (an expired one is dropped as well).
 */
export async function consumeToken(
  tx: Queryable,
  hash: string,
  types: TokenType[],
  expirySeconds: number,
): Promise<ConsumedToken | null> {
  const r = await tx.query<ConsumedToken & { expired: boolean }>(
    `delete from auth.one_time_tokens
      where token_hash = $1 and token_type::text = any($2::text[])
      returning user_id, token_type::text as token_type, relates_to,
        created_at < now()::timestamp - make_interval(secs => $3::int) as expired`,
    [hash, types, expirySeconds],
  );
  const row = r.rows[0];
  if (!row) return null;
  const cols = USER_COLUMN[row.token_type];
  if (cols) await tx.query(`update auth.users set ${cols[0]} = '' where id = $1`, [row.user_id]);
  if (row.expired) return null;
  return { user_id: row.user_id, token_type: row.token_type, relates_to: row.relates_to };
}

/** Whether the user still has a live token of this type (the other half of a double confirm). */
export async function hasToken(tx: Queryable, userId: string, type: TokenType): Promise<boolean> {
  const r = await tx.query(
    `select 1 from auth.one_time_tokens where user_id = $1 and token_type = $2::auth.one_time_token_type`,
    [userId, type],
  );
  return r.rows.length > 0;
}

export async function dropTokens(tx: Queryable, userId: string, types: TokenType[]): Promise<void> {
  await tx.query(
    `delete from auth.one_time_tokens where user_id = $1 and token_type::text = any($2::text[])`,
    [userId, types],
  );
}
