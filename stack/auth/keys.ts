/**
 * `[auth] signing_keys_path` of supabase/config.toml: the JSON array of JWKs `supabase gen
 * signing-key` writes (supabase/signing_keys.json in `supabase init`'s layout). A relative path is
 * relative to the supabase/ folder, as the CLI resolves it. With the keys, /auth/v1 signs access
 * tokens with the signing key and publishes the public keys at /.well-known/jwks.json; every
 * service verifies against them (packages/shared/auth/jwks.ts). The anon and service_role keys
 * stay HS256 with the JWT secret, which all services keep accepting.
 */
import { parse as parseToml } from "smol-toml";
import { loadSigningKeys, type ProjectKeys, SigningKeysError } from "@shared/auth/jwks.ts";

/** The configured path, resolved; null when config.toml (or the setting) is absent. */
export async function signingKeysPath(rootDir: string): Promise<string | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${rootDir}/supabase/config.toml`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  const toml = parseToml(text) as { auth?: { signing_keys_path?: unknown } };
  const path = toml.auth?.signing_keys_path;
  if (typeof path !== "string" || path.trim() === "") return null;
  return path.startsWith("/") ? path : `${rootDir}/supabase/${path.replace(/^\.\//, "")}`;
}

/** Reads and validates the keys file; a missing or invalid file is a startup error, as in GoTrue. */
export async function readSigningKeys(path: string): Promise<ProjectKeys> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new SigningKeysError(
        `[auth] signing_keys_path: ${path} not found (supabase gen signing-key writes it)`,
      );
    }
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SigningKeysError(`[auth] signing_keys_path: ${path} is not JSON`);
  }
  return await loadSigningKeys(json);
}
