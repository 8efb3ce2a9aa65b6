/**
 * Personal workspaces (docs/workspaces.md, migration 20260220007100_personal_workspaces.sql):
 * every account owns one from the moment it exists (sign-up and the admin users API alike, in
 * the user's own transaction), accounts older than the migration got one from it, the owner may
 * rename it but not delete, leave, duplicate or unmark it, and it is never a silent default of a
 * function whose workspace is optional.
 */
import assert from "node:assert/strict";
import {
  anonClient,
  createUser,
  platformTest,
  serviceClient,
  type TestUser,
  uniqueEmail,
} from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { openDatabase } from "../../stack/db/database.ts";
import { migrate, migrationFiles } from "../../stack/db/migrate.ts";
import { type Call, call } from "../quotes/helpers.ts";
import { ask, chat, grant, llm } from "../agent/helpers.ts";

const MIGRATION = "20260220007100_personal_workspaces.sql";

interface WorkspaceRow {
  id: string;
  name: string;
  owner_id: string;
  is_personal: boolean;
}

/** The workspaces `u` reads through /rest/v1 (RLS: their own). */
async function workspacesOf(u: TestUser): Promise<WorkspaceRow[]> {
  const r = await u.client.from("workspaces").select("id, name, owner_id, is_personal").order("created_at");
  assert.equal(r.error, null);
  return r.data as WorkspaceRow[];
}

async function personalOf(u: TestUser): Promise<string> {
  const mine = (await workspacesOf(u)).filter((w) => w.is_personal);
  assert.equal(mine.length, 1);
  return mine[0].id;
}

/** One call to each function whose workspace is optional, naming none. */
function optionalWorkspaceCalls(p: Platform, u: TestUser): Record<string, () => Promise<Call>> {
  const post = (fn: string, body: unknown) => call(p, fn, "", { method: "POST", token: u.accessToken, body });
  return {
    "email-api": () => post("email-api", { action: "domains" }),
    "messaging-api": () => post("messaging-api", { action: "channels" }),
    "flow-engine": () => post("flow-engine", { action: "trigger-event", event_type: "personal.check" }),
    "agent-chat": async () => {
      llm(p).reply("Hi.");
      const r = await chat(p, u.accessToken, ask("hi"));
      return { status: r.status, body: r.error ?? {}, headers: r.headers };
    },
  };
}

platformTest(
  "sign-up gives the user exactly one workspace: personal, theirs, with them as owner",
  async (p) => {
    const u = await createUser(p, "personal-signup");
    const ws = await workspacesOf(u);
    assert.equal(ws.length, 1);
    assert.deepEqual(ws[0], { id: ws[0].id, name: "Personal", owner_id: u.id, is_personal: true });

    const members = await u.client.from("workspace_members").select("workspace_id, user_id, role");
    assert.equal(members.error, null);
    assert.deepEqual(members.data, [{ workspace_id: ws[0].id, user_id: u.id, role: "owner" }]);

    const access = await u.client.rpc("get_my_access");
    assert.equal(access.error, null);
    assert.deepEqual(access.data.workspaces, [{ workspace_id: ws[0].id, role: "owner" }]);

    // Nobody else sees it.
    const other = await createUser(p, "personal-other");
    assert.deepEqual((await workspacesOf(other)).map((w) => w.id).includes(ws[0].id), false);
  },
);

platformTest("a user created through the admin users API gets a personal workspace too", async (p) => {
  const email = uniqueEmail("personal-admin");
  const created = await serviceClient(p).auth.admin.createUser({
    email,
    password: "created-pass",
    email_confirm: true,
  });
  assert.equal(created.error, null);
  const id = created.data.user!.id;
  const rows = await p.db.query<{ name: string; is_personal: boolean; role: string }>(
    `select w.name, w.is_personal, m.role from public.workspaces w
       join public.workspace_members m on m.workspace_id = w.id and m.user_id = w.owner_id
      where w.owner_id = $1`,
    [id],
  );
  assert.deepEqual(rows.rows, [{ name: "Personal", is_personal: true, role: "owner" }]);
});

