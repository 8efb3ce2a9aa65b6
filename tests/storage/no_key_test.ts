/**
 * A request with neither apikey nor Authorization. The CLI stack's Kong (supabase/cli
 * internal/start/templates/kong.yml, KONG_PLUGINS=request-transformer,cors) has no key-auth: it
 * refuses nothing and, with no apikey, adds no Authorization, so each service decides:
 * - /storage/v1: Storage's jwt plugin (supabase/storage src/http/plugins/jwt.ts) verifies the
 *   empty token, which fails as jose fails it: AccessDenied "Invalid Compact JWS", HTTP 400.
 *   Public-bucket and signed-URL routes (the `dbSuperUser` group, no jwt plugin) still answer.
 * - /rest/v1: PostgREST runs it as its anon role (PGRST_DB_ANON_ROLE=anon), as if the anon key
 *   had been sent.
 * - /auth/v1: GoTrue answers what needs no token (GET /settings) as usual.
 * - /functions/v1: the edge runtime's main service refuses a verify_jwt function with 401
 *   {"msg":"Error: Missing authorization header"} (supabase/cli internal/functions/serve/templates/main.ts).
 */
import assert from "node:assert/strict";
import { platformTest, serviceClient } from "../helpers/platform.ts";
import { createBucket } from "./helpers.ts";

const REFUSED = {
  statusCode: "403",
  code: "AccessDenied",
  error: "Unauthorized",
  message: "Invalid Compact JWS",
};

platformTest("storage refuses an authenticated route called with no key at all", async (p) => {
  const bucket = await createBucket(p, { public: true });
  await serviceClient(p).storage.from(bucket).upload("a.txt", new Blob(["hi"]));
  const base = `${p.url}/storage/v1`;
  const calls: [string, RequestInit][] = [
    [`/bucket`, {}],
    [`/object/${bucket}/a.txt`, {}],
    [`/object/info/${bucket}/a.txt`, {}],
    [`/object/list/${bucket}`, { method: "POST", body: JSON.stringify({ prefix: "" }) }],
    [`/object/list-v2/${bucket}`, { method: "POST", body: "{}" }],
    [`/object/${bucket}/b.txt`, { method: "POST", body: "x" }],
  ];
  for (const [path, init] of calls) {
    const res = await fetch(base + path, {
      ...init,
      headers: init.body ? { "content-type": "application/json" } : {},
    });
    assert.equal(res.status, 400, path);
    assert.deepEqual(await res.json(), REFUSED, path);
  }

  // Routes that need no caller keep working without a key.
  const pub = await fetch(`${base}/object/public/${bucket}/a.txt`);
  assert.equal(pub.status, 200);
  assert.equal(await pub.text(), "hi");
  const signed = await serviceClient(p).storage.from(bucket).createSignedUrl("a.txt", 60);
  const viaToken = await fetch(signed.data!.signedUrl);
  assert.equal(viaToken.status, 200);
  assert.equal(await viaToken.text(), "hi");

  // The anon key (as apikey, legacy or publishable) is anon, as before.
  for (const apikey of [p.config.anonKey, p.config.publishableKey]) {
    const res = await fetch(`${base}/object/list-v2/${bucket}`, {
      method: "POST",
      headers: { apikey, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
});

platformTest("no key on the other surfaces: what each service answers behind Kong", async (p) => {
  // PostgREST: anon, the same answer as with the anon key.
  const path = `${p.url}/rest/v1/`;
  const bare = await fetch(path);
  const anon = await fetch(path, { headers: { apikey: p.config.anonKey } });
  assert.equal(bare.status, anon.status);
  assert.equal(await bare.text(), await anon.text());

  // GoTrue: /settings needs no token.
  const settings = await fetch(`${p.url}/auth/v1/settings`);
  assert.equal(settings.status, 200);
  assert.equal(typeof (await settings.json()).external, "object");

  // Edge functions with verify_jwt: the main service's own refusal.
  const fn = await fetch(`${p.url}/functions/v1/health-check`);
  assert.equal(fn.status, 401);
  assert.deepEqual(await fn.json(), { msg: "Error: Missing authorization header" });
});
