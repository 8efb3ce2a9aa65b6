/**
 * Who is calling the AI backend, and the database clients that act for them.
 *
 * Accepted: the platform's user JWTs (Authorization: Bearer) and the service-role key. A user's
 * requests reach the database with the user's JWT, so RLS decides what they read and write; the
 * service client is for system work only (authorisation look-ups that must see past RLS,
 * monitoring). Roles come from the database (get_my_access), never from the token's metadata.
 */
import type { Context, MiddlewareHandler } from "hono";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { bearerToken, JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import type { Access, WorkspaceRole } from "@shared/auth/context.ts";
import { HttpError } from "@shared/http/errors.ts";
import type { BackendConfig } from "./config.ts";

export interface BackendCaller {
  kind: "user" | "service" | "anon";
  token: string | null;
  userId: string | null;
}

export type BackendEnv = {
  Variables: {
    cfg: BackendConfig;
    caller: BackendCaller;
    access?: Access;
  };
};

export type Ctx = Context<BackendEnv>;

const noSession = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

async function resolve(cfg: BackendConfig, header: string | null | undefined): Promise<BackendCaller> {
  const token = bearerToken(header);
  if (!token) return { kind: "anon", token: null, userId: null };
  let role: unknown;
  let sub: unknown;
  if (cfg.jwtSecret) {
    try {
      ({ role, sub } = await verifyJwt(token, cfg.jwtSecret));
    } catch (err) {
      if (err instanceof JwtError) throw HttpError.unauthorized(`Invalid JWT: ${err.message}`);
      throw err;
    }
  } else if (token === cfg.serviceRoleKey) {
    role = "service_role";
  } else if (token === cfg.anonKey) {
    role = "anon";
  } else {
    const res = await fetch(`${cfg.supabaseUrl}/auth/v1/user`, {
      headers: { authorization: `Bearer ${token}`, apikey: cfg.anonKey },
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw HttpError.unauthorized("Invalid JWT");
    }
    const user = await res.json() as { id?: string; role?: string };
    role = user.role ?? "authenticated";
    sub = user.id;
  }
  if (role === "service_role") return { kind: "service", token, userId: null };
  if (role === "authenticated" && typeof sub === "string" && sub) return { kind: "user", token, userId: sub };
  return { kind: "anon", token, userId: null };
}

/** Resolves the caller once per request; an invalid token is a 401 even on public routes. */
export function callerMiddleware(cfg: BackendConfig): MiddlewareHandler<BackendEnv> {
  return async (c, next) => {
    c.set("cfg", cfg);
    c.set("caller", await resolve(cfg, c.req.header("authorization")));
    await next();
  };
}

/** Refuses anonymous callers (no token, or the anon key). */
export const requireCaller: MiddlewareHandler<BackendEnv> = async (c, next) => {
  if (c.get("caller").kind === "anon") {
    throw HttpError.unauthorized("A user JWT or the service-role key is required");
  }
  await next();
};

export function caller(c: Ctx): BackendCaller {
  return c.get("caller");
}

/** A user caller (a request that needs an owner, e.g. an upload). */
export function requireUser(c: Ctx): BackendCaller & { kind: "user"; userId: string; token: string } {
  const who = caller(c);
  if (who.kind !== "user") {
    throw HttpError.badRequest("This endpoint acts for a user: call it with a user JWT");
  }
  return who as BackendCaller & { kind: "user"; userId: string; token: string };
}

/** The client that acts as the caller: the user's JWT (RLS applies), or the service role. */
export function db(c: Ctx): SupabaseClient {
  const who = caller(c);
  const cfg = c.get("cfg");
  if (who.kind === "service") return serviceDb(c);
  if (who.kind === "user" && who.token) {
    return createClient(cfg.supabaseUrl, cfg.anonKey, {
      ...noSession,
      global: { headers: { Authorization: `Bearer ${who.token}` } },
    });
  }
  throw HttpError.unauthorized();
}

/** The service-role client: system work only, after the caller has been authorised. */
export function serviceDb(c: Ctx): SupabaseClient {
  const cfg = c.get("cfg");
  return createClient(cfg.supabaseUrl, cfg.serviceRoleKey, noSession);
}

async function access(c: Ctx): Promise<Access | null> {
  if (caller(c).kind !== "user") return null;
  let a = c.get("access");
  if (!a) {
    const { data, error } = await db(c).rpc("get_my_access");
    if (error) {
      throw new HttpError(500, "access_lookup_failed", `Could not read the caller's roles: ${error.message}`);
    }
    a = data as Access;
    c.set("access", a);
  }
  return a;
}

/** The caller's role in a workspace: `service` for the service role, null for non-members. */
export async function workspaceRole(
  c: Ctx,
  workspaceId: string,
): Promise<WorkspaceRole["role"] | "service" | null> {
  if (caller(c).kind === "service") return "service";
  const a = await access(c);
  return a?.workspaces.find((w) => w.workspace_id === workspaceId)?.role ?? null;
}

/**
 * The caller must hold one of `roles` in the workspace (the service role passes). Outsiders get
 * 404, so a workspace id reveals nothing; members without the role get 403.
 */
export async function requireWorkspaceRole(
  c: Ctx,
  workspaceId: string,
  roles: readonly WorkspaceRole["role"][] | null,
  what = "this",
): Promise<WorkspaceRole["role"] | "service"> {
  const role = await workspaceRole(c, workspaceId);
  if (role === null) throw HttpError.notFound("Workspace not found");
  if (role !== "service" && roles && !roles.includes(role)) {
    throw HttpError.forbidden(`${what} requires the ${roles.join(" or ")} role in the workspace`);
  }
  return role;
}

export const PRICING_ROLES = ["owner", "admin"] as const satisfies readonly WorkspaceRole["role"][];
export const WRITER_ROLES = ["owner", "admin", "member"] as const satisfies readonly WorkspaceRole["role"][];

/** Platform administrators (and the service role). */
export async function requirePlatformAdmin(c: Ctx): Promise<void> {
  if (caller(c).kind === "service") return;
  const a = await access(c);
  if (a?.status !== "active" || a.platform_role?.name !== "admin") {
    throw HttpError.forbidden("This requires the platform admin role");
  }
}
