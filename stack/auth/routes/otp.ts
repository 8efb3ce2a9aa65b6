/**
 * The routes that mail a code or link without a session (GoTrue otp.go, magic_link.go,
 * recover.go, resend.go): POST /otp and the legacy /magiclink (creating the user if allowed),
 * POST /recover and POST /resend. Each answers 200 {} whether or not the address has a user.
 */
import type { Context, Hono } from "hono";
import type { AuthContext } from "../context.ts";
import { AuthError, Errors } from "../errors.ts";
import {
  AUTH_METHOD,
  redirectOf,
  requestEmailChange,
  sendMagicLink,
  sendMail,
  validEmail,
} from "../flows.ts";
import { issueToken } from "../otp.ts";
import { createFlowState, pkceParams } from "../pkce.ts";
import { type Json, jsonBody, optString } from "../request.ts";
import { findUserByEmail, insertUser } from "../users.ts";

export function otpRoutes(app: Hono, ctx: AuthContext): void {
  const { db, cfg } = ctx;

  // POST /recover: always 200 {} so the answer does not tell whether the address has a user.
  app.post("/recover", async (c) => {
    const body = await jsonBody(c);
    const email = validEmail(optString(body, "email"), "Password recovery requires an email");
    const redirectTo = redirectOf(ctx, c, body);
    const pkce = pkceParams(body);
    const user = await findUserByEmail(db, email);
    if (user && !(user.banned_until && new Date(user.banned_until) > new Date())) {
      if (pkce) await createFlowState(db, user.id, pkce, AUTH_METHOD.recovery);
      const t = await issueToken(db, user.id, "recovery_token", email, cfg.otpLength);
      await sendMail(ctx, "recovery", email, user, t, redirectTo, pkce);
    }
    return c.json({});
  });

  // POST /otp (and the legacy /magiclink): email OTP and magic link, creating the user if allowed.
  const otp = async (c: Context) => {
    const body = await jsonBody(c);
    if (body.phone !== undefined && body.phone !== null && body.phone !== "") {
      throw new AuthError(400, "phone_provider_disabled", "Unsupported phone provider");
    }
    const email = validEmail(optString(body, "email"), "An email address is required");
    const redirectTo = redirectOf(ctx, c, body);
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
    await sendMagicLink(ctx, user, redirectTo, pkce);
    return c.json({});
  };
  app.post("/otp", otp);
  app.post("/magiclink", otp);

  // POST /resend (auth-js resend): mails the signup confirmation or the pending email change
  // again; 200 {} whether or not there was anything to resend, as GoTrue answers.
  app.post("/resend", async (c) => {
    const body = await jsonBody(c);
    const type = optString(body, "type") ?? "";
    if (body.phone) throw new AuthError(400, "phone_provider_disabled", "Unsupported phone provider");
    if (type !== "signup" && type !== "email_change") {
      throw Errors.validation("Missing one of these types: signup, email_change, sms, phone_change");
    }
    const email = validEmail(optString(body, "email"), "An email address is required");
    const redirectTo = redirectOf(ctx, c, body);
    const user = await findUserByEmail(db, email);
    if (!user) return c.json({});
    if (type === "signup" && !user.email_confirmed_at) {
      const t = await issueToken(db, user.id, "confirmation_token", email, cfg.otpLength);
      await sendMail(ctx, "signup", email, user, t, redirectTo);
    }
    if (type === "email_change" && user.email_change) {
      await requestEmailChange(ctx, user, user.email_change, redirectTo);
    }
    return c.json({});
  });
}
