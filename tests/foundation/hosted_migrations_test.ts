/**
 * Migrations meet the database a fresh hosted Supabase project gives them: only the default
 * extensions enabled, `postgres` not a superuser, one session per migration file. Upstream:
 * supabase/postgres migrations/db/migrations/10000000000000_demote-postgres.sql (postgres loses
 * SUPERUSER, keeps CREATEROLE CREATEDB REPLICATION BYPASSRLS), supautils' privileged_extensions
 * (postgres may create allow-listed extensions such as vector), the dashboard's default
 * extensions (uuid-ossp, pgcrypto in schema `extensions`), and the per-file runners of
 * supabase/cli (`RESET ALL` between files) and other migration tools (a connection per file).
 */
import assert from "node:assert/strict";
import { openDatabase, type PGlite } from "../../stack/db/database.ts";
import { migrate, MigrationError, migrationFiles } from "../../stack/db/migrate.ts";
import { openFromTemplate } from "../../stack/db/template.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

async function tempProject(migrations: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(`${root}/supabase/migrations`, { recursive: true });
  for (const [name, sql] of Object.entries(migrations)) {
    await Deno.writeTextFile(`${root}/supabase/migrations/${name}`, sql);
  }
  return root;
}

/** A fresh platform database migrated with only `migrations`; closed and removed afterwards. */
async function withProject(
  migrations: Record<string, string>,
  fn: (db: PGlite, root: string) => Promise<void>,
): Promise<void> {
  const root = await tempProject(migrations);
  const db = await openDatabase();
  try {
    await fn(db, root);
  } finally {
    await db.close();
    await Deno.remove(root, { recursive: true });
  }
}

const opts = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  ...opts,
  name:
    "a fresh platform enables only hosted Supabase's default extensions; vector and pg_trgm are available",
  fn: () =>
    withProject({}, async (db, root) => {
      await migrate(db, root);
      const enabled = await db.query<{ extname: string; schema: string }>(
        `select e.extname, n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
          order by 1`,
      );
      assert.deepEqual(enabled.rows, [
        { extname: "pgcrypto", schema: "extensions" },
        { extname: "plpgsql", schema: "pg_catalog" },
        { extname: "supabase_vault", schema: "vault" },
        { extname: "uuid-ossp", schema: "extensions" },
      ]);
      const available = await db.query<{ name: string }>(
        `select name from pg_available_extensions
          where name in ('vector', 'pg_trgm', 'pg_cron', 'pg_net') and installed_version is null order by 1`,
      );
      assert.deepEqual(available.rows.map((r) => r.name), ["pg_cron", "pg_net", "pg_trgm", "vector"]);
      // No cron or net until a migration asks for them.
      const schemas = await db.query(
        `select nspname from pg_namespace where nspname in ('cron', 'net', 'vault') order by 1`,
      );
      assert.deepEqual(schemas.rows, [{ nspname: "vault" }]);
    }),
});

Deno.test({
  ...opts,
  name: "each migration runs as postgres, not a superuser, in a session of its own, and owns what it creates",
  fn: () =>
    withProject({
      // Leaves session state behind that a new connection would not have.
      "20260101000000_leave_state.sql": `
        create temp table leftover (x int);
        set statement_timeout = '5s';
        set search_path = pg_catalog;
        create function public.whoami_definer() returns text
          language sql security definer set search_path = '' as $$ select current_user::text $$;`,
      "20260102000000_probe.sql": `
        create table public.session_probe as
        select current_user::text as current_role_name,
               session_user::text as session_role_name,
               (select rolsuper from pg_roles where rolname = current_user) as superuser,
               (select rolcreaterole and rolbypassrls and rolcreatedb from pg_roles where rolname = current_user)
                 as hosted_attributes,
               current_setting('search_path') as search_path,
               current_setting('statement_timeout') as statement_timeout,
               to_regclass('pg_temp.leftover') is null as temp_table_gone;`,
    }, async (db, root) => {
      const result = await migrate(db, root);
      assert.deepEqual(result.applied, ["20260101000000_leave_state.sql", "20260102000000_probe.sql"]);
      const probe = await db.query(`select * from public.session_probe`);
      assert.deepEqual(probe.rows, [{
        current_role_name: "postgres",
        session_role_name: "postgres",
        superuser: false,
        hosted_attributes: true,
        search_path: `"$user", public, extensions`,
        statement_timeout: "0",
        temp_table_gone: true,
      }]);
      const owners = await db.query(
        `select (select pg_get_userbyid(relowner) from pg_class where oid = 'public.session_probe'::regclass) as tbl,
                (select pg_get_userbyid(proowner) from pg_proc where oid = 'public.whoami_definer()'::regprocedure) as fn,
                public.whoami_definer() as definer_runs_as`,
      );
      assert.deepEqual(owners.rows, [{ tbl: "postgres", fn: "postgres", definer_runs_as: "postgres" }]);
      // The platform gets its connection back as the superuser, as before migrating.
      const after = await db.query(
        `select current_user::text as u, (select rolsuper from pg_roles where rolname = current_user) as su`,
      );
      assert.deepEqual(after.rows, [{ u: "supabase_admin", su: true }]);
    }),
});

