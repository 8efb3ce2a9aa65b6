/**
 * /auth/v1: a GoTrue-compatible service, enough for supabase-js auth (auth-js) unchanged, laid
 * out as GoTrue's api package: one handler file per route group under routes/, the admin guard
 * (guards.ts requireAdmin) applied once to the admin group, not inside its handlers.
 *
 *   routes/settings.ts       GET /health, /settings, /.well-known/jwks.json
 *   routes/signup.ts         POST /signup (password users, anonymous sign-ins)
 *   routes/token.ts          POST /token (password, refresh_token, pkce)
 *   routes/user.ts           GET/PUT /user, GET /reauthenticate          (signed in)
 *   routes/logout.ts         POST /logout                                 (signed in)
 *   routes/otp.ts            POST /otp, /magiclink, /recover, /resend
 *   routes/verify.ts         POST/GET /verify
 *   admin group (service_role):
 *   routes/admin.ts          GET/POST /admin/users, GET/PUT/DELETE /admin/users/:id
 *   routes/generate_link.ts  POST /admin/generate_link
 *   routes/invite.ts         POST /invite
 *
 * Shared: context.ts (what every group is given), request.ts (bodies), guards.ts (the caller),
 * flows.ts (the email flows' steps), sessions.ts, users.ts, otp.ts, pkce.ts, mail.ts. With
 * `[auth.email] enable_confirmations = false` (the CLI's local default) signup returns a session
 * at once.
 */
import { Hono } from "hono";
import bcrypt from "bcryptjs";
import type { PGlite } from "../db/database.ts";
import type { AuthContext } from "./context.ts";
import { AuthError, Errors, renderAuthError } from "./errors.ts";
import { guardedGroup, requireAdmin } from "./guards.ts";
import type { MailTransport } from "./mail.ts";
import { type AuthConfig, authDefaults } from "./settings.ts";
import { adminRoutes } from "./routes/admin.ts";
import { generateLinkRoutes } from "./routes/generate_link.ts";
import { inviteRoutes } from "./routes/invite.ts";
import { logoutRoutes } from "./routes/logout.ts";
import { otpRoutes } from "./routes/otp.ts";
import { settingsRoutes } from "./routes/settings.ts";
import { signupRoutes } from "./routes/signup.ts";
import { tokenRoutes } from "./routes/token.ts";
import { userRoutes } from "./routes/user.ts";
import { verifyRoutes } from "./routes/verify.ts";

export interface AuthOptions {
  db: PGlite;
  jwtSecret: string;
  jwtExpirySeconds: number;
  /** GOTRUE_JWT_ISSUER: the auth external URL. */
  issuer: string;
  bcryptCost: number;
  minimumPasswordLength?: number;
  enableSignup?: boolean;
  enableAnonymousSignIns?: boolean;
  /** supabase/config.toml's [auth] settings (settings.ts); the fields above override it. */
  config?: Partial<AuthConfig>;
  /** Where auth mail goes (mail.ts): the platform points it at the sandbox's mail viewer. */
  mailTransport?: MailTransport;
}

/** The shared context of every route group: the settings resolved, the password rules. */
function authContext(opts: AuthOptions): AuthContext {
  const cfg: AuthConfig = { ...authDefaults(), ...opts.config };
  if (opts.minimumPasswordLength !== undefined) cfg.minimumPasswordLength = opts.minimumPasswordLength;
  if (opts.enableSignup !== undefined) cfg.enableSignup = opts.enableSignup;
  if (opts.enableAnonymousSignIns !== undefined) cfg.enableAnonymousSignIns = opts.enableAnonymousSignIns;
  const minLen = cfg.minimumPasswordLength;
  return {
    db: opts.db,
    cfg,
    settings: { jwtSecret: opts.jwtSecret, jwtExpirySeconds: opts.jwtExpirySeconds, issuer: opts.issuer },
    jwtSecret: opts.jwtSecret,
    externalUrl: opts.issuer,
    transport: opts.mailTransport,
    hashPassword: (password) => bcrypt.hash(password, opts.bcryptCost),
    checkPassword: (password) => {
      // GoTrue's MaxPasswordLength: bcrypt reads at most 72 bytes, so a longer password is refused.
      if (new TextEncoder().encode(password).length > 72) {
        throw Errors.validation("Password cannot be longer than 72 characters");
      }
      if (password.length < minLen) throw Errors.weakPassword(minLen);
    },
  };
}

export function createAuthApp(opts: AuthOptions): Hono {
  const ctx = authContext(opts);
  const app = new Hono();

  app.onError((err, c) => {
    const version = c.req.header("x-supabase-api-version") ?? null;
    if (err instanceof AuthError) return renderAuthError(err, version);
    console.error("auth: unexpected error", err);
    return renderAuthError(
      new AuthError(500, "unexpected_failure", "Unexpected failure, please try again."),
      version,
    );
  });
  app.notFound((c) => renderAuthError(Errors.notFound(), c.req.header("x-supabase-api-version") ?? null));

  settingsRoutes(app, ctx);
  signupRoutes(app, ctx);
  tokenRoutes(app, ctx);
  userRoutes(app, ctx);
  logoutRoutes(app, ctx);
  otpRoutes(app, ctx);
  verifyRoutes(app, ctx);

  // GoTrue's admin routes, each behind requireAdmin (401 without a token, 403 unless service_role).
  const admin = guardedGroup(app, requireAdmin(ctx));
  adminRoutes(admin, ctx);
  generateLinkRoutes(admin, ctx);
  inviteRoutes(admin, ctx);

  return app;
}
