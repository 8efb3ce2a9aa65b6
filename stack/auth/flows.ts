/**
 * GoTrue's email flows for /auth/v1 (supabase/auth internal/api: otp.go, magic_link.go,
 * recover.go, verify.go, invite.go, admin.go GenerateLink, reauthenticate.go, user.go email
 * change, anonymous.go): what auth-js's signInWithOtp, verifyOtp, resetPasswordForEmail,
 * updateUser({email}), reauthenticate, signInAnonymously, admin.inviteUserByEmail and
 * admin.generateLink call. Each mail goes through mail.ts into the sandbox's mail viewer, its
 * token through otp.ts (hashed, single use, expiring).
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
import type { Context, Hono } from "hono";
import type { JwtClaims } from "@shared/auth/jwt.ts";
import type { PGlite, Queryable } from "../db/database.ts";
import { AuthError, Errors } from "./errors.ts";
import { type MailKind, type MailTransport, sendAuthMail } from "./mail.ts";
import { consumeToken, dropTokens, hasToken, issueToken, tokenHash, type TokenType } from "./otp.ts";
import { issueSession, type TokenSettings } from "./sessions.ts";
import {
  createFlowState,
  issueAuthCode,
  PKCE_PREFIX,
  type PkceParams,
  pkceParams,
  redeemAuthCode,
} from "./pkce.ts";
import { type AuthConfig, redirectTarget } from "./settings.ts";
import { findUserByEmail, findUserById, insertUser, userJson, type UserRow } from "./users.ts";

type Json = Record<string, unknown>;

export interface FlowContext {
  db: PGlite;
  cfg: AuthConfig;
  settings: TokenSettings;
  /** GoTrue's API_EXTERNAL_URL: the public /auth/v1 base the mailed links point at. */
  externalUrl: string;
  transport?: MailTransport;
  jsonBody(c: Context): Promise<Json>;
  currentUser(c: Context): Promise<{ user: UserRow; claims: JwtClaims }>;
  requireAdmin(c: Context): Promise<void>;
  hashPassword(password: string): Promise<string>;
  checkPassword(password: string): void;
}

// GoTrue's validateEmail format (badoux/checkmail), as admin_users.ts GOTRUE_EMAIL_RE.
const EMAIL_RE =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
export const SINGLE_CONFIRMATION_ACCEPTED =
  "Confirmation link accepted. Please proceed to confirm link sent to the other email";

const otpExpired = () => new AuthError(403, "otp_expired", "Token has expired or is invalid");

function str(body: Json, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw Errors.validation(`${key} must be a string`);
  return v;
}

