/**
 * Asymmetric signing keys (`[auth] signing_keys_path`, the JWK array `supabase gen signing-key`
 * writes), matching:
 * - supabase/auth internal/conf/jwk.go: one key with key_ops "sign" signs access tokens (header
 *   alg + kid); verify-only keys are accepted and published too;
 * - supabase/auth internal/api/jwks.go: GET /.well-known/jwks.json lists the public keys (use
 *   "sig", key_ops ["verify"]) and never the HS256 secret;
 * - PostgREST/Storage (the CLI hands them the JWKS plus the secret) and the edge runtime's main
 *   service (supabase/cli internal/functions/serve/templates/main.ts: ES256/RS256 against
 *   SUPABASE_JWKS, 401 {"msg":"Invalid JWT"} otherwise) accept both the signed user tokens and
 *   the legacy HS256 anon/service keys.
 */
import assert from "node:assert/strict";
import { decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import { createClient } from "@supabase/supabase-js";
import { signJwt } from "@shared/auth/jwt.ts";
import { loadSigningKeys, SigningKeysError } from "@shared/auth/jwks.ts";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { uniqueEmail } from "../helpers/platform.ts";

/** A private JWK as `supabase gen signing-key --algorithm <alg>` writes it. */
async function cliSigningKey(alg: "ES256" | "RS256", ops: string[] = ["sign", "verify"]): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return {
    ...(await exportJWK(privateKey)),
    kid: crypto.randomUUID(),
    use: "sig",
    key_ops: ops,
    alg,
    ext: true,
  };
}

const es256 = await cliSigningKey("ES256");
const rotatedRs256 = await cliSigningKey("RS256", ["verify"]);
const noSession = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

let platform: Promise<Platform> | null = null;
function keyed(): Promise<Platform> {
  platform ??= startEphemeralPlatform({ signingKeys: [es256, rotatedRs256] });
  return platform;
}

function keyedTest(name: string, fn: (p: Platform) => Promise<void>) {
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn: async () => fn(await keyed()) });
}

async function signedInUser(p: Platform) {
  const client = createClient(p.url, p.config.anonKey, noSession);
  const email = uniqueEmail("es256");
  const { data, error } = await client.auth.signUp({ email, password: "secret-pass" });
  assert.equal(error, null);
  return { client, session: data.session!, user: data.user! };
}

keyedTest("jwks.json publishes the public keys, never a private part or the secret (jwks.go)", async (p) => {
  const res = await fetch(`${p.url}/auth/v1/.well-known/jwks.json`, {
    headers: { apikey: p.config.anonKey },
  });
  assert.equal(res.status, 200);
  const { keys } = await res.json() as { keys: JWK[] };
  assert.deepEqual(keys.map((k) => k.kid).sort(), [es256.kid, rotatedRs256.kid].sort());
  for (const k of keys) {
    assert.equal(k.use, "sig");
    assert.deepEqual(k.key_ops, ["verify"]);
    for (const priv of ["d", "p", "q", "dp", "dq", "qi", "k"]) assert.equal(priv in k, false, priv);
  }
  const ec = keys.find((k) => k.kid === es256.kid)!;
  assert.deepEqual([ec.kty, ec.crv, ec.x, ec.y, ec.alg], ["EC", "P-256", es256.x, es256.y, "ES256"]);
});

keyedTest(
  "access tokens are ES256 with the signing key's kid; auth-js getClaims verifies them via the JWKS",
  async (p) => {
    const { client, session, user } = await signedInUser(p);
    assert.deepEqual(decodeProtectedHeader(session.access_token), {
      alg: "ES256",
      kid: es256.kid,
      typ: "JWT",
    });
    // getUser (GET /user) accepts the token, and so does a refresh.
    assert.equal((await client.auth.getUser(session.access_token)).data.user?.id, user.id);
    const { data: claims, error } = await client.auth.getClaims(session.access_token);
    assert.equal(error, null);
    assert.equal(claims?.claims.sub, user.id);
    const refreshed = await client.auth.refreshSession({ refresh_token: session.refresh_token });
    assert.equal(refreshed.error, null);
    assert.equal(decodeProtectedHeader(refreshed.data.session!.access_token).kid, es256.kid);
    // The anon and service_role keys stay HS256 (signed with the JWT secret).
    assert.equal(decodeProtectedHeader(p.config.anonKey).alg, "HS256");
  },
);