platformTest("when the personal workspace cannot be created, the user is not created either", async (p) => {
  // A database that refuses the personal workspace of these addresses (as a full disk, a broken
  // constraint or a bug would): the sign-up must fail whole, not leave a user without one.
  await p.db.exec(`
    create function public.test_refuse_personal() returns trigger language plpgsql as $$
    begin
      if new.is_personal and exists (select 1 from auth.users u where u.id = new.owner_id and u.email like 'refused-%') then
        raise exception 'refused by the test';
      end if;
      return new;
    end $$;
    create trigger test_refuse_personal before insert on public.workspaces
      for each row execute function public.test_refuse_personal();`);
  try {
    const email = uniqueEmail("refused");
    const signUp = await anonClient(p).auth.signUp({ email, password: "password-123" });
    assert.equal(signUp.data.user, null);
    assert.equal(signUp.error?.status, 500);

    const adminEmail = uniqueEmail("refused");
    const created = await serviceClient(p).auth.admin.createUser({
      email: adminEmail,
      password: "created-pass",
    });
    assert.equal(created.data.user, null);
    assert.equal(created.error?.status, 500);

    for (const e of [email, adminEmail]) {
      const left = await p.db.query(`select 1 from auth.users where email = $1`, [e]);
      assert.equal(left.rows.length, 0, `${e} must not exist`);
      const signIn = await anonClient(p).auth.signInWithPassword({ email: e, password: "password-123" });
      assert.equal(signIn.error?.code, "invalid_credentials");
    }
    // No profile, balance or workspace of a user that does not exist.
    const orphans = await p.db.query(
      `select (select count(*) from public.user_profiles p where not exists (select 1 from auth.users u where u.id = p.user_id))
            + (select count(*) from public.user_credits c where not exists (select 1 from auth.users u where u.id = c.user_id))
            as n`,
    );
    assert.equal(Number((orphans.rows[0] as { n: number }).n), 0);
  } finally {
    await p.db.exec(`drop trigger test_refuse_personal on public.workspaces;
                     drop function public.test_refuse_personal();`);
  }
  // Sign-up works again once the database does.
  const u = await createUser(p, "refused");
  assert.equal((await workspacesOf(u)).length, 1);
});

platformTest(
  "with only the personal workspace, functions with an optional workspace use it without being told",
  async (p) => {
    const u = await createUser(p, "personal-implicit");
    await grant(p, u.id, 5);
    const calls = optionalWorkspaceCalls(p, u);
    for (const [fn, run] of Object.entries(calls)) {
      const r = await run();
      assert.equal(r.status, 200, `${fn}: ${JSON.stringify(r.body)}`);
    }
    const email = await calls["email-api"]();
    assert.deepEqual(email.body, { success: true, domains: [] });
    // The agent works in the personal workspace as its owner.
    const model = llm(p);
    model.reply("Hi.");
    assert.equal((await chat(p, u.accessToken, ask("hi"))).status, 200);
    assert.match(
      (model.captures.requests()[0].body as { system: string }).system,
      /one workspace, as its owner/,
    );
  },
);

