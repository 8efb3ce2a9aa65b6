/**
 * Admin API details that follow GoTrue (supabase/auth) exactly:
 * - internal/api/mail.go `validateEmail` (badoux/checkmail ValidateFormat) for createUser,
 *   updateUserById and signUp: 400 validation_failed "Unable to validate email address: invalid
 *   format";
 * - internal/api/admin.go `adminUsers` with internal/api/pagination.go `paginate` and
 *   internal/api/sorting.go: newest first by default, 400 "Bad Pagination Parameters: ..." for a
 *   page or per_page that is not an unsigned integer, per_page=0 refused.
 */
import assert from "node:assert/strict";
import { anonClient, createUser, platformTest, serviceClient, uniqueEmail } from "../helpers/platform.ts";

platformTest(
  "admin createUser rejects what checkmail rejects and accepts what it accepts (mail.go validateEmail)",
  async (p) => {
    const admin = serviceClient(p);
    // The old platform check (anything@anything.anything) let these through; GoTrue refuses them.
    for (
      const email of [
        "ünïcode@example.com", // non-ASCII local part
        "user@exa_mple.com", // underscore in a domain label
        "user@-example.com", // label starting with a hyphen
        "user@example..com", // empty label
        "user@example.com.", // trailing dot
        "us(er)@example.com", // parentheses are not atext
        "user@[127.0.0.1]", // address literals are not accepted
      ]
    ) {
      const { data, error } = await admin.auth.admin.createUser({ email, password: "secret-pass" });
      assert.equal(data.user, null, email);
      assert.equal(error?.status, 400, email);
      assert.equal(error?.code, "validation_failed", email);
      assert.equal(error?.message, "Unable to validate email address: invalid format", email);
    }
    // Longer than auth.users.email's varchar(255): refused as a 400, not a database error.
    const long = await admin.auth.admin.createUser({
      email: `${"a".repeat(250)}@example.com`,
      password: "secret-pass",
    });
    assert.equal(long.error?.status, 400);
    // checkmail's pattern needs no dot in the domain and allows every RFC 5322 atext character.
    const local = `dev-${crypto.randomUUID().slice(0, 8)}`;
    for (const email of [`${local}@localhost`, `o'brien+${local}@example.com`]) {
      const { data, error } = await admin.auth.admin.createUser({ email, password: "secret-pass" });
      assert.equal(error, null, email);
      assert.equal(data.user?.email, email.toLowerCase());
    }
    // The same rule on updateUserById and signUp.
    const u = await createUser(p, "fmt");
    const upd = await admin.auth.admin.updateUserById(u.id, { email: "bad@exa_mple.com" });
    assert.equal(upd.error?.status, 400);
    assert.equal(upd.error?.message, "Unable to validate email address: invalid format");
    const signup = await anonClient(p).auth.signUp({ email: "bad@exa_mple.com", password: "secret-pass" });
    assert.equal(signup.error?.status, 400);
    assert.equal(signup.error?.message, "Unable to validate email address: invalid format");
  },
);

platformTest(
  "admin listUsers returns the newest users first (admin.go adminUsers: created_at desc)",
  async (p) => {
    const admin = serviceClient(p);
    const first = await createUser(p, "order-a");
    const second = await createUser(p, "order-b");
    await p.db.query(`update auth.users set created_at = now() + interval '1 hour' where id = $1`, [
      second.id,
    ]);
    await p.db.query(`update auth.users set created_at = now() + interval '30 minutes' where id = $1`, [
      first.id,
    ]);
    const { data, error } = await admin.auth.admin.listUsers({ page: 1, perPage: 2 });
    assert.equal(error, null);
    assert.deepEqual(data.users.map((x) => x.id), [second.id, first.id]);
    const created = data.users.map((x) => Date.parse(x.created_at));
    assert.ok(created[0] >= created[1]);

    // sort=created_at asc (sorting.go) flips it; a field other than created_at is refused.
    const asc = await fetch(`${p.url}/auth/v1/admin/users?per_page=1000&sort=created_at%20asc`, {
      headers: { apikey: p.config.serviceRoleKey, authorization: `Bearer ${p.config.serviceRoleKey}` },
    });
    assert.equal(asc.status, 200);
    const ids = ((await asc.json()).users as { id: string }[]).map((x) => x.id);
    assert.ok(ids.indexOf(first.id) < ids.indexOf(second.id));
    const badSort = await fetch(`${p.url}/auth/v1/admin/users?sort=email`, {
      headers: { apikey: p.config.serviceRoleKey, authorization: `Bearer ${p.config.serviceRoleKey}` },
    });
    assert.equal(badSort.status, 400);
    assert.match((await badSort.json()).msg, /^Bad Sort Parameters/);

    // filter matches the email (FindUsersInAudience).
    const email = uniqueEmail("filtered");
    await admin.auth.admin.createUser({ email, password: "secret-pass" });
    const filtered = await fetch(
      `${p.url}/auth/v1/admin/users?filter=${encodeURIComponent(email.split("@")[0])}`,
      {
        headers: { apikey: p.config.serviceRoleKey, authorization: `Bearer ${p.config.serviceRoleKey}` },
      },
    );
    const fb = await filtered.json();
    assert.deepEqual(fb.users.map((x: { email: string }) => x.email), [email]);
    assert.equal(filtered.headers.get("x-total-count"), "1");
  },
);

platformTest("admin listUsers answers 400 Bad Pagination Parameters (pagination.go paginate)", async (p) => {
  const headers = { apikey: p.config.serviceRoleKey, authorization: `Bearer ${p.config.serviceRoleKey}` };
  for (
    const [query, detail] of [
      ["page=-1", 'strconv.ParseUint: parsing "-1": invalid syntax'],
      ["page=abc", 'strconv.ParseUint: parsing "abc": invalid syntax'],
      ["page=1.5", 'strconv.ParseUint: parsing "1.5": invalid syntax'],
      ["per_page=x", 'strconv.ParseUint: parsing "x": invalid syntax'],
      ["per_page=0", "per_page must be greater than 0"],
    ]
  ) {
    const res = await fetch(`${p.url}/auth/v1/admin/users?${query}`, { headers });
    assert.equal(res.status, 400, query);
    const body = await res.json();
    assert.equal(body.error_code, "validation_failed", query);
    assert.equal(body.msg, `Bad Pagination Parameters: ${detail}`, query);
  }
  // supabase-js surfaces it as an AuthApiError.
  const { error } = await serviceClient(p).auth.admin.listUsers({ page: -1 });
  assert.equal(error?.status, 400);
  // page=0 is a valid unsigned integer; pop's Paginate treats it as the first page.
  const zero = await fetch(`${p.url}/auth/v1/admin/users?page=0&per_page=1`, { headers });
  assert.equal(zero.status, 200);
  assert.equal((await zero.json()).users.length, 1);
});