keyedTest(
  "/rest/v1 and /storage/v1 verify ES256 user tokens against the JWKS and still take HS256",
  async (p) => {
    const { session, user } = await signedInUser(p);
    const rest = (token: string) =>
      fetch(`${p.url}/rest/v1/rpc/get_my_access`, {
        method: "POST",
        headers: {
          apikey: p.config.anonKey,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
        },
        body: "{}",
      });
    const ok = await rest(session.access_token);
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).user_id, user.id);

    // A token from a key the project does not have (same kid, other key) is refused.
    const { privateKey } = await generateKeyPair("ES256");
    const forged = await new SignJWT({ sub: user.id, role: "authenticated", aud: "authenticated" })
      .setProtectedHeader({ alg: "ES256", kid: es256.kid, typ: "JWT" }).setExpirationTime("1h").sign(
        privateKey,
      );
    const refused = await rest(forged);
    assert.equal(refused.status, 401);
    await refused.body?.cancel();

    // A verify-only (rotated) key still verifies tokens it signed.
    const rsKey = await importJWK(
      { ...rotatedRs256, key_ops: undefined, ext: undefined, use: undefined },
      "RS256",
    );
    const rotatedToken = await new SignJWT({ sub: user.id, role: "authenticated", aud: "authenticated" })
      .setProtectedHeader({ alg: "RS256", kid: rotatedRs256.kid, typ: "JWT" }).setExpirationTime("1h").sign(
        rsKey,
      );
    const rotated = await rest(rotatedToken);
    assert.equal(rotated.status, 200);
    await rotated.body?.cancel();

    // The legacy HS256 secret keeps working next to the keys.
    const hs = await signJwt({
      sub: user.id,
      role: "authenticated",
      aud: "authenticated",
      exp: Math.floor(Date.now() / 1000) + 600,
    }, p.config.jwtSecret);
    const legacy = await rest(hs);
    assert.equal(legacy.status, 200);
    assert.equal((await legacy.json()).user_id, user.id);

    const buckets = (token: string) =>
      fetch(`${p.url}/storage/v1/bucket`, {
        headers: { apikey: p.config.anonKey, authorization: `Bearer ${token}` },
      });
    const sOk = await buckets(session.access_token);
    assert.equal(sOk.status, 200);
    await sOk.body?.cancel();
    const sBad = await buckets(forged);
    assert.ok(sBad.status === 400 || sBad.status === 401 || sBad.status === 403, String(sBad.status));
    await sBad.body?.cancel();
  },
);

keyedTest(
  "functions: verify_jwt and packages/shared/auth accept ES256 user tokens (serve main.ts)",
  async (p) => {
    const { session } = await signedInUser(p);
    const call = (path: string, token: string) =>
      fetch(`${p.url}/functions/v1/${path}`, {
        headers: { apikey: p.config.anonKey, authorization: `Bearer ${token}` },
      });
    const health = await call("health-check", session.access_token);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const { privateKey } = await generateKeyPair("ES256");
    const forged = await new SignJWT({ sub: crypto.randomUUID(), role: "authenticated" })
      .setProtectedHeader({ alg: "ES256", kid: es256.kid, typ: "JWT" }).setExpirationTime("1h").sign(
        privateKey,
      );
    const refused = await call("health-check", forged);
    assert.equal(refused.status, 401);
    assert.deepEqual(await refused.json(), { msg: "Invalid JWT" });
    // A signed-in route resolves the caller from the ES256 token (context.ts -> verifyJwt -> JWKS).
    const list = await call("quotes-api/quote-requests", session.access_token);
    assert.equal(list.status, 200);
    await list.body?.cancel();
    // The legacy anon key (HS256) still passes verify_jwt.
    const anon = await call("health-check", p.config.anonKey);
    assert.equal(anon.status, 200);
    await anon.body?.cancel();
    // Functions get the public keys as SUPABASE_JWKS, as the CLI gives them.
    assert.deepEqual(
      (JSON.parse(p.env.SUPABASE_JWKS) as { keys: JWK[] }).keys.map((k) => k.kid).sort(),
      [es256.kid, rotatedRs256.kid].sort(),
    );
  },
);

