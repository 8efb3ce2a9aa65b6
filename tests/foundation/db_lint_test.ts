/**
 * `deno task db-lint` (scripts/db_lint.ts): Supabase's advisor lints over the migrated database.
 * The project's own database has no finding the allow file does not explain; each lint finds the
 * problem it is about when a migration plants it; and the fixes of 20260220010100 keep what
 * they must (signed-in users still evaluate the RLS helpers, the merged policies let the same
 * people read the same rows) while anon loses the definer helpers.
 */
import assert from "node:assert/strict";
import { openDatabase } from "../../stack/db/database.ts";
import { migrate } from "../../stack/db/migrate.ts";
import { ALLOW_FILE, judge, lintProject, readAllowList, runLints } from "../../scripts/db_lint.ts";
import { createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { sqlAs } from "../helpers/sql.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const opts = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  ...opts,
  name: "the migrated database has no advisor finding that supabase/db-lint-allow.json does not explain",
  fn: async () => {
    const report = await lintProject(ROOT);
    assert.deepEqual(report.unexplained, [], "findings without an allow entry");
    assert.deepEqual(report.stale, [], "allow entries that match no finding");
    // What stays is only the reviewed definer RPCs and RLS helpers signed-in users call.
    assert.deepEqual(
      [...new Set(report.allowed.map((a) => a.lint))],
      ["authenticated_security_definer_function_executable"],
    );
  },
});

/** Every lint's problem, planted by one migration of an otherwise empty project. */
const PLANTED = `
create table public.parents (id uuid primary key);
create table public.children (
  id uuid primary key,
  parent_id uuid references public.parents (id),
  other_parent uuid references public.parents (id)
);
create index children_other_a on public.children (other_parent);
create index children_other_b on public.children (other_parent);
alter table public.parents enable row level security;
alter table public.children enable row level security;
create policy children_read_a on public.children for select to authenticated using (true);
create policy children_read_b on public.children for select to authenticated using (true);
create table public.no_rls (id int);
create view public.user_emails as select id, email from auth.users;
grant select on public.user_emails to authenticated;
create function public.helper() returns int language sql as $$ select 1 $$;
create function public.peek() returns int language sql security definer set search_path = ''
  as $$ select 1 $$;
`;

