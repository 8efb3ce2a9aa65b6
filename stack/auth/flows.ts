/**
 * The steps of GoTrue's email flows for /auth/v1 (supabase/auth internal/api: otp.go,
 * magic_link.go, recover.go, verify.go, invite.go, admin.go GenerateLink, reauthenticate.go,
 * user.go email change, anonymous.go), shared by the routes that serve them (routes/otp.ts,
 * verify.ts, user.ts, invite.ts, generate_link.ts, signup.ts, token.ts): what auth-js's
 * signInWithOtp, verifyOtp, resetPasswordForEmail, updateUser({email}), reauthenticate,
 * signInAnonymously, admin.inviteUserByEmail and admin.generateLink call. Each mail goes through
 * mail.ts into the sandbox's mail viewer, its token through otp.ts (hashed, single use, expiring).
 *
 * Differences from hosted GoTrue, on purpose: no per-address send rate limit
 * (`[auth.email] max_frequency`, `[auth.rate_limit] email_sent`) and no captcha. Clients with
 * `flowType: "pkce"` get GoTrue's PKCE links (pkce.ts).
 *
 * Phone: the phone provider is off (no SMS is sent, no `[auth.sms.test_otp]`), so /otp and
 * /resend refuse a phone (400 phone_provider_disabled "Unsupported phone provider"). POST
 * /verify with a phone checks as GoTrue's verify.go does, in its order (type, exactly one of
 * token and token_hash, then phone.go validatePhone: 400 validation_failed "Invalid phone number
 * format (E.164 required)"), then answers as GoTrue does for a code that does not match: 403
 * otp_expired "Token has expired or is invalid" (403 user_banned for a banned user with that
 * number).
 */
import type { Context } from "hono";
import type { JwtClaims } from "@shared/auth/jwt.ts";
import type { Queryable } from "../db/database.ts";
import type { AuthContext } from "./context.ts";
import { AuthError, Errors } from "./errors.ts";
import { type MailKind, sendAuthMail } from "./mail.ts";
import { consumeToken, dropTokens, issueToken, tokenHash, type TokenType } from "./otp.ts";
import { issueSession } from "./sessions.ts";
import { createFlowState, PKCE_PREFIX, type PkceParams, redeemAuthCode } from "./pkce.ts";
import { type Json, optString } from "./request.ts";
import { redirectTarget } from "./settings.ts";
import { findUserByEmail, findUserById, insertUser, userJson, type UserRow } from "./users.ts";

// GoTrue's validateEmail format (badoux/checkmail), as admin_users.ts GOTRUE_EMAIL_RE.
const EMAIL_RE =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
export const SINGLE_CONFIRMATION_ACCEPTED =
  "Confirmation link accepted. Please proceed to confirm link sent to the other email";

export const otpExpired = () => new AuthError(403, "otp_expired", "Token has expired or is invalid");

export function validEmail(raw: string | undefined, missing: string): string {
  const email = raw?.trim().toLowerCase();
  if (!email) throw Errors.validation(missing);
  if (!EMAIL_RE.test(email) || email.length > 255) {
    throw Errors.validation("Unable to validate email address: invalid format");
  }
  return email;
}

/**
 * GoTrue's validatePhone (phone.go): the number without a leading "+" and spaces, E.164 digits,
 * else 400 validation_failed.
 */
export function validPhone(raw: string): string {
  const phone = raw.replace(/^\+/, "").replaceAll(" ", "");
  if (!/^[1-9][0-9]{1,14}$/.test(phone)) {
    throw Errors.validation("Invalid phone number format (E.164 required)");
  }
  return phone;
}

/**
 * GoTrue's verifyUserAndToken (verify.go) for a phone OTP: the user by phone (sms) or pending
 * phone change (phone_change), a ban, then the token. The phone provider is off here, so no SMS
 * code is ever issued and every phone token is refused as GoTrue refuses a wrong one: 403
 * otp_expired. Numbers are stored with or without the "+" (GoTrue stores them without).
 */
