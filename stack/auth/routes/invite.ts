/** POST /invite (GoTrue invite.go, admin group): creates the user if needed and mails the invite. */
import type { AuthContext } from "../context.ts";
import { Errors } from "../errors.ts";
import { redirectOf, sendMail, validEmail } from "../flows.ts";
import type { RouteGroup } from "../guards.ts";
import { issueToken } from "../otp.ts";
import { type Json, jsonBody, optString } from "../request.ts";
import { findUserByEmail, findUserById, insertUser, userJson, type UserRow } from "../users.ts";

export function inviteRoutes(admin: RouteGroup, ctx: AuthContext): void {
  const { db, cfg } = ctx;
  admin.post("/invite", async (c) => {
    const body = await jsonBody(c);
    const email = validEmail(optString(body, "email"), "An email address is required");
    const data = (body.data && typeof body.data === "object" && !Array.isArray(body.data))
      ? body.data as Json
      : {};
    const redirectTo = redirectOf(ctx, c, body);
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
    await sendMail(ctx, "invite", email, user, t, redirectTo);
    return c.json(await userJson(db, (await findUserById(db, user.id))!));
  });
}