platformTest(
  "with a second workspace, each such function asks for its workspace field; the personal one is no default",
  async (p) => {
    const u = await createUser(p, "personal-two");
    await grant(p, u.id, 5);
    const personal = await personalOf(u);
    // A second workspace, created the way a client creates one.
    const shop = await u.client.from("workspaces").insert({ name: "Shop", owner_id: u.id }).select("id")
      .single();
    assert.equal(shop.error, null);
    assert.equal((await workspacesOf(u)).length, 2);

    const fields: Record<string, string> = {
      "email-api": "workspaceId",
      "messaging-api": "workspaceId",
      "flow-engine": "workspace_id",
      "agent-chat": "context.workspace_id",
    };
    for (const [fn, run] of Object.entries(optionalWorkspaceCalls(p, u))) {
      const r = await run();
      assert.equal(r.status, 400, `${fn}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "workspace_required", fn);
      assert.equal(
        r.body.error,
        `${fields[fn]} is required: you belong to 2 workspaces, so name the one to use ` +
          "(your personal workspace is not a default)",
        fn,
      );
    }
    assert.deepEqual((await optionalWorkspaceCalls(p, u)["email-api"]()).body.details, [
      { path: ["workspaceId"], message: "required when you belong to several workspaces" },
    ]);

    // Naming either one works, the personal one included.
    for (const ws of [personal, shop.data!.id as string]) {
      const named = await call(p, "email-api", "", {
        method: "POST",
        token: u.accessToken,
        body: { action: "domains", workspaceId: ws },
      });
      assert.equal(named.status, 200, JSON.stringify(named.body));
      const flow = await call(p, "flow-engine", "", {
        method: "POST",
        token: u.accessToken,
        body: { action: "trigger-event", event_type: "personal.check", workspace_id: ws },
      });
      assert.equal(flow.status, 200, JSON.stringify(flow.body));
    }
  },
);

platformTest(
  "the owner renames the personal workspace but cannot delete, leave, duplicate or unmark it",
  async (p) => {
    const u = await createUser(p, "personal-guard");
    const personal = await personalOf(u);

    const renamed = await u.client.from("workspaces").update({ name: "Ana's tiles" }).eq("id", personal)
      .select("name").single();
    assert.equal(renamed.error, null);
    assert.equal(renamed.data!.name, "Ana's tiles");

    const del = await u.client.from("workspaces").delete().eq("id", personal).select("id");
    assert.equal(del.error?.code, "42501");
    assert.match(del.error!.message, /personal workspace is deleted only with its owner's account/);

    const leave = await u.client.from("workspace_members").delete()
      .eq("workspace_id", personal).eq("user_id", u.id).select("user_id");
    assert.equal(leave.error, null);
    assert.deepEqual(leave.data, [], "the owner cannot leave");

    const second = await u.client.from("workspaces").insert({
      name: "Another",
      owner_id: u.id,
      is_personal: true,
    });
    assert.equal(second.error?.code, "42501", "only the system marks a workspace personal");
    const unmark = await u.client.from("workspaces").update({ is_personal: false }).eq("id", personal);
    assert.equal(unmark.error?.code, "42501");

    // Even the superuser cannot give one owner two personal workspaces.
    await assert.rejects(
      p.db.query(`insert into public.workspaces (name, owner_id, is_personal) values ('Twin', $1, true)`, [
        u.id,
      ]),
      /workspaces_one_personal_per_owner/,
    );

    const still = await workspacesOf(u);
    assert.deepEqual(still.map((w) => [w.id, w.is_personal]), [[personal, true]]);
    const members = await p.db.query(
      `select role from public.workspace_members where workspace_id = $1 and user_id = $2`,
      [
        personal,
        u.id,
      ],
    );
    assert.deepEqual(members.rows, [{ role: "owner" }]);

    // A workspace they created the ordinary way they may delete.
    const shop = await u.client.from("workspaces").insert({ name: "Shop", owner_id: u.id }).select("id")
      .single();
    const gone = await u.client.from("workspaces").delete().eq("id", shop.data!.id).select("id");
    assert.equal(gone.error, null);
    assert.equal(gone.data!.length, 1);
  },
);

platformTest("deleting the account deletes its personal workspace", async (p) => {
  const u = await createUser(p, "personal-deleted");
  const personal = await personalOf(u);
  const del = await serviceClient(p).auth.admin.deleteUser(u.id);
  assert.equal(del.error, null);
  const left = await p.db.query(`select 1 from public.workspaces where id = $1`, [personal]);
  assert.equal(left.rows.length, 0);
});

Deno.test({
  name: "the migration gives every existing account (not soft-deleted ones) its personal workspace",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
    const all = await migrationFiles(ROOT);
    assert.ok(all.some((f) => f.name === MIGRATION));
    const root = await Deno.makeTempDir();
    await Deno.mkdir(`${root}/supabase/migrations`, { recursive: true });
    await Deno.copyFile(`${ROOT}/supabase/config.toml`, `${root}/supabase/config.toml`);
    const write = (files: typeof all) =>
      Promise.all(files.map((f) => Deno.writeTextFile(`${root}/supabase/migrations/${f.name}`, f.sql)));
    const db = await openDatabase();
    try {
      // The database as it was before the migration, with three accounts.
      await write(all.filter((f) => f.name < MIGRATION));
      await migrate(db, root);
      const [plain, owner, softDeleted] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      await db.query(
        `insert into auth.users (id, aud, role, email, instance_id, deleted_at)
         values ($1, 'authenticated', 'authenticated', 'plain@example.com', '00000000-0000-0000-0000-000000000000', null),
                ($2, 'authenticated', 'authenticated', 'owner@example.com', '00000000-0000-0000-0000-000000000000', null),
                ($3, 'authenticated', 'authenticated', null, '00000000-0000-0000-0000-000000000000', now())`,
        [plain, owner, softDeleted],
      );
      await db.query(`insert into public.workspaces (name, owner_id) values ('Shop', $1)`, [owner]);

      await write(all.filter((f) => f.name >= MIGRATION));
      await migrate(db, root);
      const rows = await db.query<{ owner_id: string; name: string; is_personal: boolean; role: string }>(
        `select w.owner_id, w.name, w.is_personal, m.role from public.workspaces w
           join public.workspace_members m on m.workspace_id = w.id and m.user_id = w.owner_id
          order by w.owner_id, w.is_personal`,
      );
      assert.deepEqual(
        rows.rows,
        [
          { owner_id: plain, name: "Personal", is_personal: true, role: "owner" },
          { owner_id: owner, name: "Shop", is_personal: false, role: "owner" },
          { owner_id: owner, name: "Personal", is_personal: true, role: "owner" },
        ].sort((a, b) => (a.owner_id < b.owner_id ? -1 : a.owner_id > b.owner_id ? 1 : 0)),
      );
    } finally {
      await db.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
