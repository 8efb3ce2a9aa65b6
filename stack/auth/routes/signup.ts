/**
 * POST /signup (GoTrue signup.go, anonymous.go): a password user, at once with a session or,
 * with `[auth.email] enable_confirmations`, unconfirmed with a mailed link (flows.ts); with
 * neither email nor phone, an anonymous user when anonymous sign-ins are on.
 */
import type { Hono } from "hono";
import type { AuthContext } from "../context.ts";
import { AuthError, Errors } from "../errors.ts";
import { signupWithConfirmation } from "../flows.ts";
import { pkceParams } from "../pkce.ts";
import { E164_RE, EMAIL_RE, jsonBody, optObject, optString } from "../request.ts";
import { issueSession } from "../sessions.ts";
import { findUserByEmail, insertUser, type UserRow } from "../users.ts";

export function signupRoutes(app: Hono, ctx: AuthContext): void {
  const { db, cfg, settings } = ctx;
  app.post("/signup", async (c) => {
    const body = await jsonBody(c);
    const email = optString(body, "email")?.trim();
    const phone = optString(body, "phone")?.trim();
    const password = optString(body, "password");
    const data = optObject(body, "data") ?? {};
    if (!(cfg.enableSignup ?? true)) {
      throw new AuthError(422, "signup_disabled", "Signups not allowed for this instance");
    }
    if (!email && !phone) {
      if (!(cfg.enableAnonymousSignIns ?? false)) throw Errors.anonymousDisabled();
      // GoTrue's SignupAnonymously: no identity, empty app_metadata, amr "anonymous".
      const anon = await db.transaction(async (tx) => {
        const r = await tx.query<UserRow>(
          `insert into auth.users (id, aud, role, raw_app_meta_data, raw_user_meta_data, is_anonymous, instance_id)
           values (gen_random_uuid(), 'authenticated', 'authenticated', '{}'::jsonb, $1, true,
             '00000000-0000-0000-0000-000000000000') returning *`,
          [data],
        );
        return issueSession(tx, settings, r.rows[0], "anonymous");
      });
      return c.json(anon);
    }
    if (email && !EMAIL_RE.test(email)) {
      throw Errors.validation("Unable to validate email address: invalid format");
    }
    if (phone && !E164_RE.test(phone)) {
      throw Errors.validation("Invalid phone number format (E.164 required)");
    }
    if (phone && !email) throw new AuthError(422, "phone_provider_disabled", "Phone signups are disabled");
    if (!password) throw Errors.validation("Signup requires a valid password");
    ctx.checkPassword(password);
    const passwordHash = await ctx.hashPassword(password);
    if (cfg.enableConfirmations && email) {
      // [auth.email] enable_confirmations = true: no session until the mailed link is followed.
      return c.json(
        await signupWithConfirmation(
          ctx,
          email,
          passwordHash,
          data,
          c.req.query("redirect_to"),
          pkceParams(body),
        ),
      );
    }
    const session = await db.transaction(async (tx) => {
      if (email && await findUserByEmail(tx, email)) throw Errors.userAlreadyExists();
      const user = await insertUser(tx, {
        email: email ?? null,
        phone: null,
        passwordHash,
        userMetadata: data,
        appMetadata: {},
        emailConfirmed: true,
        phoneConfirmed: false,
      });
      return issueSession(tx, settings, user, "password");
    });
    return c.json(session);
  });
}
