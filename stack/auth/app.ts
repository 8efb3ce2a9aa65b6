/**
 * /auth/v1: a GoTrue-compatible service, enough for supabase-js auth (auth-js) unchanged:
 * signup, token (password, refresh_token, pkce), user, logout, settings, and the admin users API;
 * the email flows (otp, verify, recover, resend, invite, generate_link, reauthenticate, email
 * change) and anonymous sign-ins follow GoTrue in flows.ts. With `[auth.email]
 * enable_confirmations = false` (the CLI's local default) signup returns a session at once.
 */
import { type Context, Hono } from "hono";
import bcrypt from "bcryptjs";
import { bearerToken, type JwtClaims, JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import type { PGlite } from "../db/database.ts";
import { AuthError, Errors, renderAuthError } from "./errors.ts";
import { MAX_JSON_DEPTH, valueTooDeep } from "@shared/input-limits.ts";
import { issueSession, refreshSession, type TokenSettings } from "./sessions.ts";
import {
  checkReauthentication,
  exchangeAuthCode,
  type FlowContext,
  registerEmailFlows,
  requestEmailChange,
  signupWithConfirmation,
} from "./flows.ts";
import { pkceParams } from "./pkce.ts";
import { GOTRUE_EMAIL_RE, listUsersSql, parseListUsersParams } from "./admin_users.ts";
import { publishedJwks } from "@shared/auth/jwks.ts";
import type { MailTransport } from "./mail.ts";
import { type AuthConfig, authDefaults } from "./settings.ts";
import {
  findUserByEmail,
  findUserById,
  findUserByPhone,
  insertUser,
  mergeMetadata,
  userJson,
  type UserRow,
} from "./users.ts";

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

const EMAIL_RE = GOTRUE_EMAIL_RE;
const E164_RE = /^\+?[1-9]\d{6,14}$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ADMIN_ROLES = new Set(["service_role", "supabase_admin"]);

type Json = Record<string, unknown>;

async function jsonBody(c: Context): Promise<Json> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    const v = JSON.parse(text);
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw Errors.badJson();
    refuseHostile(v);
    return v as Json;
  } catch (err) {
    if (err instanceof AuthError) throw err;
    throw Errors.badJson();
  }
}

/**
 * Input Postgres cannot store or the embedded database cannot parse, refused before any query:
 * NUL in a string (text and jsonb reject it: 22021/22P05) and metadata nested deeper than
 * MAX_JSON_DEPTH (packages/shared/input-limits.ts).
 */
function refuseHostile(body: unknown): void {
  if (valueTooDeep(body, MAX_JSON_DEPTH, true)) {
    throw Errors.validation(`JSON must not nest more than ${MAX_JSON_DEPTH} levels deep`);
  }
  // JSON.stringify writes NUL as \u0000; escaped backslashes are dropped first.
  if (JSON.stringify(body).replaceAll("\\\\", "").includes("\\u0000")) {
    throw Errors.validation("Strings must not contain NUL characters");
  }
}

function optString(body: Json, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw Errors.validation(`${key} must be a string`);
  return v;
}

function optObject(body: Json, key: string): Json | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) throw Errors.validation(`${key} must be an object`);
  return v as Json;
}

/** Parses GoTrue's ban_duration ("none" or a Go duration such as "24h", "90m", "1h30m"). */
function banUntil(duration: string): Date | null {
  if (duration === "none") return null;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
  let ms = 0;
  let consumed = 0;
  for (const m of duration.matchAll(re)) {
    ms += Number(m[1]) * unit[m[2]];
    consumed += m[0].length;
  }
  if (consumed !== duration.length || consumed === 0) {
    throw Errors.validation("invalid format for ban duration");
  }
  return new Date(Date.now() + ms);
}