Deno.test({
  ...opts,
  name: "each lint finds its planted problem, the allow file explains a finding, a stale entry fails",
  fn: async () => {
    const root = await Deno.makeTempDir();
    const db = await openDatabase();
    try {
      await Deno.mkdir(`${root}/supabase/migrations`, { recursive: true });
      await Deno.writeTextFile(`${root}/supabase/migrations/20260101000000_planted.sql`, PLANTED);
      await migrate(db, root);
      const findings = (await runLints(db)).map((f) => `${f.lint}: ${f.object}`);
      assert.deepEqual(findings, [
        "anon_security_definer_function_executable: public.peek()",
        "auth_users_exposed: public.user_emails",
        "authenticated_security_definer_function_executable: public.peek()",
        "duplicate_index: public.children (children_other_a, children_other_b)",
        "function_search_path_mutable: public.helper()",
        "multiple_permissive_policies: public.children authenticated SELECT",
        "rls_disabled_in_public: public.no_rls",
        "security_definer_view: public.user_emails",
        "unindexed_foreign_keys: public.children.children_parent_id_fkey",
      ]);

      // No allow file: every finding is unexplained. An entry explains its finding; one that
      // matches nothing is stale; an entry without a reason is refused.
      assert.equal((await readAllowList(root)).length, 0);
      const allow = [
        { lint: "rls_disabled_in_public", object: "public.no_rls", reason: "scratch table" },
        { lint: "duplicate_index", object: "public.gone (a, b)", reason: "fixed long ago" },
      ];
      await Deno.writeTextFile(`${root}/${ALLOW_FILE}`, JSON.stringify(allow));
      const report = judge(await runLints(db), await readAllowList(root));
      assert.equal(report.unexplained.length, 8);
      assert.deepEqual(report.allowed.map((a) => [a.object, a.reason]), [["public.no_rls", "scratch table"]]);
      assert.deepEqual(report.stale, [allow[1]]);
      await Deno.writeTextFile(
        `${root}/${ALLOW_FILE}`,
        JSON.stringify([{ lint: "rls_disabled_in_public", object: "public.no_rls", reason: " " }]),
      );
      await assert.rejects(() => readAllowList(root), /db-lint-allow.json\[0\]: missing reason/);

      // Fixed the way 20260220010100 fixes them, nothing is left.
      await db.exec(`
        create index children_parent_id_idx on public.children (parent_id);
        drop index public.children_other_b;
        drop policy children_read_b on public.children;
        alter table public.no_rls enable row level security;
        drop view public.user_emails;
        alter function public.helper() set search_path = '';
        revoke execute on function public.peek() from public, anon, authenticated;`);
      assert.deepEqual(await runLints(db), []);
    } finally {
      await db.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** /rest/v1/rpc/<name> with the anon key alone, or as a signed-in user. */
async function rpc(url: string, anonKey: string, name: string, args: unknown, token?: string) {
  const res = await fetch(`${url}/rest/v1/rpc/${name}`, {
    method: "POST",
    headers: {
      apikey: anonKey,
      authorization: `Bearer ${token ?? anonKey}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(args),
  });
  return { status: res.status, body: await res.json() };
}

platformTest(
  "anon cannot run the SECURITY DEFINER RLS helpers; signed-in users and RLS still do",
  async (p) => {
    const owner = await createUser(p, "lint-owner");
    const ws = await createWorkspace(p, owner.id, {}, "Lint");
    const calls: [string, unknown][] = [
      ["is_workspace_member", { ws }],
      ["is_workspace_admin", { ws }],
      ["has_workspace_role", { ws, roles: ["owner"] }],
      ["has_platform_role", { role_names: ["admin"] }],
      ["current_platform_role", {}],
      ["kb_workspace_ids", { p_roles: null }],
      ["kb_readable_category_ids", {}],
      ["owns_quote_request", { p_request_id: crypto.randomUUID() }],
    ];
    for (const [name, args] of calls) {
      const anon = await rpc(p.url, p.config.anonKey, name, args);
      assert.equal(anon.status, 401, `anon rpc/${name}: ${JSON.stringify(anon.body)}`);
      assert.equal(anon.body.code, "42501", `anon rpc/${name}`);
      const user = await rpc(p.url, p.config.anonKey, name, args, owner.accessToken);
      assert.equal(user.status, 200, `rpc/${name} as a user: ${JSON.stringify(user.body)}`);
    }
    assert.equal(
      (await rpc(p.url, p.config.anonKey, "is_workspace_member", { ws }, owner.accessToken)).body,
      true,
    );
  },
);

platformTest(
  "merged SELECT policies: the same people read seo_articles and material_interactions",
  async (p) => {
    const [author, member, admin, outsider] = await Promise.all(
      ["seo-author", "seo-member", "mi-admin", "outsider"].map((n) => createUser(p, n)),
    );
    const ws = await createWorkspace(p, admin.id, { [author.id]: "member", [member.id]: "member" }, "Merged");
    const articles = await p.db.query<{ id: string }>(
      `insert into public.seo_articles (user_id, workspace_id, topic, target_keyword)
     values ($1, $2, 'shared', 'tiles'), ($1, null, 'private', 'grout') returning id`,
      [author.id, ws],
    );
    const [shared, own] = articles.rows.map((r) => r.id);
    const product = await p.db.query<{ id: string }>(
      `insert into public.products (workspace_id, name) values ($1, 'Tile') returning id`,
      [ws],
    );
    await p.db.query(
      `insert into public.material_interactions (workspace_id, user_id, material_id, interaction_type)
     values ($1, $2, $4, 'view'), ($1, $3, $4, 'save')`,
      [ws, author.id, member.id, product.rows[0].id],
    );
    const seen = async (userId: string, sql: string) =>
      (await sqlAs<{ v: string }>(p, { role: "authenticated", userId }, sql)).map((r) => r.v).sort();
    const articlesOf = (id: string) => seen(id, `select id::text as v from public.seo_articles`);
    // The author: own articles, with or without a workspace; members: the workspace's; others: none.
    assert.deepEqual(await articlesOf(author.id), [shared, own].sort());
    assert.deepEqual(await articlesOf(member.id), [shared]);
    assert.deepEqual(await articlesOf(outsider.id), []);
    // Interactions: each user their own; the workspace admin (the owner here) all of them.
    const interactionsOf = (id: string) =>
      seen(id, `select interaction_type as v from public.material_interactions where workspace_id = '${ws}'`);
    assert.deepEqual(await interactionsOf(author.id), ["view"]);
    assert.deepEqual(await interactionsOf(member.id), ["save"]);
    assert.deepEqual(await interactionsOf(admin.id), ["save", "view"]);
    assert.deepEqual(await interactionsOf(outsider.id), []);
  },
);
