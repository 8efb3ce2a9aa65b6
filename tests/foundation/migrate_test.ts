/** The migration runner: order, once each, recorded like the CLI, atomic per file, seed on fresh only. */
import assert from "node:assert/strict";
import { openDatabase } from "../../stack/db/database.ts";
import { migrate, MigrationError, parseMigrationName } from "../../stack/db/migrate.ts";

async function tempProject(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(`${root}/supabase/migrations`, { recursive: true });
  for (const [name, sql] of Object.entries(files)) await Deno.writeTextFile(`${root}/supabase/${name}`, sql);
  return root;
}

Deno.test({
  name: "migrations apply in filename order once each, and the seed only on a fresh database",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const root = await tempProject({
      "migrations/20260102000000_second.sql": `insert into public.t (v) values ('second');`,
      "migrations/20260101000000_first.sql": `create table public.t (id serial primary key, v text);`,
      "seed.sql": `insert into public.t (v) values ('seed');`,
    });
    const dataDir = `${root}/db`;
    try {
      let db = await openDatabase({ dataDir });
      const first = await migrate(db, root);
      assert.equal(first.fresh, true);
      assert.deepEqual(first.applied, ["20260101000000_first.sql", "20260102000000_second.sql"]);
      assert.equal(first.seeded, true);
      const recorded = await db.query(
        `select version, name from supabase_migrations.schema_migrations order by version`,
      );
      assert.deepEqual(recorded.rows, [
        { version: "20260101000000", name: "first" },
        { version: "20260102000000", name: "second" },
      ]);
      await db.close();

      // Restart on the same data folder with one new migration: only that one runs, no seed.
      await Deno.writeTextFile(
        `${root}/supabase/migrations/20260103000000_third.sql`,
        `insert into public.t (v) values ('third');`,
      );
      db = await openDatabase({ dataDir });
      const second = await migrate(db, root);
      assert.equal(second.fresh, false);
      assert.deepEqual(second.applied, ["20260103000000_third.sql"]);
      assert.equal(second.seeded, false);
      const rows = await db.query<{ v: string }>(`select v from public.t order by id`);
      assert.deepEqual(rows.rows.map((r) => r.v), ["second", "seed", "third"]);
      // The platform bootstrap is there: roles and auth helpers.
      const roles = await db.query(
        `select rolname from pg_roles where rolname in ('anon','authenticated','service_role') order by 1`,
      );
      assert.equal(roles.rows.length, 3);
      await db.close();
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "a failing migration leaves nothing of itself behind and names the file",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const root = await tempProject({
      "migrations/20260101000000_ok.sql": `create table public.ok (id int);`,
      "migrations/20260102000000_bad.sql":
        `create table public.half (id int); select * from public.missing_table;`,
    });
    const db = await openDatabase();
    try {
      await assert.rejects(() => migrate(db, root), (err: unknown) => {
        assert.ok(err instanceof MigrationError);
        assert.match(err.message, /20260102000000_bad\.sql/);
        return true;
      });
      const half = await db.query(`select to_regclass('public.half') as t, to_regclass('public.ok') as ok`);
      assert.deepEqual(half.rows, [{ t: null, ok: "ok" }]);
      const versions = await db.query(`select version from supabase_migrations.schema_migrations`);
      assert.deepEqual(versions.rows, [{ version: "20260101000000" }]);
    } finally {
      await db.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("migration names must be <timestamp>_<name>.sql", () => {
  assert.deepEqual(parseMigrationName("20260101000100_platform_roles.sql"), {
    version: "20260101000100",
    name: "platform_roles",
  });
  assert.throws(() => parseMigrationName("add_interior_designer_agent.sql"));
});