function validEmail(raw: string | undefined, missing: string): string {
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
function validPhone(raw: string): string {
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
async function phoneTokenRefused(db: Queryable, phone: string, type: string): Promise<AuthError> {
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
const VERIFY_TYPES: Record<string, TokenType[]> = {
  signup: ["confirmation_token"],
  invite: ["confirmation_token"],
  magiclink: ["recovery_token"],
  recovery: ["recovery_token"],
  email: ["confirmation_token", "recovery_token"],
  email_change: ["email_change_token_new", "email_change_token_current"],
};

/** GoTrue's models.AuthenticationMethod for each verify type (flow_state, amr). */
const AUTH_METHOD: Record<string, string> = {
  signup: "email/signup",
  invite: "invite",
  magiclink: "magiclink",
  recovery: "recovery",
  email_change: "email_change",
};

const verifyLink = (externalUrl: string, hash: string, type: string, redirectTo: string, pkce: boolean) =>
  `${externalUrl}/verify?token=${pkce ? PKCE_PREFIX : ""}${hash}&type=${type}&redirect_to=${
    encodeURIComponent(redirectTo)
  }`;

async function confirmEmail(tx: Queryable, userId: string): Promise<void> {
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
async function applyEmailChange(tx: Queryable, user: UserRow, newEmail: string): Promise<void> {
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

export function registerEmailFlows(app: Hono, f: FlowContext): void {
  const { db, cfg } = f;

  const verifyUrl = (hash: string, type: string, redirectTo: string) =>
    verifyLink(f.externalUrl, hash, type, redirectTo, false);

  const mail = (
    kind: MailKind,
    to: string,
    user: UserRow,
    t: { otp: string; hash: string },
    redirectTo: string,
    pkce: PkceParams | null = null,
  ) =>
    sendAuthMail(f.transport, {
      kind,
      to,
      confirmationUrl: kind === "reauthentication"
        ? ""
        : verifyLink(f.externalUrl, t.hash, kind, redirectTo, !!pkce),
      token: t.otp,
      tokenHash: t.hash,
      siteUrl: cfg.siteUrl,
      email: user.email ?? "",
      redirectTo,
    });

  const redirectOf = (c: Context, body: Json = {}) =>
    redirectTarget(cfg, c.req.query("redirect_to") ?? str(body, "redirect_to"));

  /** Sends the magic link, or the signup confirmation to a user who has not confirmed yet. */
  const sendMagicLink = async (user: UserRow, redirectTo: string, pkce: PkceParams | null) => {
    const confirmed = !!user.email_confirmed_at;
    const kind = confirmed ? "magiclink" : "signup";
    if (pkce) await createFlowState(db, user.id, pkce, AUTH_METHOD[kind]);
    const t = await issueToken(
      db,
      user.id,
      confirmed ? "recovery_token" : "confirmation_token",
      user.email!,
      cfg.otpLength,
    );
    await mail(kind, user.email!, user, t, redirectTo, pkce);
  };

  // POST /recover: always 200 {} so the answer does not tell whether the address has a user.
  app.post("/recover", async (c) => {
    const body = await f.jsonBody(c);
    const email = validEmail(str(body, "email"), "Password recovery requires an email");
    const redirectTo = redirectOf(c, body);
    const pkce = pkceParams(body);
    const user = await findUserByEmail(db, email);
    if (user && !(user.banned_until && new Date(user.banned_until) > new Date())) {
      if (pkce) await createFlowState(db, user.id, pkce, AUTH_METHOD.recovery);
      const t = await issueToken(db, user.id, "recovery_token", email, cfg.otpLength);
      await mail("recovery", email, user, t, redirectTo, pkce);
    }
    return c.json({});
  });

  // POST /otp (and the legacy /magiclink): email OTP and magic link, creating the user if allowed.
  const otp = async (c: Context) => {
    const body = await f.jsonBody(c);
    if (body.phone !== undefined && body.phone !== null && body.phone !== "") {
      throw new AuthError(400, "phone_provider_disabled", "Unsupported phone provider");
    }
    const email = validEmail(str(body, "email"), "An email address is required");
    const redirectTo = redirectOf(c, body);
    const pkce = pkceParams(body);
    const data = body.data;
    if (data !== undefined && data !== null && (typeof data !== "object" || Array.isArray(data))) {
      throw Errors.validation("data must be an object");
    }
    let user = await findUserByEmail(db, email);
    if (!user) {
      if (body.create_user === false) throw new AuthError(422, "otp_disabled", "Signups not allowed for otp");
      if (!cfg.enableSignup) {
        throw new AuthError(422, "signup_disabled", "Signups not allowed for this instance");
      }
      user = await db.transaction(async (tx) => {
        if (await findUserByEmail(tx, email)) return (await findUserByEmail(tx, email))!;
        return insertUser(tx, {
          email,
          phone: null,
          passwordHash: null,
          userMetadata: (data as Json | undefined) ?? {},
          appMetadata: {},
          emailConfirmed: false,
          phoneConfirmed: false,
        });
      });
    }
    if (user.banned_until && new Date(user.banned_until) > new Date()) return c.json({});
    await sendMagicLink(user, redirectTo, pkce);
    return c.json({});
  };
  app.post("/otp", otp);
  app.post("/magiclink", otp);

  /** Applies a consumed token; null means the first half of a double email change was confirmed. */
  const completeVerification = async (
    tx: Queryable,
    token: { user_id: string; token_type: TokenType; relates_to: string },
    type: string,
  ): Promise<{ user: UserRow; method: string } | null> => {
    const user = await findUserById(tx, token.user_id);
    if (!user) throw otpExpired();
    if (user.banned_until && new Date(user.banned_until) > new Date()) throw Errors.userBanned();
    let method = "otp";
    if (token.token_type === "confirmation_token") {
      await confirmEmail(tx, user.id);
      if (type === "invite") method = "invite";
    } else if (token.token_type === "recovery_token") {
      await confirmEmail(tx, user.id);
      if (type === "recovery") method = "recovery";
    } else {
      const pending = (await tx.query<{ email_change: string | null }>(
        `select email_change from auth.users where id = $1`,
        [user.id],
      )).rows[0]?.email_change;
      if (!pending) throw otpExpired();
      const other: TokenType = token.token_type === "email_change_token_new"
        ? "email_change_token_current"
        : "email_change_token_new";
      if (cfg.doubleConfirmChanges && await hasToken(tx, user.id, other)) return null;
      await applyEmailChange(tx, user, pending);
    }
    return { user: (await findUserById(tx, user.id))!, method };
  };

  app.post("/verify", async (c) => {
    const body = await f.jsonBody(c);
    const type = str(body, "type") ?? "";
    const rawToken = str(body, "token") ?? "";
    const token = rawToken.replaceAll("-", "").trim();
    const hashParam = str(body, "token_hash") ?? "";
    const phone = str(body, "phone") ?? "";
    const email = str(body, "email") ?? "";
    // GoTrue's VerifyParams.Validate, in its order: the type, exactly one of token and token_hash,
    // then the phone number (or the address) the token was sent to.
    if (!type) throw Errors.validation("Verify requires a verification type");
    if (!rawToken === !hashParam) throw Errors.validation("Verify requires either a token or a token hash");
    if (rawToken && phone && !email) throw await phoneTokenRefused(db, validPhone(phone), type);
    if (rawToken && (!email || phone)) {
      throw Errors.validation("Only an email address or phone number should be provided on verify");
    }
    if (hashParam && (email || phone || str(body, "redirect_to"))) {
      throw Errors.validation("Only the token_hash and type should be provided");
    }
    const types = VERIFY_TYPES[type];
    if (!types) throw Errors.validation("Verify requires a verification type");
    let hash: string;
    if (hashParam) hash = hashParam;
    else hash = tokenHash(validEmail(email, "Verify requires an email or phone"), token);
    const result = await db.transaction(async (tx) => {
      const consumed = await consumeToken(tx, hash, types, cfg.otpExpirySeconds);
      if (!consumed) return { error: otpExpired() } as const;
      const done = await completeVerification(tx, consumed, type);
      return { session: done && await issueSession(tx, f.settings, done.user, done.method) } as const;
    });
    if ("error" in result) throw result.error;
    if (result.session === null) return c.json({ msg: SINGLE_CONFIRMATION_ACCEPTED, code: 200 });
    return c.json(result.session);
  });

  // GET /verify: the link in the mail. Lands on redirect_to (or site_url) with the session, or the
  // error, in the fragment, as GoTrue's implicit flow does.
  app.get("/verify", async (c) => {
    const type = c.req.query("type") ?? "";
    const raw = c.req.query("token") ?? "";
    const pkce = raw.startsWith(PKCE_PREFIX);
    const hash = (pkce ? raw.slice(PKCE_PREFIX.length) : raw).replaceAll("-", "");
    const target = redirectTarget(cfg, c.req.query("redirect_to"));
    const fail = (code: string, description: string, error = "access_denied") => {
      const u = new URL(target);
      u.search = "";
      const q = new URLSearchParams({ error, error_code: code, error_description: description }).toString();
      u.hash = q;
      if (pkce) u.search = q;
      return c.redirect(u.toString(), 303);
    };
    const types = VERIFY_TYPES[type];
    if (!types || type === "email") {
      return fail("validation_failed", "Invalid email verification type", "invalid_request");
    }
    if (!hash) return fail("validation_failed", "Verify requires a token", "invalid_request");
    let outcome: { session?: Json; code?: string } | null;
    try {
      outcome = await db.transaction(async (tx) => {
        const consumed = await consumeToken(tx, hash, types, cfg.otpExpirySeconds);
        if (!consumed) throw otpExpired();
        const done = await completeVerification(tx, consumed, type);
        if (!done) return null;
        if (pkce) return { code: await issueAuthCode(tx, done.user.id, AUTH_METHOD[type]) };
        return { session: await issueSession(tx, f.settings, done.user, done.method) };
      });
    } catch (err) {
      if (!(err instanceof AuthError)) throw err;
      if (err.code === "otp_expired") return fail("otp_expired", "Email link is invalid or has expired");
      return fail(err.code, err.message);
    }
    const u = new URL(target);
    if (outcome === null) {
      u.hash = new URLSearchParams({ message: SINGLE_CONFIRMATION_ACCEPTED }).toString();
      if (pkce) u.searchParams.set("message", SINGLE_CONFIRMATION_ACCEPTED);
      return c.redirect(u.toString(), 303);
    }
    if (outcome.code) {
      u.searchParams.set("code", outcome.code);
      return c.redirect(u.toString(), 303);
    }
    const s = outcome.session!;
    u.hash = new URLSearchParams({
      access_token: String(s.access_token),
      expires_at: String(s.expires_at),
      expires_in: String(s.expires_in),
      refresh_token: String(s.refresh_token),
      token_type: "bearer",
      type,
    }).toString();
    return c.redirect(u.toString(), 303);
  });

  // POST /invite (service role): creates the user if needed and mails the invite.
  app.post("/invite", async (c) => {
    await f.requireAdmin(c);
    const body = await f.jsonBody(c);
    const email = validEmail(str(body, "email"), "An email address is required");
    const data = (body.data && typeof body.data === "object" && !Array.isArray(body.data))
      ? body.data as Json
      : {};
    const redirectTo = redirectOf(c, body);
    const user = await db.transaction(async (tx) => {
      let u = await findUserByEmail(tx, email);
      if (u && u.email_confirmed_at) throw Errors.emailExists();
      if (!u) {
        u = await insertUser(tx, {
          email,
          phone: null,
          passwordHash: null,
          userMetadata: data,
          appMetadata: {},
          emailConfirmed: false,
          phoneConfirmed: false,
        });
      }
      const r = await tx.query<UserRow>(
        `update auth.users set invited_at = now() where id = $1 returning *`,
        [u.id],
      );
      return r.rows[0];
    });
    const t = await issueToken(db, user.id, "confirmation_token", email, cfg.otpLength);
    await mail("invite", email, user, t, redirectTo);
    return c.json(await userJson(db, (await findUserById(db, user.id))!));
  });

  // POST /admin/generate_link (service role): the link and code a mail would carry, without mail.
  app.post("/admin/generate_link", async (c) => {
    await f.requireAdmin(c);
    const body = await f.jsonBody(c);
    const type = str(body, "type") ?? "";
    const email = validEmail(str(body, "email"), "An email address is required");
    const redirectTo = redirectOf(c, body);
    const data = (body.data && typeof body.data === "object" && !Array.isArray(body.data))
      ? body.data as Json
      : {};
    const password = str(body, "password");
    let linkType = type;
    let tokenType: TokenType;
    let relatesTo = email;
    const user = await db.transaction(async (tx) => {
      let u = await findUserByEmail(tx, email);
      switch (type) {
        case "signup": {
          if (u && u.email_confirmed_at) throw Errors.emailExists();
          if (!password) throw Errors.validation("Signup requires a valid password");
          f.checkPassword(password);
          if (!u) {
            u = await insertUser(tx, {
              email,
              phone: null,
              passwordHash: await f.hashPassword(password),
              userMetadata: data,
              appMetadata: {},
              emailConfirmed: false,
              phoneConfirmed: false,
            });
          }
          tokenType = "confirmation_token";
          break;
        }
        case "invite": {
          if (u && u.email_confirmed_at) throw Errors.emailExists();
          if (!u) {
            u = await insertUser(tx, {
              email,
              phone: null,
              passwordHash: null,
              userMetadata: data,
              appMetadata: {},
              emailConfirmed: false,
              phoneConfirmed: false,
            });
          }
          u = (await tx.query<UserRow>(`update auth.users set invited_at = now() where id = $1 returning *`, [
            u.id,
          ]))
            .rows[0];
          tokenType = "confirmation_token";
          break;
        }
        case "magiclink":
        case "recovery": {
          if (!u) throw Errors.userNotFound();
          tokenType = "recovery_token";
          break;
        }
        case "email_change_current":
        case "email_change_new": {
          if (!u) throw Errors.userNotFound();
          const newEmail = validEmail(str(body, "new_email"), "Email change requires a new email");
          if (newEmail === u.email) {
            throw Errors.validation("New email address must differ from the current one");
          }
          if (await findUserByEmail(tx, newEmail)) throw Errors.emailExists();
          await tx.query(
            `update auth.users set email_change = $2, email_change_sent_at = now() where id = $1`,
            [
              u.id,
              newEmail,
            ],
          );
          tokenType = type === "email_change_new" ? "email_change_token_new" : "email_change_token_current";
          relatesTo = type === "email_change_new" ? newEmail : email;
          linkType = "email_change";
          break;
        }
        default:
          throw Errors.validation("Invalid email action link type requested");
      }
      return u;
    });
    const t = await issueToken(db, user.id, tokenType!, relatesTo, cfg.otpLength);
    const fresh = (await findUserById(db, user.id))!;
    return c.json({
      ...(await userJson(db, fresh)),
      action_link: verifyUrl(t.hash, linkType, redirectTo),
      email_otp: t.otp,
      hashed_token: t.hash,
      verification_type: linkType,
      redirect_to: redirectTo,
    });
  });

  // POST /resend (auth-js resend): mails the signup confirmation or the pending email change
  // again; 200 {} whether or not there was anything to resend, as GoTrue answers.
  app.post("/resend", async (c) => {
    const body = await f.jsonBody(c);
    const type = str(body, "type") ?? "";
    if (body.phone) throw new AuthError(400, "phone_provider_disabled", "Unsupported phone provider");
    if (type !== "signup" && type !== "email_change") {
      throw Errors.validation("Missing one of these types: signup, email_change, sms, phone_change");
    }
    const email = validEmail(str(body, "email"), "An email address is required");
    const redirectTo = redirectOf(c, body);
    const user = await findUserByEmail(db, email);
    if (!user) return c.json({});
    if (type === "signup" && !user.email_confirmed_at) {
      const t = await issueToken(db, user.id, "confirmation_token", email, cfg.otpLength);
      await mail("signup", email, user, t, redirectTo);
    }
    if (type === "email_change" && user.email_change) {
      await requestEmailChange(f, user, user.email_change, redirectTo);
    }
    return c.json({});
  });

  // GET /reauthenticate: mails a code that PUT /user accepts as `nonce`.
  app.get("/reauthenticate", async (c) => {
    const { user } = await f.currentUser(c);
    if (!user.email) {
      throw Errors.validation("Reauthentication requires the user to have an email or a phone number");
    }
    if (!user.email_confirmed_at) throw Errors.emailNotConfirmed();
    const t = await issueToken(db, user.id, "reauthentication_token", user.email, cfg.otpLength);
    await mail("reauthentication", user.email, user, t, cfg.siteUrl);
    return c.json({});
  });
}

/**
 * PUT /user with a password under `secure_password_change`: GoTrue's
 * UpdatePasswordRequireReauthentication asks for a /reauthenticate nonce unless the session
 * started within the last 24 hours.
 */
export async function checkReauthentication(
  f: Pick<FlowContext, "db" | "cfg">,
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
  f: Pick<FlowContext, "db" | "cfg" | "transport" | "externalUrl">,
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
  f: Pick<FlowContext, "db" | "cfg" | "transport" | "externalUrl">,
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
  f: Pick<FlowContext, "db" | "settings">,
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
