/** /auth/v1 through supabase-js (auth-js), as a frontend uses it, plus GoTrue's error shapes. */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { anonClient, createUser, platformTest, uniqueEmail } from "../helpers/platform.ts";
import { signJwt } from "@shared/auth/jwt.ts";

const noSession = { auth: { persistSession: false, autoRefreshToken: false } };

platformTest("signUp returns a session whose JWT carries GoTrue's claims", async (p) => {
  const email = uniqueEmail("signup");
  const { data, error } = await anonClient(p).auth.signUp({
    email,
    password: "secret-pass",
    options: { data: { display_name: "Ada" } },
  });
  assert.equal(error, null);
  assert.ok(data.session && data.user);
  assert.equal(data.user.email, email);
  assert.equal(data.user.aud, "authenticated");
  assert.equal(data.user.role, "authenticated");
  assert.deepEqual(data.user.user_metadata, { display_name: "Ada" });
  assert.deepEqual(data.user.app_metadata, { provider: "email", providers: ["email"] });
  assert.ok(data.user.email_confirmed_at, "local signups are auto-confirmed");
  assert.equal(data.session.token_type, "bearer");
  assert.equal(data.session.expires_in, 3600);
  const claims = JSON.parse(
    atob(data.session.access_token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")),
  );
  assert.equal(claims.iss, `${p.url}/auth/v1`);
  assert.equal(claims.sub, data.user.id);
  assert.equal(claims.aud, "authenticated");
  assert.equal(claims.role, "authenticated");
  assert.equal(claims.email, email);
  assert.equal(claims.phone, "");
  assert.equal(claims.aal, "aal1");
  assert.equal(claims.is_anonymous, false);
  assert.equal(claims.amr[0].method, "password");
  assert.equal(typeof claims.session_id, "string");
  assert.equal(claims.exp - claims.iat, 3600);
  assert.deepEqual(claims.user_metadata, { display_name: "Ada" });

  // The profile and credit account rows exist for the new user.
  const profile = await p.db.query<{ name: string; subscription_tier: string; status: string }>(
    `select r.name, p.subscription_tier, p.status from public.user_profiles p join public.roles r on r.id = p.role_id
      where p.user_id = $1`,
    [data.user.id],
  );
  assert.deepEqual(profile.rows, [{ name: "user", subscription_tier: "free", status: "active" }]);
  const credits = await p.db.query(`select balance from public.user_credits where user_id = $1`, [
    data.user.id,
  ]);
  assert.equal(credits.rows.length, 1);
});

platformTest("signUp errors: existing user 422, weak password 422, bad email 400", async (p) => {
  const client = anonClient(p);
  const u = await createUser(p, "dup");
  const dup = await client.auth.signUp({ email: u.email, password: "another-pass" });
  assert.equal(dup.error?.status, 422);
  assert.equal(dup.error?.code, "user_already_exists");
  assert.equal(dup.error?.message, "User already registered");

  const weak = await client.auth.signUp({ email: uniqueEmail("weak"), password: "123" });
  assert.equal(weak.error?.status, 422);
  assert.equal(weak.error?.code, "weak_password");
  assert.equal(weak.error?.name, "AuthWeakPasswordError");

  const bad = await client.auth.signUp({ email: "not-an-email", password: "secret-pass" });
  assert.equal(bad.error?.status, 400);
  assert.equal(bad.error?.code, "validation_failed");
});

platformTest("signInWithPassword, getUser, updateUser, signOut", async (p) => {
  const u = await createUser(p, "flow");
  const client = anonClient(p);
  const wrong = await client.auth.signInWithPassword({ email: u.email, password: "wrong-password" });
  assert.equal(wrong.error?.status, 400);
  assert.equal(wrong.error?.code, "invalid_credentials");
  assert.equal(wrong.error?.message, "Invalid login credentials");

  const unknown = await client.auth.signInWithPassword({
    email: uniqueEmail("nobody"),
    password: "whatever1",
  });
  assert.equal(unknown.error?.code, "invalid_credentials");

  const signed = await client.auth.signInWithPassword({ email: u.email.toUpperCase(), password: u.password });
  assert.equal(signed.error, null);
  const token = signed.data.session!.access_token;

  const got = await client.auth.getUser(token);
  assert.equal(got.error, null);
  assert.equal(got.data.user?.id, u.id);
  assert.ok(got.data.user?.last_sign_in_at);

  // updateUser needs the client's own session: set it from the sign-in above.
  const session = createClient(p.url, p.config.anonKey, noSession);
  await session.auth.setSession({ access_token: token, refresh_token: signed.data.session!.refresh_token });
  const upd = await session.auth.updateUser({ data: { plan: "pro", display_name: "B" } });
  assert.equal(upd.error, null);
  assert.deepEqual(upd.data.user?.user_metadata, { plan: "pro", display_name: "B" });
  const upd2 = await session.auth.updateUser({ data: { plan: null } });
  assert.deepEqual(
    upd2.data.user?.user_metadata,
    { display_name: "B" },
    "null removes a key, as GoTrue merges",
  );

  const same = await session.auth.updateUser({ password: u.password });
  assert.equal(same.error?.code, "same_password");
  const changed = await session.auth.updateUser({ password: "a-new-password" });
  assert.equal(changed.error, null);
  assert.equal(
    (await client.auth.signInWithPassword({ email: u.email, password: u.password })).error?.code,
    "invalid_credentials",
  );
  assert.equal(
    (await client.auth.signInWithPassword({ email: u.email, password: "a-new-password" })).error,
    null,
  );

  const out = await session.auth.signOut();
  assert.equal(out.error, null);
  // The session is gone: the old access token no longer reaches /user.
  const after = await fetch(`${p.url}/auth/v1/user`, {
    headers: { apikey: p.config.anonKey, Authorization: `Bearer ${token}` },
  });
  assert.equal(after.status, 403);
  assert.equal((await after.json()).error_code, "session_not_found");
});

platformTest("refresh tokens rotate; reusing a used one is refused and ends the session", async (p) => {
  const u = await createUser(p, "refresh");
  const client = createClient(p.url, p.config.anonKey, noSession);
  const first = await client.auth.refreshSession({ refresh_token: u.refreshToken });
  assert.equal(first.error, null);
  const rotated = first.data.session!;
  assert.notEqual(rotated.refresh_token, u.refreshToken);
  assert.equal(rotated.user.id, u.id);

  const reuse = await fetch(`${p.url}/auth/v1/token?grant_type=refresh_token`, {
    method: "POST",
    headers: {
      apikey: p.config.anonKey,
      "content-type": "application/json",
      "x-supabase-api-version": "2024-01-01",
    },
    body: JSON.stringify({ refresh_token: u.refreshToken }),
  });
  assert.equal(reuse.status, 400);
  assert.equal(reuse.headers.get("x-sb-error-code"), "refresh_token_already_used");
  assert.deepEqual(await reuse.json(), {
    code: "refresh_token_already_used",
    message: "Invalid Refresh Token: Already Used",
  });
  // Reuse is treated as theft: the child token of the same session is dead too.
  const child = await anonClient(p).auth.refreshSession({ refresh_token: rotated.refresh_token });
  assert.equal(child.error?.code, "refresh_token_not_found");

  const garbage = await anonClient(p).auth.refreshSession({ refresh_token: "not-a-token" });
  assert.equal(garbage.error?.status, 400);
  assert.equal(garbage.error?.code, "refresh_token_not_found");
});

platformTest("GET /user: 401 without a token, 403 bad_jwt for the anon key or a forged token", async (p) => {
  const h = { apikey: p.config.anonKey };
  const none = await fetch(`${p.url}/auth/v1/user`, { headers: { "x-supabase-api-version": "2024-01-01" } });
  assert.equal(none.status, 401);
  assert.equal((await none.json()).code, "no_authorization");

  const anon = await fetch(`${p.url}/auth/v1/user`, { headers: h });
  assert.equal(anon.status, 403);
  const anonBody = await anon.json();
  assert.equal(anonBody.error_code, "bad_jwt");
  assert.equal(anonBody.code, 403, "legacy shape without the API version header");

  const u = await createUser(p, "forge");
  const forged = await signJwt(
    { sub: u.id, role: "authenticated", exp: Math.floor(Date.now() / 1000) + 60 },
    "x".repeat(40),
  );
  const res = await fetch(`${p.url}/auth/v1/user`, { headers: { ...h, Authorization: `Bearer ${forged}` } });
  assert.equal(res.status, 403);
  assert.equal((await res.json()).error_code, "bad_jwt");

  const expired = await signJwt(
    { sub: u.id, role: "authenticated", exp: Math.floor(Date.now() / 1000) - 10 },
    p.config.jwtSecret,
  );
  const exp = await fetch(`${p.url}/auth/v1/user`, { headers: { ...h, Authorization: `Bearer ${expired}` } });
  assert.equal(exp.status, 403);
  await exp.body?.cancel();
});

platformTest("settings and unsupported grant", async (p) => {
  const s = await fetch(`${p.url}/auth/v1/settings`, { headers: { apikey: p.config.anonKey } });
  const body = await s.json();
  assert.equal(body.external.email, true);
  assert.equal(body.disable_signup, false);
  assert.equal(body.mailer_autoconfirm, true);
  const g = await fetch(`${p.url}/auth/v1/token?grant_type=magic`, {
    method: "POST",
    headers: { apikey: p.config.anonKey, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(g.status, 400);
  assert.equal((await g.json()).error_code, "unsupported_grant_type");
  const bad = await fetch(`${p.url}/auth/v1/signup`, {
    method: "POST",
    headers: { apikey: p.config.anonKey, "content-type": "application/json" },
    body: "{not json",
  });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error_code, "bad_json");
});
