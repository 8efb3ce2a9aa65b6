/**
 * Who is asking, and how their database work runs. Storage verifies the Bearer JWT with the
 * project secret, then runs every query as the JWT's role with its claims set, PostgREST-style,
 * so RLS on storage.objects / storage.buckets decides; routes that Storage runs as its
 * superuser (public-bucket and signed-token reads, bucket lookups) use `asSuperuser`.
 */
import { bearerToken, type JwtClaims, JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import { type PGlite, type Transaction, withRequestContext } from "../db/database.ts";
import type { ByteStore } from "./bytes.ts";
import { Errors, fromDbError, StorageError } from "./errors.ts";

export interface StorageContext {
  db: PGlite;
  bytes: ByteStore;
  jwtSecret: string;
}

/** The roles a token may name: the ones `authenticator` can become on hosted Supabase. */
const API_ROLES = new Set(["anon", "authenticated", "service_role"]);

export interface Caller {
  role: string;
  claims: JwtClaims;
  /** The JWT's sub: becomes owner_id of what the caller writes; null for anon and service_role keys. */
  owner: string | null;
  method: string;
  path: string;
  headers: Record<string, string>;
}

/** jsonwebtoken's wording, which is what Storage (and so hosted Supabase) answers with. */
export function jwtFailureMessage(err: JwtError): string {
  switch (err.kind) {
    case "expired":
      return "jwt expired";
    case "signature":
      return "invalid signature";
    case "malformed":
      return "jwt malformed";
    default:
      return err.message;
  }
}

/**
 * Every authenticated route needs a JWT that verifies. Storage's jwt plugin (supabase/storage
 * src/http/plugins/jwt.ts) takes `Authorization` less its `Bearer ` and verifies it; with no
 * header the empty token fails as jose fails it ("Invalid Compact JWS"), answered as AccessDenied
 * (HTTP 400). Kong in the CLI stack has no key-auth and adds no Authorization when there is no
 * apikey, so a request with neither reaches Storage without one and is refused there; public
 * and signed-URL routes do not ask for a caller.
 */
export async function resolveCaller(req: Request, jwtSecret: string): Promise<Caller> {
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => (headers[k] = v));
  const base = { method: req.method, path: url.pathname, headers };
  const header = req.headers.get("authorization");
  if (!header) throw Errors.accessDenied("Invalid Compact JWS");
  const token = bearerToken(header);
  if (!token) throw Errors.accessDenied("Authorization header must be 'Bearer <jwt>'");
  let claims: JwtClaims;
  try {
    claims = await verifyJwt(token, jwtSecret);
  } catch (err) {
    if (err instanceof JwtError) throw Errors.accessDenied(jwtFailureMessage(err));
    throw err;
  }
  const role = typeof claims.role === "string" && claims.role !== "" ? claims.role : "anon";
  if (!API_ROLES.has(role)) throw Errors.accessDenied(`role "${role}" is not allowed`);
  const owner = typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : null;
  return { ...base, role, claims, owner };
}

/** Database errors the caller caused become Storage errors; the rest propagate as 500s. */
function mapDbErrors<T>(run: () => Promise<T>): Promise<T> {
  return run().catch((err) => {
    if (err instanceof StorageError) throw err;
    throw fromDbError(err) ?? err;
  });
}

/** One transaction under the caller's role and claims: RLS decides every row. */
export function asCaller<T>(
  ctx: StorageContext,
  caller: Caller,
  fn: (tx: Transaction) => Promise<T>,
  opts: { readOnly?: boolean } = {},
): Promise<T> {
  return mapDbErrors(() =>
    withRequestContext(ctx.db, {
      role: caller.role,
      claims: caller.claims,
      method: caller.method,
      path: caller.path,
      headers: caller.headers,
      schema: "storage",
      readOnly: opts.readOnly,
    }, fn)
  );
}

/** One transaction as the database superuser, bypassing RLS, as Storage's `asSuperUser()`. */
export function asSuperuser<T>(ctx: StorageContext, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  return mapDbErrors(() => ctx.db.transaction(fn));
}

/** Either a caller (RLS applies) or the superuser. */
export type Actor = Caller | "superuser";

export function runAs<T>(
  ctx: StorageContext,
  actor: Actor,
  fn: (tx: Transaction) => Promise<T>,
  opts: { readOnly?: boolean } = {},
): Promise<T> {
  return actor === "superuser" ? asSuperuser(ctx, fn) : asCaller(ctx, actor, fn, opts);
}

/** Signals a deliberate rollback (permission probes). */
class Rollback extends Error {}

/**
 * Runs `fn` as the caller and rolls it back whatever happens: Storage's testPermission, used to
 * ask "would RLS let this through?" before issuing something (a signed upload URL).
 */
export async function probeAsCaller(
  ctx: StorageContext,
  caller: Caller,
  fn: (tx: Transaction) => Promise<unknown>,
): Promise<void> {
  try {
    await asCaller(ctx, caller, async (tx) => {
      await fn(tx);
      throw new Rollback();
    });
  } catch (err) {
    if (err instanceof Rollback) return;
    throw err;
  }
}
