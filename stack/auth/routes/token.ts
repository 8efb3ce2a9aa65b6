/** POST /token (GoTrue token.go): grant_type password, refresh_token or pkce. */
import type { Hono } from "hono";
import bcrypt from "bcryptjs";
import type { AuthContext } from "../context.ts";
import { Errors } from "../errors.ts";
import { exchangeAuthCode } from "../flows.ts";
import { jsonBody, optString } from "../request.ts";
import { issueSession, refreshSession } from "../sessions.ts";
import { findUserByEmail, findUserByPhone } from "../users.ts";

export function tokenRoutes(app: Hono, ctx: AuthContext): void {
  const { db, settings } = ctx;
  app.post("/token", async (c) => {
    const grant = c.req.query("grant_type");
    const body = await jsonBody(c);
    if (grant === "password") {
      const email = optString(body, "email")?.trim();
      const phone = optString(body, "phone")?.trim();
      const password = optString(body, "password") ?? "";
      if (!email && !phone) throw Errors.validation("missing email or phone");
      const user = email ? await findUserByEmail(db, email) : await findUserByPhone(db, phone!);
      const ok = !!user?.encrypted_password && await bcrypt.compare(password, user.encrypted_password);
      if (!user || !ok) throw Errors.invalidCredentials();
      if (email && !user.email_confirmed_at) throw Errors.emailNotConfirmed();
      if (user.banned_until && new Date(user.banned_until) > new Date()) throw Errors.userBanned();
      return c.json(await db.transaction((tx) => issueSession(tx, settings, user, "password")));
    }
    if (grant === "refresh_token") {
      const token = optString(body, "refresh_token");
      if (!token) throw Errors.validation("refresh_token required");
      // A reuse must revoke the session even though the request fails: commit, then answer.
      const result = await db.transaction((tx) => refreshSession(tx, settings, token));
      if ("error" in result) throw result.error;
      return c.json(result.session);
    }
    if (grant === "pkce") return c.json(await exchangeAuthCode(ctx, body));
    throw Errors.unsupportedGrant();
  });
}
