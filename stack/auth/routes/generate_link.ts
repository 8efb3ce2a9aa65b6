/**
 * POST /admin/generate_link (GoTrue admin generateLink, admin group): the link and code a mail
 * would carry, without mail, for signup, invite, magiclink, recovery and both email changes.
 */
import type { AuthContext } from "../context.ts";
import { Errors } from "../errors.ts";
import { invitedUser, redirectOf, validEmail, verifyLink } from "../flows.ts";
import type { RouteGroup } from "../guards.ts";
import { issueToken, type TokenType } from "../otp.ts";
import { type Json, jsonBody, optString } from "../request.ts";
import { findUserByEmail, findUserById, insertUser, userJson } from "../users.ts";

export function generateLinkRoutes(admin: RouteGroup, ctx: AuthContext): void {
  const { db, cfg } = ctx;
  admin.post("/admin/generate_link", async (c) => {
    const body = await jsonBody(c);
    const type = optString(body, "type") ?? "";
    const email = validEmail(optString(body, "email"), "An email address is required");
    const redirectTo = redirectOf(ctx, c, body);
    const data = (body.data && typeof body.data === "object" && !Array.isArray(body.data))
      ? body.data as Json
      : {};
    const password = optString(body, "password");
    let linkType = type;
    let tokenType: TokenType;
    let relatesTo = email;
    const user = await db.transaction(async (tx) => {
      let u = await findUserByEmail(tx, email);
      switch (type) {
        case "signup": {
          if (u && u.email_confirmed_at) throw Errors.emailExists();
          if (!password) throw Errors.validation("Signup requires a valid password");
          ctx.checkPassword(password);
          if (!u) {
            u = await insertUser(tx, {
              email,
              phone: null,
              passwordHash: await ctx.hashPassword(password),
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
          u = await invitedUser(tx, email, u, data);
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
          const newEmail = validEmail(optString(body, "new_email"), "Email change requires a new email");
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
      action_link: verifyLink(ctx.externalUrl, t.hash, linkType, redirectTo, false),
      email_otp: t.otp,
      hashed_token: t.hash,
      verification_type: linkType,
      redirect_to: redirectTo,
    });
  });
}