export function createAuthApp(opts: AuthOptions): Hono {
  const { db } = opts;
  const cfg: AuthConfig = { ...authDefaults(), ...opts.config };
  if (opts.minimumPasswordLength !== undefined) cfg.minimumPasswordLength = opts.minimumPasswordLength;
  if (opts.enableSignup !== undefined) cfg.enableSignup = opts.enableSignup;
  if (opts.enableAnonymousSignIns !== undefined) cfg.enableAnonymousSignIns = opts.enableAnonymousSignIns;
  opts = { ...opts, enableSignup: cfg.enableSignup, enableAnonymousSignIns: cfg.enableAnonymousSignIns };
  const minLen = cfg.minimumPasswordLength;
  const settings: TokenSettings = {
    jwtSecret: opts.jwtSecret,
    jwtExpirySeconds: opts.jwtExpirySeconds,
    issuer: opts.issuer,
  };
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

  const checkPassword = (password: string) => {
    // GoTrue's MaxPasswordLength: bcrypt reads at most 72 bytes, so a longer password is refused.
    if (new TextEncoder().encode(password).length > 72) {
      throw Errors.validation("Password cannot be longer than 72 characters");
    }
    if (password.length < minLen) throw Errors.weakPassword(minLen);
  };
  const hash = (password: string) => bcrypt.hash(password, opts.bcryptCost);

  /** The caller's verified claims; GoTrue answers 401 without a token and 403 with a bad one. */
  const claimsOf = async (c: Context): Promise<JwtClaims> => {
    const token = bearerToken(c.req.header("authorization"));
    if (!token) throw Errors.noAuthorization();
    try {
      return await verifyJwt(token, opts.jwtSecret);
    } catch (err) {
      if (err instanceof JwtError) throw Errors.badJwt(err.message.toLowerCase());
      throw err;
    }
  };

  /** The signed-in user behind the token, whose session must still exist. */
  const currentUser = async (c: Context): Promise<{ user: UserRow; claims: JwtClaims }> => {
    const claims = await claimsOf(c);
    if (!claims.sub) throw Errors.missingSub();
    const user = await findUserById(db, claims.sub);
    if (!user) throw Errors.userFromSubMissing();
    if (typeof claims.session_id === "string") {
      const s = await db.query(`select 1 from auth.sessions where id = $1`, [claims.session_id]);
      if (s.rows.length === 0) throw Errors.sessionNotFound();
    }
    return { user, claims };
  };

  const requireAdmin = async (c: Context) => {
    const claims = await claimsOf(c);
    if (!ADMIN_ROLES.has(String(claims.role ?? ""))) throw Errors.notAdmin();
  };

  app.get(
    "/health",
    (c) =>
      c.json({
        version: "local",
        name: "GoTrue",
        description: "GoTrue-compatible auth for the local platform",
      }),
  );

  app.get("/settings", (c) =>
    c.json({
      external: {
        anonymous_users: opts.enableAnonymousSignIns ?? false,
        email: true,
        phone: false,
      },
      disable_signup: !(opts.enableSignup ?? true),
      mailer_autoconfirm: !cfg.enableConfirmations,
      phone_autoconfirm: false,
      sms_provider: "",
      saml_enabled: false,
    }));

  app.get("/.well-known/jwks.json", (c) => c.json(publishedJwks(opts.jwtSecret)));

  app.post("/signup", async (c) => {
    const body = await jsonBody(c);
    const email = optString(body, "email")?.trim();
    const phone = optString(body, "phone")?.trim();
    const password = optString(body, "password");
    const data = optObject(body, "data") ?? {};
    if (!(opts.enableSignup ?? true)) {
      throw new AuthError(422, "signup_disabled", "Signups not allowed for this instance");
    }
    if (!email && !phone) {
      if (!(opts.enableAnonymousSignIns ?? false)) throw Errors.anonymousDisabled();
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
    checkPassword(password);
    const passwordHash = await hash(password);
    if (cfg.enableConfirmations && email) {
      // [auth.email] enable_confirmations = true: no session until the mailed link is followed.
      return c.json(
        await signupWithConfirmation(
          flows,
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
    if (grant === "pkce") return c.json(await exchangeAuthCode(flows, body));
    throw Errors.unsupportedGrant();
  });

  app.get("/user", async (c) => {
    const { user } = await currentUser(c);
    return c.json(await userJson(db, user));
  });

  app.put("/user", async (c) => {
    const { user, claims } = await currentUser(c);
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
      checkPassword(password);
      await checkReauthentication(flows, user, claims, optString(body, "nonce"));
      if (user.encrypted_password && await bcrypt.compare(password, user.encrypted_password)) {
        throw Errors.samePassword();
      }
      passwordHash = await hash(password);
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
      await requestEmailChange(flows, user, email, c.req.query("redirect_to"), pkce);
      const fresh = await findUserById(db, user.id);
      return c.json(fresh ? await userJson(db, fresh) : updated);
    }
    return c.json(updated);
  });

  app.post("/logout", async (c) => {
    const scope = c.req.query("scope") ?? "global";
    if (!["global", "local", "others"].includes(scope)) {
      throw Errors.validation(`Unsupported logout scope "${scope}"`);
    }
    const { user, claims } = await currentUser(c);
    const sessionId = typeof claims.session_id === "string" ? claims.session_id : null;
    if (scope === "global") await db.query(`delete from auth.sessions where user_id = $1`, [user.id]);
    else if (scope === "local") await db.query(`delete from auth.sessions where id = $1`, [sessionId]);
    else {await db.query(`delete from auth.sessions where user_id = $1 and id is distinct from $2`, [
        user.id,
        sessionId,
      ]);}
    return c.body(null, 204);
  });

  // ---- admin API (service_role only) ----

  app.get("/admin/users", async (c) => {
    await requireAdmin(c);
    const listParams = parseListUsersParams(new URL(c.req.url).searchParams);
    const { page, perPage } = listParams;
    const list = listUsersSql(listParams);
    const total = (await db.query<{ n: number }>(
      `select count(*)::int as n from auth.users where ${list.where}`,
      list.params,
    )).rows[0].n;
    const n = list.params.length;
    const rows = (await db.query<UserRow>(
      `select * from auth.users where ${list.where} order by ${list.order} limit $${n + 1} offset $${n + 2}`,
      [...list.params, perPage, (page - 1) * perPage],
    )).rows;
    const users = [];
    for (const u of rows) users.push(await userJson(db, u));
    const last = Math.max(1, Math.ceil(total / perPage));
    const links: string[] = [];
    if (page < last) links.push(`</admin/users?page=${page + 1}&per_page=${perPage}>; rel="next"`);
    links.push(`</admin/users?page=${last}&per_page=${perPage}>; rel="last"`);
    c.header("X-Total-Count", String(total));
    c.header("Link", links.join(", "));
    return c.json({ users, aud: "authenticated" });
  });

  app.post("/admin/users", async (c) => {
    await requireAdmin(c);
    const body = await jsonBody(c);
    const email = optString(body, "email")?.trim();
    const phone = optString(body, "phone")?.trim();
    const password = optString(body, "password");
    const userMeta = optObject(body, "user_metadata") ?? optObject(body, "data") ?? {};
    const appMeta = optObject(body, "app_metadata") ?? {};
    const role = optString(body, "role");
    const ban = optString(body, "ban_duration");
    if (!email && !phone) throw Errors.validation("Cannot create a user without either an email or phone");
    if (email && !EMAIL_RE.test(email)) {
      throw Errors.validation("Unable to validate email address: invalid format");
    }
    if (phone && !E164_RE.test(phone)) {
      throw Errors.validation("Invalid phone number format (E.164 required)");
    }
    if (password !== undefined) checkPassword(password);
    const passwordHash = password !== undefined ? await hash(password) : null;
    const bannedUntil = ban ? banUntil(ban) : null;
    const user = await db.transaction(async (tx) => {
      if (email && await findUserByEmail(tx, email)) throw Errors.emailExists();
      if (phone && await findUserByPhone(tx, phone)) throw Errors.phoneExists();
      const u = await insertUser(tx, {
        email: email ?? null,
        phone: phone ?? null,
        passwordHash,
        userMetadata: userMeta,
        appMetadata: appMeta,
        emailConfirmed: body.email_confirm === true,
        phoneConfirmed: body.phone_confirm === true,
        role,
      });
      if (bannedUntil) {
        await tx.query(`update auth.users set banned_until = $2 where id = $1`, [u.id, bannedUntil]);
        u.banned_until = bannedUntil;
      }
      return userJson(tx, u);
    });
    return c.json(user);
  });

  const userIdParam = (c: Context): string => {
    const id = c.req.param("id") ?? "";
    if (!UUID_RE.test(id)) throw new AuthError(404, "user_not_found", "User not found");
    return id;
  };

  app.get("/admin/users/:id", async (c) => {
    await requireAdmin(c);
    const user = await findUserById(db, userIdParam(c));
    if (!user) throw Errors.userNotFound();
    return c.json(await userJson(db, user));
  });

  app.put("/admin/users/:id", async (c) => {
    await requireAdmin(c);
    const id = userIdParam(c);
    const body = await jsonBody(c);
    const email = optString(body, "email")?.trim();
    const phone = optString(body, "phone")?.trim();
    const password = optString(body, "password");
    const userMeta = optObject(body, "user_metadata");
    const appMeta = optObject(body, "app_metadata");
    const role = optString(body, "role");
    const ban = optString(body, "ban_duration");
    if (email !== undefined && !EMAIL_RE.test(email)) {
      throw Errors.validation("Unable to validate email address: invalid format");
    }
    if (password !== undefined) checkPassword(password);
    const passwordHash = password !== undefined ? await hash(password) : undefined;
    const out = await db.transaction(async (tx) => {
      const user = await findUserById(tx, id);
      if (!user) throw Errors.userNotFound();
      if (email !== undefined && email.toLowerCase() !== user.email) {
        if (await findUserByEmail(tx, email)) throw Errors.emailExists();
        await tx.query(`update auth.users set email = $2 where id = $1`, [id, email.toLowerCase()]);
      }
      if (phone !== undefined) {
        await tx.query(`update auth.users set phone = $2 where id = $1`, [id, phone || null]);
      }
      if (passwordHash) {
        await tx.query(`update auth.users set encrypted_password = $2 where id = $1`, [id, passwordHash]);
      }
      if (userMeta) {
        await tx.query(`update auth.users set raw_user_meta_data = $2 where id = $1`, [
          id,
          mergeMetadata(user.raw_user_meta_data, userMeta),
        ]);
      }
      if (appMeta) {
        await tx.query(`update auth.users set raw_app_meta_data = $2 where id = $1`, [
          id,
          mergeMetadata(user.raw_app_meta_data, appMeta),
        ]);
      }
      if (role !== undefined) await tx.query(`update auth.users set role = $2 where id = $1`, [id, role]);
      if (body.email_confirm === true) {
        await tx.query(
          `update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()) where id = $1`,
          [id],
        );
      }
      if (body.phone_confirm === true) {
        await tx.query(
          `update auth.users set phone_confirmed_at = coalesce(phone_confirmed_at, now()) where id = $1`,
          [id],
        );
      }
      if (ban !== undefined) {
        await tx.query(`update auth.users set banned_until = $2 where id = $1`, [id, banUntil(ban)]);
        // A banned user's sessions end now, as GoTrue revokes them.
        if (ban !== "none") await tx.query(`delete from auth.sessions where user_id = $1`, [id]);
      }
      const r = await tx.query<UserRow>(
        `update auth.users set updated_at = now() where id = $1 returning *`,
        [id],
      );
      return userJson(tx, r.rows[0]);
    });
    return c.json(out);
  });

  app.delete("/admin/users/:id", async (c) => {
    await requireAdmin(c);
    const id = userIdParam(c);
    const body = await jsonBody(c);
    const soft = body.should_soft_delete === true;
    await db.transaction(async (tx) => {
      const user = await findUserById(tx, id);
      if (!user) throw Errors.userNotFound();
      if (soft) {
        // GoTrue's soft delete: the row stays, identifying data is scrubbed, sessions end.
        await tx.query(
          `update auth.users set deleted_at = now(), email = null, phone = null, encrypted_password = '',
             raw_user_meta_data = '{}'::jsonb where id = $1`,
          [id],
        );
        await tx.query(`delete from auth.identities where user_id = $1`, [id]);
        await tx.query(`delete from auth.sessions where user_id = $1`, [id]);
      } else {
        await tx.query(`delete from auth.users where id = $1`, [id]);
      }
    });
    return c.json({});
  });

  const flows: FlowContext = {
    db,
    cfg,
    settings,
    externalUrl: opts.issuer,
    transport: opts.mailTransport,
    jsonBody,
    currentUser,
    requireAdmin,
    hashPassword: hash,
    checkPassword,
  };
  registerEmailFlows(app, flows);

  return app;
}