Deno.test("signing key files are validated as GoTrue's JwtKeysDecoder does (conf/jwk.go)", async () => {
  await assert.rejects(
    loadSigningKeys([rotatedRs256]),
    (e) => e instanceof SigningKeysError && /no signing key detected/.test(e.message),
  );
  await assert.rejects(
    loadSigningKeys([es256, await cliSigningKey("ES256")]),
    (e) => e instanceof SigningKeysError && /multiple signing keys detected/.test(e.message),
  );
  await assert.rejects(loadSigningKeys({ keys: [] }), SigningKeysError);
  const { kid: _kid, ...noKid } = es256;
  await assert.rejects(loadSigningKeys([noKid]), SigningKeysError);
});

Deno.test({
  name: "without signing keys: jwks.json is {keys: []} and tokens are HS256 (the legacy secret)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    // Runs after the keyed tests: stop that platform so its keys leave the registry.
    if (platform) await (await platform).stop();
    platform = null;
    const p = await startEphemeralPlatform();
    try {
      const res = await fetch(`${p.url}/auth/v1/.well-known/jwks.json`, {
        headers: { apikey: p.config.anonKey },
      });
      assert.deepEqual(await res.json(), { keys: [] });
      const { data } = await createClient(p.url, p.config.anonKey, noSession).auth.signUp({
        email: uniqueEmail("hs256"),
        password: "secret-pass",
      });
      assert.equal(decodeProtectedHeader(data.session!.access_token).alg, "HS256");
      assert.equal(p.env.SUPABASE_JWKS, '{"keys":[]}');
      // An ES256 token is refused when the project has no signing keys.
      const { privateKey } = await generateKeyPair("ES256");
      const foreign = await new SignJWT({ sub: crypto.randomUUID(), role: "authenticated" })
        .setProtectedHeader({ alg: "ES256", kid: es256.kid, typ: "JWT" }).setExpirationTime("1h").sign(
          privateKey,
        );
      const rest = await fetch(`${p.url}/rest/v1/rpc/get_my_access`, {
        method: "POST",
        headers: {
          apikey: p.config.anonKey,
          authorization: `Bearer ${foreign}`,
          "content-type": "application/json",
        },
        body: "{}",
      });
      assert.equal(rest.status, 401);
      await rest.body?.cancel();
    } finally {
      await p.stop();
    }
  },
});

Deno.test("[auth] signing_keys_path is read relative to supabase/, as the CLI resolves it", async () => {
  const { readSigningKeys, signingKeysPath } = await import("../../stack/auth/keys.ts");
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/supabase`);
    assert.equal(await signingKeysPath(root), null);
    await Deno.writeTextFile(
      `${root}/supabase/config.toml`,
      `[auth]\nsigning_keys_path = "./signing_keys.json"\n`,
    );
    await Deno.writeTextFile(`${root}/supabase/signing_keys.json`, JSON.stringify([es256]));
    const path = await signingKeysPath(root);
    assert.equal(path, `${root}/supabase/signing_keys.json`);
    const keys = await readSigningKeys(path!);
    assert.equal(keys.signing?.kid, es256.kid);
    assert.equal(keys.signing?.alg, "ES256");
    await Deno.remove(`${root}/supabase/signing_keys.json`);
    await assert.rejects(readSigningKeys(path!), SigningKeysError);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
