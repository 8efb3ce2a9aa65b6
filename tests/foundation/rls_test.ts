/**
 * Row-level security on the accounts schema, exercised as /rest/v1 runs requests: SQL under
 * anon / authenticated (with claims) / service_role. Each case tries to break a rule.
 */
import assert from "node:assert/strict";
import {
  createUser,
  createWorkspace,
  personalWorkspace,
  platformTest,
  setPlatformRole,
} from "../helpers/platform.ts";
import { sqlAs, sqlState } from "../helpers/sql.ts";

platformTest("every table in public has RLS enabled", async (p) => {
  const r = await p.db.query<{ relname: string }>(
    `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relrowsecurity`,
  );
  assert.deepEqual(r.rows, [], "tables without RLS");
});

platformTest("SECURITY DEFINER functions in public pin search_path", async (p) => {
  const r = await p.db.query<{ proname: string }>(
    `select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.prosecdef
        and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) c where c like 'search_path=%')`,
  );
  assert.deepEqual(r.rows, []);
});

platformTest("workspaces: members see only their own; outsiders and anon see nothing", async (p) => {
  const [a, b, member] = [
    await createUser(p, "ws-a"),
    await createUser(p, "ws-b"),
    await createUser(p, "ws-m"),
  ];
  const wsA = await createWorkspace(p, a.id, { [member.id]: "member" }, "A");
  const wsB = await createWorkspace(p, b.id, {}, "B");
  const seenBy = async (id: string) =>
    (await sqlAs<{ id: string }>(
      p,
      { role: "authenticated", userId: id },
      `select id from public.workspaces`,
    ))
      .map((r) => r.id).sort();
  // Each also sees the personal workspace their account came with, and nobody else's.
  const own = async (id: string, ...ws: string[]) => [...ws, await personalWorkspace(p, id)].sort();
  assert.deepEqual(await seenBy(a.id), await own(a.id, wsA));
  assert.deepEqual(await seenBy(b.id), await own(b.id, wsB));
  assert.deepEqual(await seenBy(member.id), await own(member.id, wsA));
  assert.equal(await sqlState(() => sqlAs(p, { role: "anon" }, `select id from public.workspaces`)), "42501");
  // Members of A cannot read B's member list.
  const members = await sqlAs(
    p,
    { role: "authenticated", userId: a.id },
    `select * from public.workspace_members where workspace_id = $1`,
    [wsB],
  );
  assert.equal(members.length, 0);
  // The service role sees both.
  const all = await sqlAs<{ id: string }>(
    p,
    { role: "service_role" },
    `select id from public.workspaces where id = any($1)`,
    [[wsA, wsB]],
  );
  assert.equal(all.length, 2);
});

platformTest(
  "workspaces: creating one makes the creator its owner; nobody creates one for someone else",
  async (p) => {
    const a = await createUser(p, "create-a");
    const b = await createUser(p, "create-b");
    const [ws] = await sqlAs<{ id: string }>(
      p,
      { role: "authenticated", userId: a.id },
      `insert into public.workspaces (name) values ('Mine') returning id`,
    );
    const m = await p.db.query(`select user_id, role from public.workspace_members where workspace_id = $1`, [
      ws.id,
    ]);
    assert.deepEqual(m.rows, [{ user_id: a.id, role: "owner" }]);
    const forged = await sqlState(() =>
      sqlAs(
        p,
        { role: "authenticated", userId: a.id },
        `insert into public.workspaces (name, owner_id) values ('Theirs', $1)`,
        [b.id],
      )
    );
    assert.equal(forged, "42501");
    // owner_id is not updatable by anyone through the API roles.
    const steal = await sqlState(() =>
      sqlAs(
        p,
        { role: "authenticated", userId: a.id },
        `update public.workspaces set owner_id = $2 where id = $1`,
        [ws.id, b.id],
      )
    );
    assert.equal(steal, "42501");
  },
);

platformTest(
  "workspace roles: admins add members but not admins; members add nobody; outsiders change nothing",
  async (p) => {
    const [owner, admin, member, outsider, newbie] = await Promise.all(
      ["o", "ad", "me", "out", "new"].map((x) => createUser(p, `role-${x}`)),
    );
    const ws = await createWorkspace(p, owner.id, { [admin.id]: "admin", [member.id]: "member" });
    const add = (by: string, user: string, role: string) =>
      sqlAs(
        p,
        { role: "authenticated", userId: by },
        `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, $3)`,
        [ws, user, role],
      );
    assert.equal(await sqlState(() => add(member.id, newbie.id, "member")), "42501");
    assert.equal(await sqlState(() => add(outsider.id, outsider.id, "owner")), "42501");
    assert.equal(await sqlState(() => add(admin.id, newbie.id, "admin")), "42501");
    // Members join by invitation only: an admin invites a viewer, who accepts.
    assert.equal(await sqlState(() => add(admin.id, newbie.id, "viewer")), "42501");
    const [{ invitation }] = await sqlAs<{ invitation: { id: string } }>(
      p,
      { role: "authenticated", userId: admin.id },
      `select public.invite_to_workspace($1, $2, 'viewer') as invitation`,
      [ws, newbie.id],
    );
    await sqlAs(
      p,
      { role: "authenticated", userId: newbie.id },
      `select public.accept_workspace_invitation($1)`,
      [
        invitation.id,
      ],
    );
    // A member cannot promote themselves; an admin cannot promote anyone to admin.
    const promote = (by: string, user: string, role: string) =>
      sqlAs(
        p,
        { role: "authenticated", userId: by },
        `update public.workspace_members set role = $3 where workspace_id = $1 and user_id = $2 returning role`,
        [ws, user, role],
      );
    assert.deepEqual(await promote(member.id, member.id, "owner"), []);
    assert.equal(await sqlState(() => promote(admin.id, newbie.id, "admin")), "42501");
    assert.deepEqual(await promote(owner.id, newbie.id, "admin"), [{ role: "admin" }]);
    // The owner cannot leave (the workspace would be orphaned).
    const leave = await sqlAs(
      p,
      { role: "authenticated", userId: owner.id },
      `delete from public.workspace_members where workspace_id = $1 and user_id = $2 returning user_id`,
      [ws, owner.id],
    );
    assert.deepEqual(leave, []);
  },
);

