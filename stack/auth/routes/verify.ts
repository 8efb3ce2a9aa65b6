/**
 * POST /verify (auth-js verifyOtp) and GET /verify (the link in the mail), GoTrue verify.go: a
 * token or token hash is consumed once and applied (confirmation, recovery, email change), then
 * answered with a session, or, for the mailed link, a redirect carrying the session, the PKCE
 * auth code or the error.
 */
import type { Hono } from "hono";
import type { Queryable } from "../../db/database.ts";
import type { AuthContext } from "../context.ts";
import { AuthError, Errors } from "../errors.ts";
import {
  applyEmailChange,
  AUTH_METHOD,
  confirmEmail,
  otpExpired,
  phoneTokenRefused,
  SINGLE_CONFIRMATION_ACCEPTED,
  validEmail,
  validPhone,
  VERIFY_TYPES,
} from "../flows.ts";
import { consumeToken, hasToken, tokenHash, type TokenType } from "../otp.ts";
import { issueAuthCode, PKCE_PREFIX } from "../pkce.ts";
import { type Json, jsonBody, optString } from "../request.ts";
import { issueSession } from "../sessions.ts";
import { redirectTarget } from "../settings.ts";
import { findUserById, type UserRow } from "../users.ts";

/** Applies a consumed token; null means the first half of a double email change was confirmed. */
async function completeVerification(
  ctx: AuthContext,
  tx: Queryable,
  token: { user_id: string; token_type: TokenType; relates_to: string },
  type: string,
): Promise<{ user: UserRow; method: string } | null> {
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
    if (ctx.cfg.doubleConfirmChanges && await hasToken(tx, user.id, other)) return null;
    await applyEmailChange(tx, user, pending);
  }
  return { user: (await findUserById(tx, user.id))!, method };
}

export function verifyRoutes(app: Hono, ctx: AuthContext): void {
  const { db, cfg } = ctx;

  app.post("/verify", async (c) => {
    const body = await jsonBody(c);
    const type = optString(body, "type") ?? "";
    const rawToken = optString(body, "token") ?? "";
    const token = rawToken.replaceAll("-", "").trim();
    const hashParam = optString(body, "token_hash") ?? "";
    const phone = optString(body, "phone") ?? "";
    const email = optString(body, "email") ?? "";
    // GoTrue's VerifyParams.Validate, in its order: the type, exactly one of token and token_hash,
    // then the phone number (or the address) the token was sent to.
    if (!type) throw Errors.validation("Verify requires a verification type");
    if (!rawToken === !hashParam) throw Errors.validation("Verify requires either a token or a token hash");
    if (rawToken && phone && !email) throw await phoneTokenRefused(db, validPhone(phone), type);
    if (rawToken && (!email || phone)) {
      throw Errors.validation("Only an email address or phone number should be provided on verify");
    }
    if (hashParam && (email || phone || optString(body, "redirect_to"))) {
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
      const done = await completeVerification(ctx, tx, consumed, type);
      return { session: done && await issueSession(tx, ctx.settings, done.user, done.method) } as const;
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
        const done = await completeVerification(ctx, tx, consumed, type);
        if (!done) return null;
        if (pkce) return { code: await issueAuthCode(tx, done.user.id, AUTH_METHOD[type]) };
        return { session: await issueSession(tx, ctx.settings, done.user, done.method) };
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
}
