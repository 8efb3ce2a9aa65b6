/**
 * Who is calling: resolved from the JWT on every request, never from ids in the body. One
 * resolution for edge functions and the AI backend alike, configured explicitly with the
 * project's SupabaseConfig (functions: from their env per call; the backend: from its config).
 *
 * - service: a valid JWT whose role is service_role (the service-role key);
 * - user: a valid user JWT (role authenticated, with sub);
 * - anon: no token, or the anon key.
 *
 * Roles are read from the database (get_my_access(): platform role and workspace roles), never
 * from user_metadata, once per request. Status codes follow GoTrue/PostgREST: a missing or
 * invalid identity is 401, a known caller without the role is 403, a workspace the caller is not
 * a member of is 404 (an id reveals nothing to outsiders).
 *
 * Guards come in two forms: middleware for a whole route group (`app.use("*", signedIn)`,
 * `platformRoles(["admin"])`, as GoTrue's `r.Use(requireAdmin)`), and functions for checks that
 * need the request's data (`requireWorkspaceRole(c, body.workspace_id, ["owner"])`).
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerToken, type JwtClaims, JwtError, verifyJwt } from "./jwt.ts";
import { DomainError } from "../errors.ts";
import type { SupabaseConfig } from "../env.ts";
import { createCallerClient, createServiceClient, type SupabaseClient } from "../supabase/clients.ts";
import type { Db } from "../supabase/types.ts";

export type CallerKind = "user" | "service" | "anon";

export interface Caller {
  kind: CallerKind;
  /** The bearer token as presented (a user JWT, the service key or the anon key). */
  token: string | null;
  claims: JwtClaims | null;
  userId: string | null;
}

export type UserCaller = Caller & { kind: "user"; userId: string; token: string };

export type WorkspaceRoleName = "owner" | "admin" | "member" | "viewer";

export interface WorkspaceRole {
  workspace_id: string;
  role: WorkspaceRoleName;
}

export interface Access {
  user_id: string | null;
  platform_role: { id: string; name: string; level: number } | null;
  status: "active" | "suspended" | null;
  subscription_tier: string | null;
  workspaces: WorkspaceRole[];
}

/** Workspace roles that may change prices and pricing documents. */
export const PRICING_ROLES = ["owner", "admin"] as const satisfies readonly WorkspaceRoleName[];
/** Workspace roles that may write catalog content. */
export const WRITER_ROLES = ["owner", "admin", "member"] as const satisfies readonly WorkspaceRoleName[];
/** Every member. */
export const MEMBER_ROLES = [
  "owner",
  "admin",
  "member",
  "viewer",
] as const satisfies readonly WorkspaceRoleName[];

