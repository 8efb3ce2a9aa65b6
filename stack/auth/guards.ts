/**
 * Who is calling /auth/v1, as GoTrue's middleware decides it: the verified claims of the bearer
 * token, the signed-in user behind them, and the admin guard (GoTrue's requireAdmin) that
 * app.ts applies once to the admin group (`/admin/*` and `/invite`), never inside a handler.
 */
import type { Context, Handler, Hono, MiddlewareHandler } from "hono";
import { bearerToken, type JwtClaims, JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import type { AuthContext } from "./context.ts";
import { Errors } from "./errors.ts";
import { findUserById, type UserRow } from "./users.ts";

const ADMIN_ROLES = new Set(["service_role", "supabase_admin"]);

/** The caller's verified claims; GoTrue answers 401 without a token and 403 with a bad one. */
export async function claimsOf(ctx: Pick<AuthContext, "jwtSecret">, c: Context): Promise<JwtClaims> {
  const token = bearerToken(c.req.header("authorization"));
  if (!token) throw Errors.noAuthorization();
  try {
    return await verifyJwt(token, ctx.jwtSecret);
  } catch (err) {
    if (err instanceof JwtError) throw Errors.badJwt(err.message.toLowerCase());
    throw err;
  }
}

/** The signed-in user behind the token, whose session must still exist. */
export async function currentUser(
  ctx: Pick<AuthContext, "db" | "jwtSecret">,
  c: Context,
): Promise<{ user: UserRow; claims: JwtClaims }> {
  const claims = await claimsOf(ctx, c);
  if (!claims.sub) throw Errors.missingSub();
  const user = await findUserById(ctx.db, claims.sub);
  if (!user) throw Errors.userFromSubMissing();
  if (typeof claims.session_id === "string") {
    const s = await ctx.db.query(`select 1 from auth.sessions where id = $1`, [claims.session_id]);
    if (s.rows.length === 0) throw Errors.sessionNotFound();
  }
  return { user, claims };
}

/** GoTrue's requireAdmin: a service_role (or supabase_admin) token, else 401/403 before the handler. */
export function requireAdmin(ctx: Pick<AuthContext, "jwtSecret">): MiddlewareHandler {
  return async (c, next) => {
    const claims = await claimsOf(ctx, c);
    if (!ADMIN_ROLES.has(String(claims.role ?? ""))) throw Errors.notAdmin();
    await next();
  };
}

/** Routes registered through a group all run its guard first. */
export interface RouteGroup {
  get(path: string, handler: Handler): void;
  post(path: string, handler: Handler): void;
  put(path: string, handler: Handler): void;
  delete(path: string, handler: Handler): void;
}

/**
 * A group of routes on `app` behind `guard` (GoTrue's `r.With(api.requireAdmin)`). The guard is
 * attached to each route the group registers, not to a path prefix, so that a path or method
 * nobody serves is still 404 for every caller.
 */
export function guardedGroup(app: Hono, guard: MiddlewareHandler): RouteGroup {
  const on = (method: string) => (path: string, handler: Handler) => {
    app.on(method, path, guard, handler);
  };
  return { get: on("GET"), post: on("POST"), put: on("PUT"), delete: on("DELETE") };
}
