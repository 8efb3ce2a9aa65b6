/** crm-contacts-api, route by route: roles, factory visibility, validation, user linking. */
import assert from "node:assert/strict";
import { createUser, platformTest, setPlatformRole, type TestUser } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { call, MISSING_ID } from "../quotes/helpers.ts";

const FN = "crm-contacts-api";

async function withRole(p: Platform, role: string, prefix = role): Promise<TestUser> {
  const u = await createUser(p, `crm-${prefix}`);
  await setPlatformRole(p, u.id, role);
  return u;
}

async function create(p: Platform, u: TestUser, body: Record<string, unknown>) {
  const r = await call(p, FN, "", { method: "POST", token: u.accessToken, body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as Record<string, unknown> & { id: string };
}

platformTest("POST /: admin, manager and factory create; name required; 201 {data}", async (p) => {
  for (const role of ["admin", "manager", "factory"]) {
    const u = await withRole(p, role);
    const c = await create(p, u, {
      name: ` ${role} contact `,
      email: "x@example.com",
      phone: "+331",
      company: "Acme",
    });
    assert.equal(c.name, `${role} contact`);
    assert.equal(c.created_by, u.id);
    assert.equal(c.user_id, null);
  }
  const m = await withRole(p, "manager");
  for (
    const body of [{}, { name: "" }, { name: "  " }, { email: "a@b.co" }, { name: "A", email: "nope" }, {
      name: 7,
    }]
  ) {
    const r = await call(p, FN, "", { method: "POST", token: m.accessToken, body });
    assert.equal(r.status, 400, JSON.stringify(body));
  }
  const missing = await call(p, FN, "", { method: "POST", token: m.accessToken, body: { email: "a@b.co" } });
  assert.match(missing.body.error as string, /name/);
});

platformTest("every route refuses no JWT (401), the user role and suspended staff (403)", async (p) => {
  const plain = await createUser(p, "crm-plain");
  const suspended = await withRole(p, "manager", "suspended");
  await p.db.query(`update public.user_profiles set status = 'suspended' where user_id = $1`, [suspended.id]);
  const id = MISSING_ID;
  const routes: [string, string, unknown?][] = [
    ["POST", "", { name: "X" }],
    ["GET", ""],
    ["GET", "/potential-matches"],
    ["POST", "/bulk-link", { links: [{ contactId: id, userId: id }] }],
    ["GET", `/by-user/${id}`],
    ["GET", `/${id}`],
    ["PATCH", `/${id}`, { name: "Y" }],
    ["DELETE", `/${id}`],
    ["POST", `/${id}/link-user`, { userId: id }],
    ["DELETE", `/${id}/unlink-user`],
  ];
  for (const [method, path, body] of routes) {
    assert.equal(
      (await call(p, FN, path, { method, token: null, body })).status,
      401,
      `${method} ${path} no JWT`,
    );
    assert.equal((await call(p, FN, path, { method, body })).status, 401, `${method} ${path} anon key`);
    for (const u of [plain, suspended]) {
      const r = await call(p, FN, path, { method, token: u.accessToken, body });
      assert.equal(r.status, 403, `${method} ${path}`);
    }
  }
});

platformTest(
  "GET /: limit 50 / offset 0 by default, {data, count}; factory users see their own only",
  async (p) => {
    const manager = await withRole(p, "manager");
    const factory = await withRole(p, "factory");
    for (let i = 0; i < 53; i++) {
      await p.db.query(`insert into public.crm_contacts (name, created_by) values ($1, $2)`, [
        `Bulk ${i}`,
        manager.id,
      ]);
    }
    const own = await create(p, factory, { name: "Factory's own" });
    const total =
      (await p.db.query<{ n: number }>(`select count(*)::int as n from public.crm_contacts`)).rows[0].n;

    const first = await call(p, FN, "", { token: manager.accessToken });
    assert.equal(first.status, 200);
    assert.equal((first.body.data as unknown[]).length, 50);
    assert.equal(first.body.count, total);
    const page = await call(p, FN, "?limit=5&offset=50", { token: manager.accessToken });
    assert.equal((page.body.data as unknown[]).length, Math.min(5, total - 50));
    const all = [
      ...(first.body.data as { id: string }[]),
      ...((await call(p, FN, `?limit=1000&offset=50`, { token: manager.accessToken })).body.data as {
        id: string;
      }[]),
    ];
    assert.equal(new Set(all.map((c) => c.id)).size, total, "pages do not overlap");

    const mine = await call(p, FN, "", { token: factory.accessToken });
    assert.deepEqual((mine.body.data as { id: string }[]).map((c) => c.id), [own.id]);
    assert.equal(mine.body.count, 1);
    for (const q of ["limit=0", "limit=abc", "limit=1001", "offset=-1"]) {
      assert.equal((await call(p, FN, `?${q}`, { token: manager.accessToken })).status, 400, q);
    }
  },
);

platformTest(
  "GET/PATCH/DELETE /{id}: relationships included; others' contacts are 404 to factory users",
  async (p) => {
    const manager = await withRole(p, "manager");
    const factory = await withRole(p, "factory");
    const a = await create(p, manager, { name: "Ann" });
    const b = await create(p, manager, { name: "Ben" });
    const rel = await manager.client.from("crm_contact_relationships")
      .insert({ contact_id: a.id, related_contact_id: b.id, relationship_type: "reports_to" }).select()
      .single();
    assert.equal(rel.error, null);
    await manager.client.from("crm_contact_relationships")
      .insert({ contact_id: b.id, related_contact_id: a.id, relationship_type: "manages" });

    const got = await call(p, FN, `/${a.id}`, { token: manager.accessToken });
    assert.equal(got.status, 200);
    const rels = (got.body.data as { crm_contact_relationships: { related_contact_id: string }[] })
      .crm_contact_relationships;
    assert.deepEqual(
      rels.map((
        r,
      ) => [r.related_contact_id, (r as unknown as { relationship_type: string }).relationship_type]),
      [
        [b.id, "reports_to"],
      ],
    );
    assert.equal((await call(p, FN, `/${a.id}`, { token: factory.accessToken })).status, 404);
    assert.equal((await call(p, FN, `/${MISSING_ID}`, { token: manager.accessToken })).status, 404);
    assert.equal((await call(p, FN, `/not-a-uuid`, { token: manager.accessToken })).status, 400);

    const patch = (u: TestUser, body: unknown) =>
      call(p, FN, `/${a.id}`, { method: "PATCH", token: u.accessToken, body });
    const updated = await patch(manager, { phone: "+44 20 1234", notes: "VIP", email: "ANN@example.com" });
    assert.equal(updated.status, 200);
    assert.equal((updated.body.data as { phone: string }).phone, "+44 20 1234");
    assert.equal((await patch(manager, { name: "" })).status, 400);
    assert.equal((await patch(manager, {})).status, 400);
    assert.equal((await patch(manager, { email: "bad" })).status, 400);
    assert.equal((await patch(factory, { notes: "mine now" })).status, 404);

    assert.equal(
      (await call(p, FN, `/${a.id}`, { method: "DELETE", token: factory.accessToken })).status,
      404,
    );
    const del = await call(p, FN, `/${a.id}`, { method: "DELETE", token: manager.accessToken });
    assert.deepEqual([del.status, del.body], [200, { success: true }]);
    const left = await p.db.query(
      `select count(*)::int as n from public.crm_contact_relationships where contact_id = $1 or related_contact_id = $1`,
      [a.id],
    );
    assert.deepEqual(left.rows, [{ n: 0 }], "relationships in both directions went with the contact");
    assert.equal(
      (await call(p, FN, `/${a.id}`, { method: "DELETE", token: manager.accessToken })).status,
      404,
    );
  },
);

platformTest("link-user, unlink-user and by-user", async (p) => {
  const manager = await withRole(p, "manager");
  const factory = await withRole(p, "factory");
  const person = await createUser(p, "crm-person");
  const c = await create(p, manager, { name: "Linked person", email: person.email });
  const c2 = await create(p, manager, { name: "Duplicate" });
  const link = (u: TestUser, id: string, body: unknown) =>
    call(p, FN, `/${id}/link-user`, { method: "POST", token: u.accessToken, body });

  const ok = await link(manager, c.id, { userId: person.id });
  assert.equal(ok.status, 200);
  assert.equal((ok.body.data as { user_id: string }).user_id, person.id);
  assert.equal((await link(manager, c2.id, { userId: person.id })).status, 409, "one contact per user");
  assert.equal((await link(manager, c2.id, { userId: MISSING_ID })).status, 404, "no such user");
  assert.equal((await link(manager, c2.id, { userId: "x" })).status, 400);
  assert.equal((await link(manager, c2.id, {})).status, 400);
  assert.equal((await link(manager, MISSING_ID, { userId: person.id })).status, 404);
  assert.equal((await link(factory, c2.id, { userId: person.id })).status, 404, "not the factory's contact");

  const byUser = await call(p, FN, `/by-user/${person.id}`, { token: manager.accessToken });
  assert.equal(byUser.status, 200);
  assert.equal((byUser.body.data as { id: string }).id, c.id);
  assert.ok(
    Array.isArray((byUser.body.data as { crm_contact_relationships: unknown[] }).crm_contact_relationships),
  );
  assert.equal((await call(p, FN, `/by-user/${person.id}`, { token: factory.accessToken })).status, 404);
  assert.equal((await call(p, FN, `/by-user/${MISSING_ID}`, { token: manager.accessToken })).status, 404);
  assert.equal((await call(p, FN, `/by-user/abc`, { token: manager.accessToken })).status, 400);

  assert.equal(
    (await call(p, FN, `/${c.id}/unlink-user`, { method: "DELETE", token: factory.accessToken })).status,
    404,
  );
  const unlinked = await call(p, FN, `/${c.id}/unlink-user`, {
    method: "DELETE",
    token: manager.accessToken,
  });
  assert.equal(unlinked.status, 200);
  assert.equal((unlinked.body.data as { user_id: null }).user_id, null);
  assert.equal((await call(p, FN, `/by-user/${person.id}`, { token: manager.accessToken })).status, 404);
});

platformTest("GET /potential-matches: unlinked contacts whose email is a user's", async (p) => {
  const manager = await withRole(p, "manager");
  const factory = await withRole(p, "factory");
  const alice = await createUser(p, "crm-alice");
  const bob = await createUser(p, "crm-bob");
  const carol = await createUser(p, "crm-carol");
  const matchA = await create(p, manager, { name: "Alice", email: alice.email.toUpperCase() });
  const linkedB = await create(p, manager, { name: "Bob", email: bob.email });
  await call(p, FN, `/${linkedB.id}/link-user`, {
    method: "POST",
    token: manager.accessToken,
    body: { userId: bob.id },
  });
  const bobAgain = await create(p, manager, { name: "Bob (old)", email: bob.email });
  const factoryCarol = await create(p, factory, { name: "Carol", email: carol.email });

  const r = await call(p, FN, "/potential-matches", { token: manager.accessToken });
  assert.equal(r.status, 200);
  const data = r.body.data as {
    contact: { id: string; name: string; email: string };
    user: { id: string; email: string; profile: { status: string; roles: { name: string } } };
  }[];
  assert.equal(r.body.count, data.length);
  const byContact = new Map(data.map((m) => [m.contact.id, m]));
  assert.deepEqual(byContact.get(matchA.id)?.user.id, alice.id);
  assert.equal(byContact.get(matchA.id)?.user.email, alice.email);
  assert.deepEqual(Object.keys(byContact.get(matchA.id)!.contact).sort(), ["email", "id", "name"]);
  assert.equal(byContact.get(matchA.id)?.user.profile.status, "active");
  assert.equal(byContact.get(matchA.id)?.user.profile.roles.name, "user");
  assert.ok(!byContact.has(linkedB.id), "linked contacts are not proposed");
  assert.ok(!byContact.has(bobAgain.id), "a user already linked elsewhere is not proposed");
  assert.equal(byContact.get(factoryCarol.id)?.user.id, carol.id, "managers see every contact");

  // Factory users may not look accounts up by e-mail, not even for their own contacts.
  const f = await call(p, FN, "/potential-matches", { token: factory.accessToken });
  assert.equal(f.status, 200);
  assert.deepEqual(f.body, { data: [], count: 0 });
});

platformTest("POST /bulk-link: per-item errors next to the links made", async (p) => {
  const manager = await withRole(p, "manager");
  const factory = await withRole(p, "factory");
  const [u1, u2, u3] = [await createUser(p, "bl1"), await createUser(p, "bl2"), await createUser(p, "bl3")];
  const c1 = await create(p, factory, { name: "One" });
  const c2 = await create(p, factory, { name: "Two" });
  const c3 = await create(p, factory, { name: "Three" });
  const foreign = await create(p, manager, { name: "Not the factory's" });
  const r = await call(p, FN, "/bulk-link", {
    method: "POST",
    token: factory.accessToken,
    body: {
      links: [
        { contactId: c1.id, userId: u1.id },
        { contactId: "bad", userId: u2.id },
        { contactId: c3.id, userId: MISSING_ID },
        { contactId: foreign.id, userId: u3.id },
        { contactId: c1.id, userId: u3.id },
        { contactId: c2.id, userId: u2.id },
      ],
    },
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.successCount, 2);
  assert.equal(r.body.errorCount, 4);
  assert.deepEqual((r.body.data as { id: string; user_id: string }[]).map((c) => [c.id, c.user_id]), [
    [c1.id, u1.id],
    [c2.id, u2.id],
  ]);
  const errors = r.body.errors as { index: number; error: string }[];
  assert.deepEqual(errors.map((e) => e.index), [1, 2, 3, 4]);
  assert.match(errors[0].error, /contactId/);
  assert.match(errors[1].error, /User not found/);
  assert.match(errors[2].error, /Contact not found/);
  assert.match(errors[3].error, /earlier in this batch/);
  const again = await call(p, FN, "/bulk-link", {
    method: "POST",
    token: manager.accessToken,
    body: { links: [{ contactId: foreign.id, userId: u1.id }] },
  });
  assert.deepEqual([again.body.successCount, (again.body.errors as { error: string }[])[0].error], [
    0,
    "User is already linked to another contact",
  ]);
  for (const body of [{}, { links: [] }, { links: "x" }]) {
    const bad = await call(p, FN, "/bulk-link", { method: "POST", token: manager.accessToken, body });
    assert.equal(bad.status, 400, JSON.stringify(body));
  }
});
