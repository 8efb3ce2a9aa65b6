/** /functions/v1: routing, verify_jwt, CORS, and the health-check function. */
import assert from "node:assert/strict";
import { signJwt } from "@shared/auth/jwt.ts";
import { createFunctionsRouter, readFunctionConfigs } from "../../stack/functions/router.ts";
import { createUser, platformTest } from "../helpers/platform.ts";

platformTest(
  "health-check answers {status, timestamp} with the anon key, as the README's curl does",
  async (p) => {
    const r = await fetch(`${p.url}/functions/v1/health-check`, {
      headers: { apikey: p.config.anonKey, Authorization: `Bearer ${p.config.anonKey}` },
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("access-control-allow-origin"), "*");
    const body = await r.json();
    assert.deepEqual(Object.keys(body).sort(), ["status", "timestamp"]);
    assert.equal(body.status, "healthy");
    assert.ok(Math.abs(Date.parse(body.timestamp) - Date.now()) < 60_000);
  },
);

platformTest(
  "health-check with a user JWT, and the apikey alone (gateway maps it to Authorization)",
  async (p) => {
    const u = await createUser(p, "fn");
    const withUser = await fetch(`${p.url}/functions/v1/health-check`, {
      headers: { Authorization: `Bearer ${u.accessToken}` },
    });
    assert.equal(withUser.status, 200);
    await withUser.body?.cancel();
    const apikeyOnly = await fetch(`${p.url}/functions/v1/health-check`, {
      headers: { apikey: p.config.anonKey },
    });
    assert.equal(apikeyOnly.status, 200);
    await apikeyOnly.body?.cancel();
    const publishable = await fetch(`${p.url}/functions/v1/health-check`, {
      headers: { apikey: p.config.publishableKey },
    });
    assert.equal(publishable.status, 200);
    await publishable.body?.cancel();
  },
);

platformTest(
  "verify_jwt: a missing, forged or expired JWT gets 401 as the edge runtime answers",
  async (p) => {
    const url = `${p.url}/functions/v1/health-check`;
    const none = await fetch(url);
    assert.equal(none.status, 401);
    assert.deepEqual(await none.json(), { msg: "Error: Missing authorization header" });

    const forged = await signJwt({ role: "anon", exp: Math.floor(Date.now() / 1000) + 60 }, "y".repeat(40));
    const bad = await fetch(url, { headers: { Authorization: `Bearer ${forged}` } });
    assert.equal(bad.status, 401);
    assert.deepEqual(await bad.json(), { msg: "Invalid JWT" });

    const expired = await signJwt(
      { role: "anon", exp: Math.floor(Date.now() / 1000) - 1 },
      p.config.jwtSecret,
    );
    const exp = await fetch(url, { headers: { Authorization: `Bearer ${expired}` } });
    assert.equal(exp.status, 401);
    await exp.body?.cancel();

    const garbage = await fetch(url, { headers: { Authorization: "Bearer not.a.jwt" } });
    assert.equal(garbage.status, 401);
    await garbage.body?.cancel();
  },
);

platformTest("OPTIONS preflight is never blocked and answers CORS", async (p) => {
  const r = await fetch(`${p.url}/functions/v1/health-check`, {
    method: "OPTIONS",
    headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "POST" },
  });
  assert.ok(r.status === 200 || r.status === 204, `status ${r.status}`);
  assert.equal(r.headers.get("access-control-allow-origin"), "*");
  assert.match(r.headers.get("access-control-allow-headers") ?? "", /authorization/);
  assert.match(r.headers.get("access-control-allow-headers") ?? "", /apikey/);
  await r.body?.cancel();
});

platformTest("unknown function and unknown route", async (p) => {
  const h = { Authorization: `Bearer ${p.config.anonKey}` };
  for (const name of ["no-such-function", "_shared", "..%2Fstack", "9starts-with-digit"]) {
    const r = await fetch(`${p.url}/functions/v1/${name}`, { headers: h });
    assert.equal(r.status, 404, name);
    assert.equal((await r.json()).code, "NOT_FOUND");
  }
  const route = await fetch(`${p.url}/functions/v1/health-check/nope`, { headers: h });
  assert.equal(route.status, 404);
  assert.equal(route.headers.get("access-control-allow-origin"), "*", "errors carry CORS too");
  assert.equal((await route.json()).code, "not_found");
  const gw = await fetch(`${p.url}/nothing/here`);
  assert.equal(gw.status, 404);
  await gw.body?.cancel();
});

Deno.test("config.toml: verify_jwt per function, default true; verify_jwt=false lets anonymous calls through", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/supabase/functions/open-fn`, { recursive: true });
    await Deno.mkdir(`${root}/supabase/functions/closed-fn`, { recursive: true });
    await Deno.mkdir(`${root}/supabase/functions/off-fn`, { recursive: true });
    const fn =
      `export default { fetch: (req) => Response.json({ path: new URL(req.url).pathname, q: new URL(req.url).search }) };`;
    for (const n of ["open-fn", "closed-fn", "off-fn"]) {
      await Deno.writeTextFile(`${root}/supabase/functions/${n}/app.ts`, fn);
    }
    await Deno.writeTextFile(
      `${root}/supabase/config.toml`,
      `[functions.open-fn]\nverify_jwt = false\n\n[functions.closed-fn]\n\n[functions.off-fn]\nenabled = false\n`,
    );
    const configs = await readFunctionConfigs(root);
    assert.deepEqual(configs.get("open-fn"), { enabled: true, verifyJwt: false });
    assert.deepEqual(configs.get("closed-fn"), { enabled: true, verifyJwt: true });
    const handle = await createFunctionsRouter({ rootDir: root, jwtSecret: "s".repeat(40) });
    const open = await handle(new Request("http://x/functions/v1/open-fn/a/b?c=1"), "/open-fn/a/b");
    assert.equal(open.status, 200);
    assert.deepEqual(await open.json(), { path: "/open-fn/a/b", q: "?c=1" }, "the function sees /<name>/...");
    const closed = await handle(new Request("http://x/functions/v1/closed-fn"), "/closed-fn");
    assert.equal(closed.status, 401);
    await closed.body?.cancel();
    const off = await handle(new Request("http://x/functions/v1/off-fn"), "/off-fn");
    assert.equal(off.status, 404);
    await off.body?.cancel();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a function that fails to boot answers 503 BOOT_ERROR; one that throws answers 500", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/supabase/functions/broken`, { recursive: true });
    await Deno.mkdir(`${root}/supabase/functions/throws`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/supabase/functions/broken/app.ts`,
      `throw new Error("boom at import");`,
    );
    await Deno.writeTextFile(
      `${root}/supabase/functions/throws/app.ts`,
      `export default { fetch: () => { throw new Error("boom"); } };`,
    );
    await Deno.writeTextFile(
      `${root}/supabase/config.toml`,
      `[functions.broken]\nverify_jwt = false\n[functions.throws]\nverify_jwt = false\n`,
    );
    const handle = await createFunctionsRouter({ rootDir: root, jwtSecret: "s".repeat(40) });
    const broken = await handle(new Request("http://x/functions/v1/broken"), "/broken");
    assert.equal(broken.status, 503);
    assert.equal((await broken.json()).code, "BOOT_ERROR");
    const throws = await handle(new Request("http://x/functions/v1/throws"), "/throws");
    assert.equal(throws.status, 500);
    await throws.body?.cancel();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
