/**
 * Who is calling: resolved from the JWT on every request, never from ids in the body.
 *
 * - service: a valid JWT whose role is service_role (the service-role key);
 * - user: a valid user JWT (role authenticated, with sub);
 * - anon: no token, or the anon key.
 *
 * Roles are read from the database (get_my_access(): platform role and workspace roles), never
 * from user_metadata.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerToken, type JwtClaims, JwtError, verifyJwt } from "./jwt.ts";
import { HttpError } from "../http/errors.ts";
import { supabaseEnv } from "../env.ts";
import { callerClient, serviceClient, type SupabaseClient } from "../supabase/clients.ts";

export type CallerKind = "user" | "service" | "anon";

export interface Caller {
  kind: CallerKind;
  /** The bearer token as presented (a user JWT, the service key or the anon key). */
  token: string | null;
  claims: JwtClaims | null;
  userId: string | null;
}

export interface WorkspaceRole {
  workspace_id: string;
  role: "owner" | "admin" | "member" | "viewer";
}

export interface Access {
  user_id: string | null;
  platform_role: { id: string; name: string; level: number } | null;
  status: "active" | "suspended" | null;
  subscription_tier: string | null;
  workspaces: WorkspaceRole[];
}

async function claimsFor(token: string): Promise<JwtClaims> {
  const { url, anonKey, serviceRoleKey, jwtSecret } = supabaseEnv();
  if (jwtSecret) {
    try {
      return await verifyJwt(token, jwtSecret);
    } catch (err) {
      if (err instanceof JwtError) throw HttpError.unauthorized(`Invalid JWT: ${err.message}`);
      throw err;
    }
  }
  // Without the secret: the project keys are known strings, and GoTrue vouches for user tokens.
  if (token === serviceRoleKey) return { role: "service_role" };
  if (token === anonKey) return { role: "anon" };
  const res = await fetch(`${url}/auth/v1/user`, {
    headers: { Authorization: `Bearer ${token}`, apikey: anonKey },
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw HttpError.unauthorized("Invalid JWT");
  }
  const user = await res.json() as { id: string; email?: string; role?: string };
  const payload = JSON.parse(atob(token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")));
  return { ...payload, sub: user.id, role: user.role ?? "authenticated" };
}

/** Resolves the caller from `Authorization: Bearer`; an invalid token is a 401. */
export async function resolveCaller(req: Request): Promise<Caller> {
  const token = bearerToken(req.headers.get("authorization"));
  if (!token) return { kind: "anon", token: null, claims: null, userId: null };
  const claims = await claimsFor(token);
  if (claims.role === "service_role") return { kind: "service", token, claims, userId: null };
  if (claims.role === "authenticated" && typeof claims.sub === "string" && claims.sub) {
    return { kind: "user", token, claims, userId: claims.sub };
  }
  return { kind: "anon", token, claims, userId: null };
}

/** Reads the caller's platform and workspace roles from the database (RLS-safe RPC). */
export async function loadAccess(caller: Caller): Promise<Access> {
  if (caller.kind !== "user" || !caller.token) {
    return { user_id: null, platform_role: null, status: null, subscription_tier: null, workspaces: [] };
  }
  const { data, error } = await callerClient(caller.token).rpc("get_my_access");
  if (error) {
    throw new HttpError(500, "access_lookup_failed", `Could not read the caller's roles: ${error.message}`);
  }
  return data as Access;
}

// ---- Hono integration ----

export type AuthVariables = {
  caller: Caller;
  access: Access | undefined;
};
export type AuthEnv = { Variables: AuthVariables };

/** Resolves the caller once per request; invalid tokens are refused here with 401. */
export function authContext(): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    c.set("caller", await resolveCaller(c.req.raw));
    await next();
  };
}

export function caller(c: Context<AuthEnv>): Caller {
  const v = c.get("caller");
  if (!v) throw new Error("authContext() middleware is not installed");
  return v;
}

export async function access(c: Context<AuthEnv>): Promise<Access> {
  let a = c.get("access");
  if (!a) {
    a = await loadAccess(caller(c));
    c.set("access", a);
  }
  return a;
}

/** A user JWT is required (the service role is not a user). */
export function requireUser(c: Context<AuthEnv>): Caller & { kind: "user"; userId: string; token: string } {
  const who = caller(c);
  if (who.kind !== "user") throw HttpError.unauthorized("A signed-in user is required");
  return who as Caller & { kind: "user"; userId: string; token: string };
}

/** A user JWT or the service-role key. */
export function requireAuthenticated(c: Context<AuthEnv>): Caller {
  const who = caller(c);
  if (who.kind === "anon") throw HttpError.unauthorized("Authentication required");
  return who;
}

/** The caller must hold one of the platform roles (and not be suspended); service role passes. */
export async function requirePlatformRole(c: Context<AuthEnv>, roles: string[]): Promise<Caller> {
  const who = requireAuthenticated(c);
  if (who.kind === "service") return who;
  const a = await access(c);
  if (a.status !== "active" || !a.platform_role || !roles.includes(a.platform_role.name)) {
    throw HttpError.forbidden(`This requires one of the platform roles: ${roles.join(", ")}`);
  }
  return who;
}

/** The caller's role in a workspace, or null when not a member. */
export async function workspaceRole(
  c: Context<AuthEnv>,
  workspaceId: string,
): Promise<WorkspaceRole["role"] | null> {
  const a = await access(c);
  return a.workspaces.find((w) => w.workspace_id === workspaceId)?.role ?? null;
}

/**
 * The caller must hold one of `roles` in the workspace; service role passes. Non-members get 404
 * rather than 403, so a workspace id reveals nothing to outsiders.
 */
export async function requireWorkspaceRole(
  c: Context<AuthEnv>,
  workspaceId: string,
  roles: WorkspaceRole["role"][],
): Promise<Caller> {
  const who = requireAuthenticated(c);
  if (who.kind === "service") return who;
  const role = await workspaceRole(c, workspaceId);
  if (role === null) throw HttpError.notFound("Workspace not found");
  if (!roles.includes(role)) {
    throw HttpError.forbidden(`This requires the ${roles.join(" or ")} role in the workspace`);
  }
  return who;
}

/** A supabase-js client acting as the caller (RLS applies), or the service client for the service role. */
export function dbFor(who: Caller): SupabaseClient {
  if (who.kind === "service") return serviceClient();
  if (who.kind === "user" && who.token) return callerClient(who.token);
  throw HttpError.unauthorized("Authentication required");
}