function decodePayload(token: string): Record<string, unknown> {
  try {
    return JSON.parse(atob(token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    return {};
  }
}

async function claimsFor(cfg: SupabaseConfig, token: string): Promise<JwtClaims> {
  if (cfg.jwtSecret) {
    try {
      return await verifyJwt(token, cfg.jwtSecret);
    } catch (err) {
      if (err instanceof JwtError) throw DomainError.unauthenticated(`Invalid JWT: ${err.message}`);
      throw err;
    }
  }
  // Without the secret: the project keys are known strings, and GoTrue vouches for user tokens.
  if (token === cfg.serviceRoleKey) return { role: "service_role" };
  if (token === cfg.anonKey) return { role: "anon" };
  const res = await fetch(`${cfg.url}/auth/v1/user`, {
    headers: { Authorization: `Bearer ${token}`, apikey: cfg.anonKey },
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw DomainError.unauthenticated("Invalid JWT");
  }
  const user = await res.json() as { id: string; role?: string };
  return { ...decodePayload(token), sub: user.id, role: user.role ?? "authenticated" };
}

/** Resolves the caller from `Authorization: Bearer`; an invalid token is a 401. */
export async function resolveCaller(cfg: SupabaseConfig, req: Request): Promise<Caller> {
  const token = bearerToken(req.headers.get("authorization"));
  if (!token) return { kind: "anon", token: null, claims: null, userId: null };
  const claims = await claimsFor(cfg, token);
  if (claims.role === "service_role") return { kind: "service", token, claims, userId: null };
  if (claims.role === "authenticated" && typeof claims.sub === "string" && claims.sub) {
    return { kind: "user", token, claims, userId: claims.sub };
  }
  return { kind: "anon", token, claims, userId: null };
}

const NO_ACCESS: Access = {
  user_id: null,
  platform_role: null,
  status: null,
  subscription_tier: null,
  workspaces: [],
};

/** Reads the caller's platform and workspace roles from the database (RLS-safe RPC). */
export async function loadAccess(db: SupabaseClient, caller: Caller): Promise<Access> {
  if (caller.kind !== "user" || !caller.token) return NO_ACCESS;
  const { data, error } = await db.rpc("get_my_access");
  if (error) {
    throw DomainError.internal(`Could not read the caller's roles: ${error.message}`, "access_lookup_failed");
  }
  return data as Access;
}

// ---- Hono integration ----

export type CoreVariables = {
  /** The project this request's clients talk to. */
  supabase: SupabaseConfig;
  /** The client's x-request-id, or a fresh UUID; echoed on the response and recorded by billing. */
  requestId: string;
  caller: Caller;
  access: Access | undefined;
  /** Request-scoped clients, created on first use. */
  callerDb: Db | undefined;
  serviceDb: Db | undefined;
};
export type CoreEnv = { Variables: CoreVariables };

/**
 * Resolves the caller once per request; an invalid token is a 401 even on public routes.
 *
 * A suspended user (user_profiles.status) is refused here, on every route of every function and
 * of the AI backend, with 403 `user_suspended`: their access token stays cryptographically valid
 * until it expires (GoTrue's ban ends the sessions, not the issued JWTs), so the status is read
 * for every user caller, once per request (get_my_access, kept for the role checks after it).
 */
export function authContext(config: SupabaseConfig | (() => SupabaseConfig)): MiddlewareHandler<CoreEnv> {
  return async (c, next) => {
    const cfg = typeof config === "function" ? config() : config;
    c.set("supabase", cfg);
    const who = await resolveCaller(cfg, c.req.raw);
    c.set("caller", who);
    if (who.kind === "user" && (await access(c)).status === "suspended") {
      throw DomainError.forbidden("This account is suspended", "user_suspended");
    }
    await next();
  };
}

// deno-lint-ignore no-explicit-any
type Ctx = Context<any>;

export function caller(c: Ctx): Caller {
  const v = (c as Context<CoreEnv>).get("caller");
  if (!v) throw new Error("authContext() middleware is not installed");
  return v;
}

/** The client that acts as the caller (RLS applies), or the service client for the service role. */
export function db(c: Ctx): Db {
  const ctx = c as Context<CoreEnv>;
  const who = caller(c);
  if (who.kind === "service") return serviceDb(c);
  if (who.kind !== "user" || !who.token) throw DomainError.unauthenticated("Authentication required");
  let client = ctx.get("callerDb");
  if (!client) {
    client = createCallerClient(ctx.get("supabase"), who.token);
    ctx.set("callerDb", client);
  }
  return client;
}

/** The service-role client: system work only, after the caller has been authorised. */
export function serviceDb(c: Ctx): Db {
  const ctx = c as Context<CoreEnv>;
  let client = ctx.get("serviceDb");
  if (!client) {
    client = createServiceClient(ctx.get("supabase"));
    ctx.set("serviceDb", client);
  }
  return client;
}

export async function access(c: Ctx): Promise<Access> {
  const ctx = c as Context<CoreEnv>;
  let a = ctx.get("access");
  if (!a) {
    const who = caller(c);
    a = who.kind === "user" ? await loadAccess(db(c), who) : NO_ACCESS;
    ctx.set("access", a);
  }
  return a;
}

/** A user JWT is required (the service role is not a user): 401 otherwise. */
export function requireUser(c: Ctx): UserCaller {
  const who = caller(c);
  if (who.kind !== "user") throw DomainError.unauthenticated("A signed-in user is required");
  return who as UserCaller;
}

/** A user JWT or the service-role key: 401 otherwise. */
export function requireAuthenticated(c: Ctx): Caller {
  const who = caller(c);
  if (who.kind === "anon") {
    throw DomainError.unauthenticated("A user JWT or the service-role key is required");
  }
  return who;
}

/** The caller must hold one of the platform roles (and be active); the service role passes. */
export async function requirePlatformRole(c: Ctx, roles: readonly string[]): Promise<Caller> {
  const who = requireAuthenticated(c);
  if (who.kind === "service") return who;
  const a = await access(c);
  if (a.status !== "active" || !a.platform_role || !roles.includes(a.platform_role.name)) {
    throw DomainError.forbidden(`This requires one of the platform roles: ${roles.join(", ")}`);
  }
  return who;
}

/** The caller's role in a workspace: `service` for the service role, null for non-members. */
export async function workspaceRole(
  c: Ctx,
  workspaceId: string,
): Promise<WorkspaceRoleName | "service" | null> {
  if (caller(c).kind === "service") return "service";
  const a = await access(c);
  return a.workspaces.find((w) => w.workspace_id === workspaceId)?.role ?? null;
}

/**
 * The caller must hold one of `roles` in the workspace (null: any member); the service role
 * passes. Outsiders get 404, members without the role 403 ("<what> requires the ... role").
 */
export async function requireWorkspaceRole(
  c: Ctx,
  workspaceId: string,
  roles: readonly WorkspaceRoleName[] | null,
  what = "This",
): Promise<WorkspaceRoleName | "service"> {
  requireAuthenticated(c);
  const role = await workspaceRole(c, workspaceId);
  if (role === null) throw DomainError.notFound("Workspace not found");
  if (role !== "service" && roles && !roles.includes(role)) {
    throw DomainError.forbidden(`${what} requires the ${roles.join(" or ")} role in the workspace`);
  }
  return role;
}

// ---- Guards for route groups ----

/** A user JWT or the service-role key (anon: 401). */
export const signedIn: MiddlewareHandler = async (c, next) => {
  requireAuthenticated(c);
  await next();
};

/** The service-role key only, as pg_cron's calls carry it (anon: 401; users: 403). */
export const serviceRoleOnly: MiddlewareHandler = async (c, next) => {
  const who = caller(c).kind;
  if (who === "anon") throw DomainError.unauthenticated("The service-role key is required");
  if (who !== "service") {
    throw DomainError.forbidden("Only the scheduler (service role) may call this function");
  }
  await next();
};

/** A user JWT (the service role and anon: 401). */
export const userOnly: MiddlewareHandler = async (c, next) => {
  requireUser(c);
  await next();
};

/** One of the platform roles, active (the service role passes; anon 401; others 403). */
export function platformRoles(roles: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    await requirePlatformRole(c, roles);
    await next();
  };
}