export async function phoneTokenRefused(db: Queryable, phone: string, type: string): Promise<AuthError> {
  const column = type === "sms" ? "phone" : type === "phone_change" ? "phone_change" : null;
  if (column) {
    const r = await db.query<{ banned: boolean }>(
      `select coalesce(banned_until > now(), false) as banned from auth.users
        where ${column} in ($1, '+' || $1) and deleted_at is null and is_sso_user = false limit 1`,
      [phone],
    );
    if (r.rows[0]?.banned) return new AuthError(403, "user_banned", "User is banned");
  }
  return otpExpired();
}

/** Which stored token types a /verify type accepts (GoTrue: "email" covers signup and magic link). */
export const VERIFY_TYPES: Record<string, TokenType[]> = {
  signup: ["confirmation_token"],
  invite: ["confirmation_token"],
  magiclink: ["recovery_token"],
  recovery: ["recovery_token"],
  email: ["confirmation_token", "recovery_token"],
  email_change: ["email_change_token_new", "email_change_token_current"],
};

/** GoTrue's models.AuthenticationMethod for each verify type (flow_state, amr). */
export const AUTH_METHOD: Record<string, string> = {
  signup: "email/signup",
  invite: "invite",
  magiclink: "magiclink",
  recovery: "recovery",
  email_change: "email_change",
};

export const verifyLink = (
  externalUrl: string,
  hash: string,
  type: string,
  redirectTo: string,
  pkce: boolean,
) =>
  `${externalUrl}/verify?token=${pkce ? PKCE_PREFIX : ""}${hash}&type=${type}&redirect_to=${
    encodeURIComponent(redirectTo)
  }`;

export async function confirmEmail(tx: Queryable, userId: string): Promise<void> {
  await tx.query(
    `update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()) where id = $1`,
    [
      userId,
    ],
  );
  await tx.query(
    `update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb
      where user_id = $1 and provider = 'email'`,
    [userId],
  );
}

/** GoTrue's ConfirmEmailChange: the pending address becomes the email; anonymous users turn permanent. */
export async function applyEmailChange(tx: Queryable, user: UserRow, newEmail: string): Promise<void> {
  const other = await findUserByEmail(tx, newEmail);
  if (other && other.id !== user.id) throw Errors.emailExists();
  await tx.query(
    `update auth.users set email = $2, email_change = '', email_change_sent_at = null,
       email_confirmed_at = coalesce(email_confirmed_at, now()), is_anonymous = false,
       raw_app_meta_data = case when raw_app_meta_data ? 'provider' then raw_app_meta_data
         else raw_app_meta_data || '{"provider": "email", "providers": ["email"]}'::jsonb end
     where id = $1`,
    [user.id, newEmail],
  );
  const updated = await tx.query(
    `update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text, 'email_verified', true)
      where user_id = $1 and provider = 'email'`,
    [user.id, newEmail],
  );
  if (updated.affectedRows === 0) {
    await tx.query(
      `insert into auth.identities (provider_id, user_id, identity_data, provider) values ($1, $2, $3, 'email')`,
      [user.id, user.id, { sub: user.id, email: newEmail, email_verified: true, phone_verified: false }],
    );
  }
  await dropTokens(tx, user.id, ["email_change_token_new", "email_change_token_current"]);
}

/** The mail of `kind` for `user`, with the verify link of token `t` (none for reauthentication). */
/**
 * The user an invite is for (GoTrue's invite: a confirmed user is refused, a new one created without a
 * password), marked invited now. Used by POST /invite and generate_link's `invite`.
 */
export async function invitedUser(
  tx: Queryable,
  email: string,
  found: UserRow | null,
  data: Json,
): Promise<UserRow> {
  if (found && found.email_confirmed_at) throw Errors.emailExists();
  const u = found ?? await insertUser(tx, {
    email,
    phone: null,
    passwordHash: null,
    userMetadata: data,
    appMetadata: {},
    emailConfirmed: false,
    phoneConfirmed: false,
  });
  const r = await tx.query<UserRow>(`update auth.users set invited_at = now() where id = $1 returning *`, [
    u.id,
  ]);
  return r.rows[0];
}

