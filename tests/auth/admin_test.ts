/** The GoTrue admin API: service_role only. */
import assert from "node:assert/strict";
import { anonClient, createUser, platformTest, serviceClient, uniqueEmail } from "../helpers/platform.ts";

platformTest("service role lists users with page/per_page, X-Total-Count and Link", async (p) => {
  for (let i = 0; i < 3; i++) await createUser(p, "list");
  const admin = serviceClient(p);
  const { data, error } = await admin.auth.admin.listUsers({ page: 1, perPage: 2 });
  assert.equal(error, null);
  assert.equal(data.users.length, 2);
  const total =
    (await p.db.query<{ n: number }>(`select count(*)::int as n from auth.users where deleted_at is null`))
      .rows[0].n;
  assert.equal((data as { total?: number }).total, total);

  const raw = await fetch(`${p.url}/auth/v1/admin/users?page=2&per_page=2`, {
    headers: { apikey: p.config.serviceRoleKey },
  });
  assert.equal(raw.status, 200);
  assert.equal(raw.headers.get("x-total-count"), String(total));
  assert.match(raw.headers.get("link") ?? "", /rel="last"/);
  const body = await raw.json();
  assert.equal(body.aud, "authenticated");
  assert.ok(body.users.length >= 1);
  // Pages do not overlap.
  assert.ok(!body.users.some((u: { id: string }) => data.users.some((d) => d.id === u.id)));
});

platformTest("service role creates, reads, updates and deletes a user", async (p) => {
  const admin = serviceClient(p);
  const email = uniqueEmail("admin-created");
  const created = await admin.auth.admin.createUser({
    email,
    password: "created-pass",
    email_confirm: true,
    user_metadata: { name: "C" },
    app_metadata: { tenant: "t1" },
  });
  assert.equal(created.error, null);
  const id = created.data.user!.id;
  assert.deepEqual(created.data.user!.app_metadata, {
    provider: "email",
    providers: ["email"],
    tenant: "t1",
  });

  const dup = await admin.auth.admin.createUser({ email, password: "created-pass" });
  assert.equal(dup.error?.status, 422);
  assert.equal(dup.error?.code, "email_exists");

  // A confirmed admin-created user can sign in.
  assert.equal(
    (await anonClient(p).auth.signInWithPassword({ email, password: "created-pass" })).error,
    null,
  );

  const got = await admin.auth.admin.getUserById(id);
  assert.equal(got.data.user?.email, email);

  const upd = await admin.auth.admin.updateUserById(id, {
    user_metadata: { name: "D" },
    ban_duration: "24h",
  });
  assert.equal(upd.error, null);
  assert.equal(upd.data.user?.user_metadata.name, "D");
  assert.ok(upd.data.user?.banned_until);
  const banned = await anonClient(p).auth.signInWithPassword({ email, password: "created-pass" });
  assert.equal(banned.error?.code, "user_banned");

  const del = await admin.auth.admin.deleteUser(id);
  assert.equal(del.error, null);
  const gone = await admin.auth.admin.getUserById(id);
  assert.equal(gone.error?.status, 404);
  assert.equal(gone.error?.code, "user_not_found");
  // Deleting the auth user cascades to the profile and credits.
  assert.equal(
    (await p.db.query(`select 1 from public.user_profiles where user_id = $1`, [id])).rows.length,
    0,
  );
});

platformTest("an unconfirmed admin-created user cannot sign in", async (p) => {
  const email = uniqueEmail("unconfirmed");
  const created = await serviceClient(p).auth.admin.createUser({ email, password: "created-pass" });
  assert.equal(created.error, null);
  const r = await anonClient(p).auth.signInWithPassword({ email, password: "created-pass" });
  assert.equal(r.error?.code, "email_not_confirmed");
});

platformTest(
  "the admin API refuses the anon key and user JWTs (403 not_admin) and no token (401)",
  async (p) => {
    const u = await createUser(p, "not-admin");
    for (const token of [p.config.anonKey, u.accessToken]) {
      for (
        const [method, path] of [
          ["GET", "/admin/users"],
          ["POST", "/admin/users"],
          ["GET", `/admin/users/${u.id}`],
          ["PUT", `/admin/users/${u.id}`],
          ["DELETE", `/admin/users/${u.id}`],
        ]
      ) {
        const r = await fetch(`${p.url}/auth/v1${path}`, {
          method,
          headers: {
            apikey: p.config.anonKey,
            Authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "x-supabase-api-version": "2024-01-01",
          },
          body: method === "GET"
            ? undefined
            : JSON.stringify({ email: uniqueEmail("x"), password: "whatever-1" }),
        });
        assert.equal(r.status, 403, `${method} ${path}`);
        assert.deepEqual(await r.json(), { code: "not_admin", message: "User not allowed" });
      }
    }
    const anonList = await anonClient(p).auth.admin.listUsers();
    assert.equal(anonList.error?.status, 403);
    const none = await fetch(`${p.url}/auth/v1/admin/users`);
    assert.equal(none.status, 401);
    await none.body?.cancel();
    // The user still exists: nothing was deleted by the refused calls.
    assert.equal((await serviceClient(p).auth.admin.getUserById(u.id)).error, null);
  },
);

platformTest("the opaque sb_secret_ key maps to the service role at the gateway", async (p) => {
  const r = await fetch(`${p.url}/auth/v1/admin/users?page=1&per_page=1`, {
    headers: { apikey: p.config.secretKey },
  });
  assert.equal(r.status, 200);
  await r.body?.cancel();
  const pub = await fetch(`${p.url}/auth/v1/admin/users`, { headers: { apikey: p.config.publishableKey } });
  assert.equal(pub.status, 403);
  await pub.body?.cancel();
});
