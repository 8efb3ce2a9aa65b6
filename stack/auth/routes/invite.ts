/** POST /invite (GoTrue invite.go, admin group): creates the user if needed and mails the invite. */
import type { AuthContext } from "../context.ts";
import { invitedUser, redirectOf, sendMail, validEmail } from "../flows.ts";
import type { RouteGroup } from "../guards.ts";
import { issueToken } from "../otp.ts";
import { type Json, jsonBody, optString } from "../request.ts";
import { findUserByEmail, findUserById, userJson } from "../users.ts";

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
      return await invitedUser(tx, email, await findUserByEmail(tx, email), data);
    });
    const t = await issueToken(db, user.id, "confirmation_token", email, cfg.otpLength);
    await sendMail(ctx, "invite", email, user, t, redirectTo);
    return c.json(await userJson(db, (await findUserById(db, user.id))!));
  });
}
