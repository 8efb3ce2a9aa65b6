/**
 * The admin users API (GoTrue admin.go, admin group: the guard runs before every handler):
 * GET/POST /admin/users, GET/PUT/DELETE /admin/users/:id.
 */
import type { Context } from "hono";
import type { AuthContext } from "../context.ts";
import { listUsersSql, parseListUsersParams } from "../admin_users.ts";
import { AuthError, Errors } from "../errors.ts";
import type { RouteGroup } from "../guards.ts";
import { E164_RE, EMAIL_RE, jsonBody, optObject, optString, UUID_RE } from "../request.ts";
import {
  findUserByEmail,
  findUserById,
  findUserByPhone,
  insertUser,
  mergeMetadata,
  userJson,
  type UserRow,
} from "../users.ts";

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

const userIdParam = (c: Context): string => {
  const id = c.req.param("id") ?? "";
  if (!UUID_RE.test(id)) throw new AuthError(404, "user_not_found", "User not found");
  return id;
};

export function adminRoutes(admin: RouteGroup, ctx: AuthContext): void {
  const { db } = ctx;
  admin.get("/admin/users", async (c) => {
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

  admin.post("/admin/users", async (c) => {
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
    if (password !== undefined) ctx.checkPassword(password);
    const passwordHash = password !== undefined ? await ctx.hashPassword(password) : null;
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

  admin.get("/admin/users/:id", async (c) => {
    const user = await findUserById(db, userIdParam(c));
    if (!user) throw Errors.userNotFound();
    return c.json(await userJson(db, user));
  });

  admin.put("/admin/users/:id", async (c) => {
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
    if (password !== undefined) ctx.checkPassword(password);
    const passwordHash = password !== undefined ? await ctx.hashPassword(password) : undefined;
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

  admin.delete("/admin/users/:id", async (c) => {
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
}