Deno.test({
  ...opts,
  name: "a migration that uses vector without enabling it fails, as `supabase db push` would",
  fn: () =>
    withProject({
      "20260101000000_embeddings.sql": `create table public.chunks (id int, embedding extensions.vector(3));`,
    }, async (db, root) => {
      await assert.rejects(() => migrate(db, root), (err: unknown) => {
        assert.ok(err instanceof MigrationError);
        assert.match(err.message, /20260101000000_embeddings\.sql: type "extensions\.vector" does not exist/);
        return true;
      });
    }),
});

Deno.test({
  ...opts,
  name:
    "postgres enables vector and pg_trgm itself (supautils' allow-list) but cannot make itself a superuser",
  fn: async () => {
    await withProject({
      "20260101000000_extensions.sql": `
        create extension if not exists vector with schema extensions;
        create extension if not exists pg_trgm with schema extensions;
        create table public.chunks (id int, name text, embedding extensions.vector(3));
        create index on public.chunks using gin (name extensions.gin_trgm_ops);`,
    }, async (db, root) => {
      await migrate(db, root);
      const ext = await db.query(
        `select extname, pg_get_userbyid(extowner) as owner from pg_extension
          where extname in ('vector', 'pg_trgm') order by 1`,
      );
      assert.deepEqual(ext.rows, [{ extname: "pg_trgm", owner: "postgres" }, {
        extname: "vector",
        owner: "postgres",
      }]);
    });
    // A function's SET clause naming pgvector's settings, in a session that has not loaded its
    // library yet (a new PGlite instance on the same data folder): a non-superuser is refused,
    // which is why kb_hybrid_search sets them in its body.
    const root = await tempProject({
      "20260101000000_extensions.sql": `create extension if not exists vector with schema extensions;`,
    });
    try {
      let db = await openDatabase({ dataDir: `${root}/db` });
      await migrate(db, root);
      await db.close();
      await Deno.writeTextFile(
        `${root}/supabase/migrations/20260102000000_set_clause.sql`,
        `create function public.tuned() returns int language sql set hnsw.ef_search = '100' as 'select 1';`,
      );
      db = await openDatabase({ dataDir: `${root}/db` });
      try {
        await assert.rejects(() => migrate(db, root), (err: unknown) => {
          assert.ok(err instanceof MigrationError);
          assert.match(err.message, /_set_clause\.sql: permission denied to set parameter "hnsw\.ef_search"/);
          return true;
        });
      } finally {
        await db.close();
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
    // supautils lets postgres set session_replication_role (a superuser-only setting).
    await withProject({
      "20260101000000_replica.sql": `create table public.replica_probe as
        select set_config('session_replication_role', 'replica', true) as srr;`,
    }, async (db, root) => {
      await migrate(db, root);
      assert.deepEqual((await db.query(`select srr from public.replica_probe`)).rows, [{ srr: "replica" }]);
    });
    await withProject(
      { "20260101000000_escalate.sql": `alter role postgres superuser;` },
      async (db, root) => {
        await assert.rejects(() => migrate(db, root), (err: unknown) => {
          assert.ok(err instanceof MigrationError);
          assert.match(err.message, /permission denied to alter role/);
          return true;
        });
      },
    );
  },
});

Deno.test({
  ...opts,
  name:
    "a migration that schedules a job without enabling pg_cron and pg_net fails, as `supabase db push` would",
  fn: async () => {
    const job = `select cron.schedule('ping', '* * * * *', $$ select net.http_get('http://127.0.0.1:9') $$);`;
    await withProject({ "20260101000000_schedule.sql": job }, async (db, root) => {
      await assert.rejects(() => migrate(db, root), (err: unknown) => {
        assert.ok(err instanceof MigrationError);
        assert.match(err.message, /20260101000000_schedule\.sql: schema "cron" does not exist/);
        return true;
      });
    });
    // pg_cron alone: the job's first request then fails for want of pg_net.
    await withProject({
      "20260101000000_cron_only.sql": `create extension if not exists pg_cron with schema pg_catalog;
        select net.http_get('http://127.0.0.1:9');`,
    }, async (db, root) => {
      await assert.rejects(() => migrate(db, root), /schema "net" does not exist/);
    });
    // What hosted does not offer is refused.
    await withProject({ "20260101000000_postgis.sql": `create extension postgis;` }, async (db, root) => {
      await assert.rejects(() => migrate(db, root), /extension "postgis" is not available/);
    });
  },
});

Deno.test({
  ...opts,
  name: "Supabase's statements enable pg_cron and pg_net: the schemas come into being as hosted makes them",
  fn: () =>
    withProject({
      "20260101000000_enable.sql": `
        create extension if not exists pg_cron with schema pg_catalog;
        grant usage on schema cron to postgres;
        create extension if not exists pg_net with schema extensions;`,
      "20260102000000_schedule.sql":
        `select cron.schedule('ping', '* * * * *', $$ select net.http_get('http://127.0.0.1:9') $$);`,
      // Harmless again, as on a project that enabled them in the dashboard.
      "20260103000000_again.sql":
        `create extension if not exists pg_cron; create extension if not exists pg_net;`,
    }, async (db, root) => {
      const result = await migrate(db, root);
      assert.equal(result.applied.length, 3);
      const ext = await db.query(
        `select e.extname, n.nspname as schema, pg_get_userbyid(e.extowner) as owner
           from pg_extension e join pg_namespace n on n.oid = e.extnamespace
          where e.extname in ('pg_cron', 'pg_net') order by 1`,
      );
      assert.deepEqual(ext.rows, [
        { extname: "pg_cron", schema: "pg_catalog", owner: "postgres" },
        { extname: "pg_net", schema: "extensions", owner: "postgres" },
      ]);
      // The schemas and their tables belong to the superuser, as the extensions' scripts run
      // elevated on hosted; the job belongs to postgres, who scheduled it.
      const owners = await db.query(
        `select (select pg_get_userbyid(nspowner) from pg_namespace where nspname = 'cron') as cron,
                (select pg_get_userbyid(nspowner) from pg_namespace where nspname = 'net') as net,
                (select pg_get_userbyid(relowner) from pg_class where oid = 'cron.job'::regclass) as job_table,
                (select username from cron.job where jobname = 'ping') as job_user`,
      );
      assert.deepEqual(owners.rows, [{
        cron: "supabase_admin",
        net: "supabase_admin",
        job_table: "supabase_admin",
        job_user: "postgres",
      }]);
      // postgres may not put triggers on the run history (hosted revokes TRIGGER there).
      const trigger = await db.query(
        `select has_table_privilege('postgres', 'cron.job_run_details', 'TRIGGER') as t,
                has_table_privilege('postgres', 'cron.job_run_details', 'SELECT') as s`,
      );
      assert.deepEqual(trigger.rows, [{ t: false, s: true }]);
    }),
});

Deno.test({
  ...opts,
  name:
    "postgres sets pgrst.* on authenticator as supautils allows on hosted; what supautils refuses stays refused",
  fn: async () => {
    await withProject({
      "20260101000000_pgrst.sql": `
        alter role authenticator set pgrst.db_schemas = 'public, storage, graphql_public';
        alter role authenticator set pgrst.db_extra_search_path = 'public, extensions';
        alter role "authenticator" in database postgres set pgrst.db_max_rows = '500';
        alter role anon set statement_timeout = '3s';
        alter role authenticated set pgrst.db_plan_enabled = 'true';
        alter role authenticator in database postgres reset pgrst.db_max_rows;
        notify pgrst, 'reload config';`,
    }, async (db, root) => {
      await migrate(db, root);
      const settings = await db.query<{ role: string; config: string[] }>(
        `select r.rolname as role, s.setconfig as config from pg_db_role_setting s
           join pg_roles r on r.oid = s.setrole order by 1`,
      );
      assert.deepEqual(settings.rows, [
        { role: "anon", config: ["statement_timeout=3s"] },
        { role: "authenticated", config: ["pgrst.db_plan_enabled=true"] },
        {
          role: "authenticator",
          config: [
            "pgrst.db_schemas=public, storage, graphql_public",
            "pgrst.db_extra_search_path=public, extensions",
          ],
        },
      ]);
    });
    const refused: [string, RegExp][] = [
      [
        `alter role authenticator superuser;`,
        /"authenticator" is a reserved role, only superusers can modify it/,
      ],
      [`alter role authenticator nologin;`, /"authenticator" is a reserved role/],
      [`alter role anon rename to anon2;`, /"anon" is a reserved role/],
      [`alter role supabase_admin set pgrst.db_schemas = 'public';`, /"supabase_admin" is a reserved role/],
      // Not an allowed setting: Postgres decides, and postgres does not administer authenticator.
      [`alter role authenticator set statement_timeout = '1s';`, /permission denied to alter role/],
      [`alter role authenticator set session_preload_libraries = 'auto_explain';`, /permission denied/],
      // postgres is no reserved role: supautils lets Postgres decide, which refuses a placeholder.
      [
        `alter role postgres set pgrst.db_schemas = 'public';`,
        /permission denied to set parameter "pgrst\.db_schemas"/,
      ],
      [`alter role postgres superuser;`, /permission denied to alter role/],
    ];
    for (const [sql, message] of refused) {
      await withProject({
        "20260101000000_allowed.sql": `alter role authenticator set pgrst.db_schemas = 'public';`,
        "20260102000000_refused.sql": sql,
      }, async (db, root) => {
        await assert.rejects(() => migrate(db, root), (err: unknown) => {
          assert.ok(err instanceof MigrationError, sql);
          assert.match(err.message, message, sql);
          assert.match(err.message, /^20260102000000_refused\.sql: /, sql);
          return true;
        });
        const attrs = await db.query(
          `select rolname, rolsuper, rolcanlogin from pg_roles where rolname in ('authenticator', 'anon', 'postgres')
            order by 1`,
        );
        assert.deepEqual(attrs.rows, [
          { rolname: "anon", rolsuper: false, rolcanlogin: false },
          { rolname: "authenticator", rolsuper: false, rolcanlogin: true },
          { rolname: "postgres", rolsuper: false, rolcanlogin: true },
        ], sql);
      });
    }
  },
});

Deno.test({
  ...opts,
  name: "this project's migrations all apply as postgres; kb_hybrid_search sets HNSW options in its body",
  fn: async () => {
    const db = await openFromTemplate(ROOT);
    try {
      const files = (await migrationFiles(ROOT)).map((f) => f.name.split("_")[0]);
      const recorded = await db.query<{ version: string }>(
        `select version from supabase_migrations.schema_migrations order by version`,
      );
      assert.deepEqual(recorded.rows.map((r) => r.version), files);
      const postgres = await db.query(`select rolsuper from pg_roles where rolname = 'postgres'`);
      assert.deepEqual(postgres.rows, [{ rolsuper: false }]);
      // Everything the migrations put in public belongs to postgres.
      const foreign = await db.query(
        `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and pg_get_userbyid(c.relowner) <> 'postgres'
         union all
         select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          where n.nspname = 'public' and pg_get_userbyid(p.proowner) <> 'postgres'`,
      );
      assert.deepEqual(foreign.rows, []);
      const fn = await db.query(
        `select proconfig from pg_proc where proname = 'kb_hybrid_search' and pronamespace = 'public'::regnamespace`,
      );
      assert.deepEqual(fn.rows, [{ proconfig: ['search_path=""'] }]);
      // The search runs, and the caller's HNSW settings are as they were afterwards.
      const after = await db.transaction(async (tx) => {
        await tx.exec(`set local role service_role`);
        await tx.query(
          `select * from public.kb_hybrid_search(gen_random_uuid(), 'tile adhesive',
             array_fill(0.1, array[1024])::extensions.vector)`,
        );
        return (await tx.query(
          `select current_setting('hnsw.ef_search') as ef, current_setting('hnsw.iterative_scan') as scan`,
        )).rows;
      });
      assert.deepEqual(after, [{ ef: "40", scan: "off" }]);
    } finally {
      await db.close();
    }
  },
});
