/**
 * The signed-in user (GoTrue user.go, reauthenticate.go): GET /user, PUT /user (password, data,
 * and an email change that waits for confirmation, flows.ts) and GET /reauthenticate, which mails
 * the code PUT /user accepts as `nonce` under `secure_password_change`.
 */
import type { Hono } from "hono";
import bcrypt from "bcryptjs";
import type { AuthContext } from "../context.ts";
import { Errors } from "../errors.ts";
import { checkReauthentication, requestEmailChange, sendMail } from "../flows.ts";
import { currentUser } from "../guards.ts";
import { issueToken } from "../otp.ts";
import { pkceParams } from "../pkce.ts";
import { EMAIL_RE, jsonBody, optObject, optString } from "../request.ts";
import { findUserByEmail, findUserById, mergeMetadata, userJson, type UserRow } from "../users.ts";

export function userRoutes(app: Hono, ctx: AuthContext): void {
  const { db, cfg } = ctx;
  app.get("/user", async (c) => {
    const { user } = await currentUser(ctx, c);
    return c.json(await userJson(db, user));
  });

  app.put("/user", async (c) => {
    const { user, claims } = await currentUser(ctx, c);
    const body = await jsonBody(c);
    const email = optString(body, "email")?.trim();
    const password = optString(body, "password");
    const data = optObject(body, "data");
    if (email !== undefined && !EMAIL_RE.test(email)) {
      throw Errors.validation("Unable to validate email address: invalid format");
    }
    const pkce = pkceParams(body);
    let passwordHash: string | undefined;
    if (password !== undefined) {
      ctx.checkPassword(password);
      await checkReauthentication(ctx, user, claims, optString(body, "nonce"));
      if (user.encrypted_password && await bcrypt.compare(password, user.encrypted_password)) {
        throw Errors.samePassword();
      }
      passwordHash = await ctx.hashPassword(password);
    }
    const updated = await db.transaction(async (tx) => {
      if (email !== undefined && email.toLowerCase() !== user.email) {
        if (await findUserByEmail(tx, email)) throw Errors.emailExists();
      }
      if (passwordHash) {
        await tx.query(`update auth.users set encrypted_password = $2 where id = $1`, [
          user.id,
          passwordHash,
        ]);
        // GoTrue's UserUpdate (models.LogoutAllExceptMe): a new password ends every other session,
        // so a stolen refresh token dies with the old password; the caller's session stays.
        await tx.query(`delete from auth.sessions where user_id = $1 and id is distinct from $2`, [
          user.id,
          typeof claims.session_id === "string" ? claims.session_id : null,
        ]);
      }
      if (data) {
        await tx.query(`update auth.users set raw_user_meta_data = $2 where id = $1`, [
          user.id,
          mergeMetadata(user.raw_user_meta_data, data),
        ]);
      }
      const r = await tx.query<UserRow>(
        `update auth.users set updated_at = now() where id = $1 returning *`,
        [user.id],
      );
      return userJson(tx, r.rows[0]);
    });
    if (email !== undefined && email.toLowerCase() !== user.email) {
      // GoTrue's UserUpdate: a new email waits for confirmation from the mail (flows.ts); the
      // change is mailed after the other updates commit, as GoTrue sends outside its transaction.
      await requestEmailChange(ctx, user, email, c.req.query("redirect_to"), pkce);
      const fresh = await findUserById(db, user.id);
      return c.json(fresh ? await userJson(db, fresh) : updated);
    }
    return c.json(updated);
  });

  // GET /reauthenticate: mails a code that PUT /user accepts as `nonce`.
  app.get("/reauthenticate", async (c) => {
    const { user } = await currentUser(ctx, c);
    if (!user.email) {
      throw Errors.validation("Reauthentication requires the user to have an email or a phone number");
    }
    if (!user.email_confirmed_at) throw Errors.emailNotConfirmed();
    const t = await issueToken(db, user.id, "reauthentication_token", user.email, cfg.otpLength);
    await sendMail(ctx, "reauthentication", user.email, user, t, cfg.siteUrl);
    return c.json({});
  });
}
