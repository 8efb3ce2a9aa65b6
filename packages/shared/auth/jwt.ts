/**
 * HS256 JWTs signed with the project secret, as GoTrue issues them and PostgREST, Storage and the
 * edge runtime verify them; ES256/RS256 tokens verify against the project's signing keys (jwks.ts).
 */
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { isAsymmetricAlg, projectKeys } from "./jwks.ts";

export type JwtClaims = Record<string, unknown> & {
  sub?: string;
  role?: string;
  exp?: number;
  iat?: number;
  aud?: string | string[];
  email?: string;
};

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function signJwt(claims: JwtClaims, secret: string): Promise<string> {
  return await new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(key(secret));
}

export type JwtFailure = "malformed" | "signature" | "expired" | "claims";

export class JwtError extends Error {
  constructor(readonly kind: JwtFailure, message: string) {
    super(message);
    this.name = "JwtError";
  }
}

/**
 * Verified tokens, kept until they expire (PostgREST's jwt-cache-max-lifetime idea): the same
 * JWT arrives on every request of a session, and HMAC verification is the largest fixed cost of
 * a small request. Keyed by secret and token, bounded, and re-checked for expiry on every hit.
 */
const verified = new Map<string, JwtClaims>();
const VERIFIED_MAX = 10_000;

/** Verifies signature and expiry; throws JwtError saying which of the two failed (or the shape). */
export async function verifyJwt(token: string, secret: string): Promise<JwtClaims> {
  const cacheKey = `${secret}\n${token}`;
  const hit = verified.get(cacheKey);
  if (hit) {
    if (typeof hit.exp !== "number" || hit.exp * 1000 > Date.now()) return hit;
    verified.delete(cacheKey);
  }
  const claims = await verifyUncached(token, secret);
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(cacheKey, Object.freeze(claims));
  return claims;
}

async function verifyUncached(token: string, secret: string): Promise<JwtClaims> {
  const parts = token.split(".");
  if (parts.length !== 3) throw new JwtError("malformed", `Expected 3 parts in JWT; got ${parts.length}`);
  try {
    // ES256/RS256 tokens (GoTrue with signing keys, see jwks.ts) verify against the project's
    // JWKS by kid; everything else must be HS256 with the secret.
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      alg = undefined;
    }
    if (isAsymmetricAlg(alg)) {
      const keys = projectKeys(secret);
      if (!keys) {
        throw new JwtError("malformed", `JWT signed with ${alg}, but no signing keys are configured`);
      }
      const { payload } = await jwtVerify(token, keys.keySet, { algorithms: [alg as string] });
      return payload as JwtClaims;
    }
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ["HS256"] });
    return payload as JwtClaims;
  } catch (err) {
    if (err instanceof JwtError) throw err;
    if (err instanceof joseErrors.JWKSNoMatchingKey) {
      throw new JwtError("signature", "JWT has no matching key in the JWKS");
    }
    if (err instanceof joseErrors.JWTExpired) throw new JwtError("expired", "JWT expired");
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
      throw new JwtError("signature", "JWT cryptographic operation failed");
    }
    if (err instanceof joseErrors.JWTClaimValidationFailed) throw new JwtError("claims", err.message);
    throw new JwtError("malformed", err instanceof Error ? err.message : "invalid JWT");
  }
}

/** The token from an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}