export function sendMail(
  f: Pick<AuthContext, "cfg" | "transport" | "externalUrl">,
  kind: MailKind,
  to: string,
  user: UserRow,
  t: { otp: string; hash: string },
  redirectTo: string,
  pkce: PkceParams | null = null,
): Promise<void> {
  return sendAuthMail(f.transport, {
    kind,
    to,
    confirmationUrl: kind === "reauthentication"
      ? ""
      : verifyLink(f.externalUrl, t.hash, kind, redirectTo, !!pkce),
    token: t.otp,
    tokenHash: t.hash,
    siteUrl: f.cfg.siteUrl,
    email: user.email ?? "",
    redirectTo,
  });
}

/** Where a mailed link lands: the query's or the body's redirect_to if allowed, else site_url. */
export const redirectOf = (f: Pick<AuthContext, "cfg">, c: Context, body: Json = {}): string =>
  redirectTarget(f.cfg, c.req.query("redirect_to") ?? optString(body, "redirect_to"));

/** Sends the magic link, or the signup confirmation to a user who has not confirmed yet. */
export async function sendMagicLink(
  f: AuthContext,
  user: UserRow,
  redirectTo: string,
  pkce: PkceParams | null,
): Promise<void> {
  const confirmed = !!user.email_confirmed_at;
  const kind = confirmed ? "magiclink" : "signup";
  if (pkce) await createFlowState(f.db, user.id, pkce, AUTH_METHOD[kind]);
  const t = await issueToken(
    f.db,
    user.id,
    confirmed ? "recovery_token" : "confirmation_token",
    user.email!,
    f.cfg.otpLength,
  );
  await sendMail(f, kind, user.email!, user, t, redirectTo, pkce);
}

/**
 * PUT /user with a password under `secure_password_change`: GoTrue's
 * UpdatePasswordRequireReauthentication asks for a /reauthenticate nonce unless the session
 * started within the last 24 hours.
 */
export async function checkReauthentication(
  f: Pick<AuthContext, "db" | "cfg">,
  user: UserRow,
  claims: JwtClaims,
  nonce: string | undefined,
): Promise<void> {
  if (!f.cfg.securePasswordChange) return;
  const sid = typeof claims.session_id === "string" ? claims.session_id : null;
  const recent = sid
    ? (await f.db.query(
      `select 1 from auth.sessions where id = $1 and created_at > now() - interval '24 hours'`,
      [sid],
    ))
      .rows.length > 0
    : false;
  if (recent) return;
  if (!nonce) {
    throw new AuthError(400, "reauthentication_needed", "Password update requires reauthentication");
  }
  const consumed = await consumeToken(
    f.db,
    tokenHash(user.email ?? "", nonce),
    ["reauthentication_token"],
    f.cfg.otpExpirySeconds,
  );
  if (!consumed || consumed.user_id !== user.id) {
    throw new AuthError(400, "reauthentication_not_valid", "Reauthentication failed");
  }
}

/**
 * PUT /user with a new email. GoTrue (user.go): an anonymous user with autoconfirm gets it at
 * once; everyone else must confirm from the new address and, with `double_confirm_changes`, the
 * current one too. Returns the email to write now, or null when mail went out instead.
 */
export async function requestEmailChange(
  f: Pick<AuthContext, "db" | "cfg" | "transport" | "externalUrl">,
  user: UserRow,
  newEmail: string,
  redirectRaw: string | undefined,
  pkce: PkceParams | null = null,
): Promise<void> {
  const { db, cfg } = f;
  const email = newEmail.toLowerCase();
  const other = await findUserByEmail(db, email);
  if (other && other.id !== user.id) throw Errors.emailExists();
  if (user.is_anonymous && !cfg.enableConfirmations) {
    await db.transaction((tx) => applyEmailChange(tx, user, email));
    return;
  }
  const redirectTo = redirectTarget(cfg, redirectRaw);
  await db.query(`update auth.users set email_change = $2, email_change_sent_at = now() where id = $1`, [
    user.id,
    email,
  ]);
  await dropTokens(db, user.id, ["email_change_token_new", "email_change_token_current"]);
  if (pkce) await createFlowState(db, user.id, pkce, AUTH_METHOD.email_change);
  const link = (hash: string) => verifyLink(f.externalUrl, hash, "email_change", redirectTo, !!pkce);
  const send = async (to: string, type: TokenType) => {
    const t = await issueToken(db, user.id, type, to, cfg.otpLength);
    await sendAuthMail(f.transport, {
      kind: "email_change",
      to,
      confirmationUrl: link(t.hash),
      token: t.otp,
      tokenHash: t.hash,
      siteUrl: cfg.siteUrl,
      email: user.email ?? "",
      newEmail: email,
      redirectTo,
    });
  };
  await send(email, "email_change_token_new");
  if (cfg.doubleConfirmChanges && user.email) await send(user.email, "email_change_token_current");
}

