/**
 * Who is asking (PostgREST's Auth.hs): no Authorization means the anonymous role; a Bearer JWT
 * is verified with the project secret and its `role` claim becomes the Postgres role. Failures
 * are 401 with PostgREST's PGRST301/PGRST303 codes and a WWW-Authenticate header. Verified
 * tokens are cached until they expire, as PostgREST's JWT cache does, because HMAC verification
 * would otherwise cost more than the query behind a primary-key read.
 */
import { JwtError, verifyJwt } from "@shared/auth/jwt.ts";
import { fromPgError, JwtErrors } from "./errors.ts";

/**
 * The roles `authenticator` is granted (stack/db/bootstrap/00_roles.sql), so the only ones
 * PostgREST can switch to. PGlite runs everything as a superuser that could become any role, so
 * the check Postgres makes for PostgREST is made here: a JWT claiming `postgres` must not work.
 */
const SWITCHABLE_ROLES: ReadonlySet<string> = new Set(["anon", "authenticated", "service_role"]);

export interface Caller {
  role: string;
  claims: Record<string, unknown>;
  /** Not the anonymous role: a 42501 is then 403 rather than 401. */
  authed: boolean;
}

const CACHE_LIMIT = 1000;

function headerAlgorithm(token: string): unknown {
  try {
    const header = JSON.parse(atob(token.split(".")[0].replaceAll("-", "+").replaceAll("_", "/")));
    return header?.alg;
  } catch (err) {
    if (err instanceof SyntaxError || err instanceof DOMException) return undefined;
    throw err;
  }
}

export class Authenticator {
  private cache = new Map<string, Record<string, unknown>>();

  /** Roles that exist in the database, refreshed with the schema cache. */
  roles: ReadonlySet<string> = new Set();

  constructor(private readonly secret: string, private readonly anonRole: string) {}

  private anon(): Caller {
    return { role: this.anonRole, claims: { role: this.anonRole }, authed: false };
  }

  async caller(authorization: string | null): Promise<Caller> {
    if (authorization === null) return this.anon();
    const m = /^Bearer(?:\s+(.*))?$/i.exec(authorization.trim());
    if (!m) return this.anon();
    const token = (m[1] ?? "").trim();
    if (token === "") throw JwtErrors.decode("Empty JWT is sent in Authorization header");
    if (!this.secret) throw JwtErrors.secretMissing();
    const claims = this.cache.get(token) ?? await this.verify(token);
    if (typeof claims.exp === "number" && claims.exp * 1000 <= Date.now()) {
      this.cache.delete(token);
      throw JwtErrors.claims("JWT expired");
    }
    const role = typeof claims.role === "string" && claims.role !== "" ? claims.role : this.anonRole;
    // A role that does not exist fails at SET ROLE with 22023 (401), as in PostgREST; one that
    // exists but is not granted to authenticator is a 42501 (403).
    if (!SWITCHABLE_ROLES.has(role) && this.roles.has(role)) {
      throw fromPgError({ code: "42501", message: `permission denied to set role "${role}"` }, true);
    }
    return { role, claims, authed: role !== this.anonRole };
  }

  private async verify(token: string): Promise<Record<string, unknown>> {
    try {
      const claims = await verifyJwt(token, this.secret);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(token, claims);
      return claims;
    } catch (err) {
      if (!(err instanceof JwtError)) throw err;
      switch (err.kind) {
        case "expired":
          throw JwtErrors.claims("JWT expired");
        case "claims":
          throw JwtErrors.claims(
            /nbf|not active/i.test(err.message) ? "JWT not yet valid" : "Parsing claims failed",
          );
        case "signature":
          throw JwtErrors.decode("JWT cryptographic operation failed");
        case "malformed":
          if (err.message.startsWith("Expected 3 parts")) throw JwtErrors.decode(err.message);
          if (headerAlgorithm(token) !== undefined && headerAlgorithm(token) !== "HS256") {
            throw JwtErrors.decode("Wrong or unsupported encoding algorithm");
          }
          throw JwtErrors.decode("JWT cryptographic operation failed");
      }
    }
  }
}
