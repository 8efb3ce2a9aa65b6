/**
 * Asymmetric JWT signing keys, as GoTrue (supabase/auth) uses them next to the legacy HS256 secret:
 *
 * - The keys come as a JSON array of JWKs, the file `[auth] signing_keys_path` in
 *   supabase/config.toml names and `supabase gen signing-key` writes (private JWKs with kid, alg,
 *   key_ops ["sign","verify"]). GoTrue (internal/conf/jwk.go) requires exactly one key whose
 *   key_ops include "sign"; it signs access tokens with it (header alg + kid). Keys without
 *   "sign" are verify-only (rotated keys).
 * - /auth/v1/.well-known/jwks.json (internal/api/jwks.go) publishes the public part of every
 *   asymmetric key, with use "sig" and key_ops ["verify"]; the HS256 secret is never published.
 * - PostgREST, Storage, Realtime and the edge runtime verify HS256 tokens with the secret and
 *   ES256/RS256 tokens against that JWKS (the CLI gives functions SUPABASE_JWKS).
 *
 * The keys are registered under the project's JWT secret (the project's identity, which every
 * service here is already configured with), so `verifyJwt(token, secret)` in jwt.ts accepts both
 * kinds without changing any caller. Edge functions deployed elsewhere read SUPABASE_JWKS.
 */
import { createLocalJWKSet, importJWK, type JWK, type JWTVerifyGetKey, SignJWT } from "jose";
import { env } from "../env.ts";

export type SigningAlg = "ES256" | "RS256" | "ES384" | "RS384" | "ES512" | "RS512" | "EdDSA";
const ASYMMETRIC_ALGS: readonly string[] = ["ES256", "RS256", "ES384", "RS384", "ES512", "RS512", "EdDSA"];

export interface ProjectKeys {
  /** The key access tokens are signed with, or null (HS256 with the secret). */
  signing: { key: CryptoKey; kid: string; alg: SigningAlg } | null;
  /** What /.well-known/jwks.json answers. */
  jwks: { keys: JWK[] };
  /** Resolves a token's verification key by kid (jose). */
  keySet: JWTVerifyGetKey;
}

export class SigningKeysError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigningKeysError";
  }
}

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** The public JWK GoTrue publishes for a (private) key: use "sig", key_ops ["verify"]. */
export function publicJwk(jwk: JWK): JWK {
  const out: JWK = { ...jwk };
  for (const m of PRIVATE_MEMBERS) delete (out as Record<string, unknown>)[m];
  delete out.ext;
  out.use = "sig";
  out.key_ops = ["verify"];
  return out;
}

/**
 * Loads the signing keys file's JWKs: validates them the way GoTrue's JwtKeysDecoder does (one
 * signing key, every key with a kid) and imports the signing key. Symmetric ("oct") keys are
 * refused: the legacy HS256 secret is configured on its own.
 */