/**
 * POST /signup with confirmations on (GoTrue signup.go without GOTRUE_MAILER_AUTOCONFIRM): the
 * user is created unconfirmed and mailed a confirmation; the answer is the user, no session. A
 * repeated signup of an unconfirmed address mails again; one of a confirmed address answers a
 * look-alike user and mails nothing, so the endpoint does not reveal who is registered.
 */
export async function signupWithConfirmation(
  f: Pick<AuthContext, "db" | "cfg" | "transport" | "externalUrl">,
  email: string,
  passwordHash: string,
  data: Json,
  redirectRaw: string | undefined,
  pkce: PkceParams | null = null,
): Promise<Json> {
  const { db, cfg } = f;
  const redirectTo = redirectTarget(cfg, redirectRaw);
  const address = email.toLowerCase();
  const user = await db.transaction(async (tx) => {
    const existing = await findUserByEmail(tx, address);
    if (existing?.email_confirmed_at) return null;
    if (existing) {
      await tx.query(`update auth.users set encrypted_password = $2, raw_user_meta_data = $3 where id = $1`, [
        existing.id,
        passwordHash,
        data,
      ]);
      return existing;
    }
    return insertUser(tx, {
      email: address,
      phone: null,
      passwordHash,
      userMetadata: data,
      appMetadata: {},
      emailConfirmed: false,
      phoneConfirmed: false,
    });
  });
  if (!user) {
    const now = new Date().toISOString();
    return {
      id: crypto.randomUUID(),
      aud: "authenticated",
      role: "authenticated",
      email: address,
      phone: "",
      confirmation_sent_at: now,
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: {},
      identities: [],
      created_at: now,
      updated_at: now,
      is_anonymous: false,
    };
  }
  if (pkce) await createFlowState(db, user.id, pkce, AUTH_METHOD.signup);
  const t = await issueToken(db, user.id, "confirmation_token", address, cfg.otpLength);
  await sendAuthMail(f.transport, {
    kind: "signup",
    to: address,
    confirmationUrl: verifyLink(f.externalUrl, t.hash, "signup", redirectTo, !!pkce),
    token: t.otp,
    tokenHash: t.hash,
    siteUrl: cfg.siteUrl,
    email: address,
    redirectTo,
  });
  return userJson(db, (await findUserById(db, user.id))!);
}

/**
 * POST /token?grant_type=pkce: trades the auth code of a pkce_ link and the client's verifier
 * for a session. The code is spent by the attempt (committed before the verifier is checked), so
 * a wrong verifier cannot be retried against it.
 */
export async function exchangeAuthCode(
  f: Pick<AuthContext, "db" | "settings">,
  body: Json,
): Promise<Json> {
  const authCode = typeof body.auth_code === "string" ? body.auth_code : "";
  const verifier = typeof body.code_verifier === "string" ? body.code_verifier : "";
  const { userId, method } = await redeemAuthCode(f.db, authCode, verifier);
  return f.db.transaction(async (tx) => {
    const user = await findUserById(tx, userId);
    if (!user) {
      throw new AuthError(404, "flow_state_not_found", "invalid flow state, no valid flow state found");
    }
    if (user.banned_until && new Date(user.banned_until) > new Date()) throw Errors.userBanned();
    return issueSession(tx, f.settings, user, method);
  });
}