platformTest(
  "profiles: users read their own, cannot change their own role; platform admins can",
  async (p) => {
    const u = await createUser(p, "prof");
    const other = await createUser(p, "prof-other");
    const admin = await createUser(p, "prof-admin");
    await setPlatformRole(p, admin.id, "admin");
    const me = { role: "authenticated" as const, userId: u.id };
    const mine = await sqlAs<{ user_id: string }>(p, me, `select user_id from public.user_profiles`);
    assert.deepEqual(mine.map((r) => r.user_id), [u.id]);
    const escalate = await sqlAs(
      p,
      me,
      `update public.user_profiles set role_id = (select id from public.roles where name = 'admin') where user_id = $1 returning id`,
      [u.id],
    );
    assert.deepEqual(escalate, [], "no update policy applies to a normal user");
    assert.equal(
      (await p.db.query<{ name: string }>(
        `select r.name from public.user_profiles p join public.roles r on r.id = p.role_id where p.user_id = $1`,
        [u.id],
      )).rows[0].name,
      "user",
    );
    const asAdmin = { role: "authenticated" as const, userId: admin.id };
    const seen = await sqlAs(p, asAdmin, `select user_id from public.user_profiles where user_id = any($1)`, [
      [u.id, other.id],
    ]);
    assert.equal(seen.length, 2);
    const set = await sqlAs(
      p,
      asAdmin,
      `update public.user_profiles set subscription_tier = 'pro' where user_id = $1 returning subscription_tier`,
      [u.id],
    );
    assert.deepEqual(set, [{ subscription_tier: "pro" }]);
    // A suspended admin loses the role's powers.
    await p.db.query(`update public.user_profiles set status = 'suspended' where user_id = $1`, [admin.id]);
    const suspended = await sqlAs(p, asAdmin, `select user_id from public.user_profiles where user_id = $1`, [
      u.id,
    ]);
    assert.deepEqual(suspended, []);
    // Metadata claims are not roles: a forged app/user_metadata role changes nothing.
    const forged = await sqlAs(p, me, `select public.has_platform_role(array['admin']) as ok`);
    assert.deepEqual(forged, [{ ok: false }]);
  },
);

platformTest("credits: users read only their own balance and cannot debit, refund or grant", async (p) => {
  const u = await createUser(p, "cred");
  const other = await createUser(p, "cred-other");
  const me = { role: "authenticated" as const, userId: u.id };
  const rows = await sqlAs<{ user_id: string }>(
    p,
    me,
    `select user_id from public.user_credits where user_id = any($1)`,
    [[u.id, other.id]],
  );
  assert.deepEqual(rows.map((r) => r.user_id), [u.id]);
  assert.equal(await sqlState(() => sqlAs(p, me, `select public.grant_credits($1, 1000)`, [u.id])), "42501");
  assert.equal(
    await sqlState(() => sqlAs(p, me, `select public.debit_credits($1, 1, 'x')`, [other.id])),
    "42501",
  );
  assert.equal(
    await sqlState(() => sqlAs(p, me, `update public.user_credits set balance = 1000000`)),
    "42501",
  );
  assert.equal(
    await sqlState(() =>
      sqlAs(
        p,
        me,
        `insert into public.credit_transactions (user_id, amount, balance_after, kind, action) values ($1, 5, 5, 'grant', 'x')`,
        [u.id],
      )
    ),
    "42501",
  );
  assert.equal(
    await sqlState(() => sqlAs(p, { role: "anon" }, `select * from public.user_credits`)),
    "42501",
  );
});

platformTest("notifications: a user sees and marks only their own", async (p) => {
  const u = await createUser(p, "notif");
  const other = await createUser(p, "notif-o");
  await sqlAs(
    p,
    { role: "service_role" },
    `insert into public.notifications (user_id, title) values ($1, 'hi'), ($2, 'other')`,
    [u.id, other.id],
  );
  const mine = await sqlAs<{ title: string }>(
    p,
    { role: "authenticated", userId: u.id },
    `select title from public.notifications`,
  );
  assert.deepEqual(mine, [{ title: "hi" }]);
  const marked = await sqlAs(
    p,
    { role: "authenticated", userId: u.id },
    `update public.notifications set read_at = now() returning title`,
  );
  assert.deepEqual(marked, [{ title: "hi" }]);
  assert.equal(
    await sqlState(() =>
      sqlAs(
        p,
        { role: "authenticated", userId: u.id },
        `insert into public.notifications (user_id, title) values ($1, 'spam')`,
        [other.id],
      )
    ),
    "42501",
  );
});