export async function loadSigningKeys(input: unknown): Promise<ProjectKeys> {
  if (!Array.isArray(input)) throw new SigningKeysError("signing keys must be a JSON array of JWKs");
  const published: JWK[] = [];
  const signing: JWK[] = [];
  const kids = new Set<string>();
  for (const raw of input) {
    if (!raw || typeof raw !== "object") throw new SigningKeysError("signing keys must be JWK objects");
    const jwk = raw as JWK;
    if (jwk.kty === "oct") {
      throw new SigningKeysError("symmetric (oct) signing keys are not supported; use the JWT secret");
    }
    if (typeof jwk.kid !== "string" || !jwk.kid) throw new SigningKeysError("every signing key needs a kid");
    if (kids.has(jwk.kid)) throw new SigningKeysError(`duplicate kid ${jwk.kid}`);
    kids.add(jwk.kid);
    if (typeof jwk.alg !== "string" || !ASYMMETRIC_ALGS.includes(jwk.alg)) {
      throw new SigningKeysError(`signing key ${jwk.kid}: unsupported alg ${String(jwk.alg)}`);
    }
    published.push(publicJwk(jwk));
    if (Array.isArray(jwk.key_ops) && jwk.key_ops.includes("sign")) signing.push(jwk);
  }
  if (input.length > 0 && signing.length === 0) throw new SigningKeysError("no signing key detected");
  if (signing.length > 1) {
    throw new SigningKeysError("multiple signing keys detected, only 1 signing key is supported");
  }
  let signingKey: ProjectKeys["signing"] = null;
  if (signing.length === 1) {
    const jwk = signing[0];
    if (typeof jwk.d !== "string") throw new SigningKeysError(`signing key ${jwk.kid} has no private part`);
    const { key_ops: _ops, ext: _ext, use: _use, ...importable } = jwk;
    const key = await importJWK(importable, jwk.alg);
    if (!(key instanceof CryptoKey)) {
      throw new SigningKeysError(`signing key ${jwk.kid} could not be imported`);
    }
    signingKey = { key, kid: jwk.kid!, alg: jwk.alg as SigningAlg };
  }
  return publicKeys(published, signingKey);
}

/** Verification-only keys from a published JWKS ({keys: [...]}, or a bare array). */
export function verificationKeys(jwks: unknown): ProjectKeys {
  const list = Array.isArray(jwks) ? jwks : (jwks as { keys?: unknown })?.keys;
  if (!Array.isArray(list)) throw new SigningKeysError("a JWKS must be {keys: [...]}");
  return publicKeys(list.filter((k) => k && (k as JWK).kty !== "oct").map((k) => publicJwk(k as JWK)), null);
}

function publicKeys(keys: JWK[], signing: ProjectKeys["signing"]): ProjectKeys {
  return { signing, jwks: { keys }, keySet: createLocalJWKSet({ keys }) };
}

// ---- the per-project registry (keyed by the project's JWT secret) ----

const registry = new Map<string, ProjectKeys>();

/** Makes `keys` the project's signing keys; returns the function that removes them again. */
export function registerProjectKeys(secret: string, keys: ProjectKeys): () => void {
  registry.set(secret, keys);
  return () => {
    if (registry.get(secret) === keys) registry.delete(secret);
  };
}

let envCache: { raw: string; keys: ProjectKeys | null } | null = null;

/** The project's keys: registered ones, else the SUPABASE_JWKS an edge function is given. */
export function projectKeys(secret: string): ProjectKeys | null {
  const registered = registry.get(secret);
  if (registered) return registered;
  let raw: string | undefined;
  try {
    raw = env("SUPABASE_JWKS");
  } catch {
    return null; // no env permission
  }
  if (!raw) return null;
  if (envCache?.raw !== raw) {
    let keys: ProjectKeys | null = null;
    try {
      keys = verificationKeys(JSON.parse(raw));
    } catch {
      keys = null;
    }
    envCache = { raw, keys };
  }
  return envCache.keys;
}

/** GET /auth/v1/.well-known/jwks.json: the published keys ({keys: []} with the secret only). */
export function publishedJwks(secret: string): { keys: JWK[] } {
  return registry.get(secret)?.jwks ?? { keys: [] };
}

/**
 * Signs an access token as GoTrue does: with the signing key (header alg, kid, typ) when one is
 * configured, else HS256 with the secret.
 */
export async function signAccessToken(claims: Record<string, unknown>, secret: string): Promise<string> {
  const signing = registry.get(secret)?.signing;
  if (!signing) {
    return await new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .sign(new TextEncoder().encode(secret));
  }
  return await new SignJWT(claims).setProtectedHeader({ alg: signing.alg, kid: signing.kid, typ: "JWT" })
    .sign(signing.key);
}

export function isAsymmetricAlg(alg: unknown): boolean {
  return typeof alg === "string" && ASYMMETRIC_ALGS.includes(alg);
}
