/**
 * Platform bootstrap, migrations and seed, applied the way the Supabase CLI applies them to a
 * fresh hosted project: bootstrap SQL first (what hosted Supabase provides), then
 * supabase/migrations/*.sql in filename order, each once, recorded in
 * supabase_migrations.schema_migrations; then supabase/seed.sql, on a fresh database only.
 *
 * Who runs what, as on hosted Supabase:
 * - `supabase_admin` is the superuser. PGlite runs every statement in one backend whose session
 *   user is initdb's bootstrap superuser (OID 10), named `postgres`; on a fresh database
 *   adoptHostedRoles() renames it `supabase_admin` (hosted runs initdb with that name) and the
 *   bootstrap (bootstrap/00_roles.sql) creates `postgres` as an ordinary role with hosted's
 *   attributes: LOGIN CREATEROLE CREATEDB REPLICATION BYPASSRLS, owner of `public`,
 *   `extensions` and the migration history, member of anon/authenticated/service_role, and the
 *   privileges of demote-postgres on auth, storage, cron and vault (bootstrap/90_*). The
 *   bootstrap runs as supabase_admin. The platform's own connection stays supabase_admin.
 * - Each migration file (and the seed) runs as `postgres`, not a superuser: in its own
 *   transaction under `SET LOCAL SESSION AUTHORIZATION postgres`, so everything it creates is
 *   owned by postgres and its SECURITY DEFINER functions run as postgres, as on hosted. PGlite
 *   has one backend, so "its own session" is emulated: DISCARD ALL before each file drops what
 *   the previous one left behind (settings, role, temp tables, prepared statements, listens),
 *   like a new connection. A loaded shared library (pgvector's) stays loaded; a real new session
 *   would not have it.
 * - What supautils lets hosted `postgres` do beyond its attributes, emulated without a C hook:
 *   - create the allow-listed extensions that are not trusted (vector): database.ts marks them
 *     trusted in PGlite's extension directory, same effect (the script runs as the superuser,
 *     the extension belongs to postgres);
 *   - set session_replication_role and the logging settings: `GRANT SET ON PARAMETER`
 *     (bootstrap/90_*);
 *   - put policies and triggers on storage.objects/buckets: membership in their owner
 *     supabase_storage_admin (bootstrap/90_*);
 *   - create pg_cron, pg_net (and have supabase_vault, enabled by the bootstrap as on hosted):
 *     SQL emulations installed as extensions by database.ts, so they exist only once a migration
 *     runs `create extension`, and a migration that uses them without it fails as on hosted;
 *   - create event triggers: a file that does is split into statements (as the CLI splits it,
 *     statements.ts) and each `create event trigger` runs as supabase_admin. Unlike supautils,
 *     the trigger then also fires for superusers' DDL;
 *   - `alter role authenticator|anon|authenticated|service_role set pgrst.*` (and the other
 *     allowed settings): a file with an `alter role` is split the same way and supautils.ts
 *     judges each one: run as supabase_admin, as postgres, or refused with supautils' message
 *     (reserved roles' attributes, names and settings).
 *   Anything else superuser-only (ALTER ROLE ... SUPERUSER, extensions hosted does not offer, a
 *   function SET clause naming a not-yet-loaded extension's setting) is refused, as on hosted.
 * - Databases created before these roles existed (OID 10 still named `postgres`) keep working:
 *   their migrations run as that superuser, as they always did.
 */
import { DEFAULT_SEARCH_PATH, emulatedExtensionFiles, type PGlite, type Transaction } from "./database.ts";
import { splitStatements } from "./statements.ts";
import { judge, MENTIONS_ALTER_ROLE, type Verdict } from "./supautils.ts";
import { readProjectConfig } from "../project_config.ts";

/**
 * `[api] auto_expose_new_tables = true` (supabase/config.toml): the default privileges hosted
 * projects had before 2026-05-30, so tables created in `public` are granted to the API roles
 * (supabase/postgres initial-schema.sql). Applied after the bootstrap, before any migration.
 */
const AUTO_EXPOSE_SQL = `
alter default privileges in schema public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges for role postgres in schema public grant all on tables to anon, authenticated, service_role;`;

async function autoExpose(rootDir: string): Promise<boolean> {
  return (await readProjectConfig(rootDir)).api.autoExposeNewTables;
}

export interface SqlFile {
  name: string;
  sql: string;
}

async function readSqlDir(dir: string): Promise<SqlFile[]> {
  const files: SqlFile[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".sql")) {
        files.push({ name: entry.name, sql: await Deno.readTextFile(`${dir}/${entry.name}`) });
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return files.sort((a, b) => a.name.localeCompare(b.name));
}

export function bootstrapFiles(): Promise<SqlFile[]> {
  return readSqlDir(new URL("./bootstrap", import.meta.url).pathname);
}

export function migrationFiles(rootDir: string): Promise<SqlFile[]> {
  return readSqlDir(`${rootDir}/supabase/migrations`);
}

export async function seedFile(rootDir: string): Promise<SqlFile | null> {
  try {
    return { name: "seed.sql", sql: await Deno.readTextFile(`${rootDir}/supabase/seed.sql`) };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** `<version>_<name>.sql`, as the CLI splits it. */
export function parseMigrationName(file: string): { version: string; name: string } {
  const m = /^(\d+)_(.*)\.sql$/.exec(file);
  if (!m) throw new Error(`migration file name must be <timestamp>_<name>.sql: ${file}`);
  return { version: m[1], name: m[2] };
}

/** The migration files schema_migrations records as applied, in order. */
export async function appliedMigrations(db: PGlite): Promise<string[]> {
  const { rows } = await db.query<{ version: string; name: string }>(
    `select version, name from supabase_migrations.schema_migrations order by version`,
  );
  return rows.map((r) => `${r.version}_${r.name}.sql`);
}

export class MigrationError extends Error {
  constructor(file: string, cause: unknown) {
    super(`${file}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "MigrationError";
  }
}

async function isBootstrapped(db: PGlite): Promise<boolean> {
  const r = await db.query<{ ok: boolean }>(
    `select to_regclass('supabase_migrations.schema_migrations') is not null as ok`,
  );
  return r.rows[0].ok;
}

export interface MigrateResult {
  fresh: boolean;
  applied: string[];
  seeded: boolean;
}

/** The role migrations and the seed run as: hosted Supabase's `postgres`, not a superuser. */
export const MIGRATION_ROLE = "postgres";
/** The superuser, as hosted Supabase names it. */
export const SUPERUSER = "supabase_admin";

/**
 * On a fresh PGlite database, gives initdb's bootstrap superuser hosted Supabase's name
 * `supabase_admin`, freeing `postgres` for the ordinary role bootstrap/00_roles.sql creates.
 * Postgres refuses to rename the session user, so the rename runs under a helper superuser's
 * session authorization, then returns to the renamed bootstrap user and drops the helper.
 */
async function adoptHostedRoles(db: PGlite): Promise<void> {
  const r = await db.query<{ name: string }>(
    `select rolname as name from pg_catalog.pg_roles where oid = 10`,
  );
  if (r.rows[0].name === SUPERUSER) return;
  await db.transaction((tx) =>
    tx.exec(`
      create role pglite_rename_helper superuser;
      set session authorization pglite_rename_helper;
      alter role ${r.rows[0].name} rename to ${SUPERUSER};
      set session authorization ${SUPERUSER};
      drop role pglite_rename_helper;
    `)
  );
}

/** Whether this database has hosted Supabase's roles (see adoptHostedRoles). */
async function hasHostedRoles(db: PGlite): Promise<boolean> {
  const r = await db.query<{ ok: boolean }>(
    `select exists (select 1 from pg_catalog.pg_roles where oid = 10 and rolname = $1)
        and exists (select 1 from pg_catalog.pg_roles where rolname = $2 and not rolsuper) as ok`,
    [SUPERUSER, MIGRATION_ROLE],
  );
  return r.rows[0].ok;
}

/**
 * Runs one file as `postgres` in a session of its own (emulated: see the module doc), in one
 * transaction, then `after` in the same transaction. A failing file leaves nothing behind.
 */
async function runAsPostgres(
  db: PGlite,
  sql: string,
  after?: (tx: Transaction) => Promise<unknown>,
): Promise<void> {
  await db.exec(`discard all`);
  await db.transaction(async (tx) => {
    await tx.exec(
      `set local session authorization ${MIGRATION_ROLE}; set local search_path to ${DEFAULT_SEARCH_PATH}`,
    );
    if (!MENTIONS_EVENT_TRIGGER.test(sql) && !MENTIONS_ALTER_ROLE.test(sql)) {
      await tx.exec(sql);
    } else {
      // What supautils decides per statement: postgres may create event triggers (Postgres
      // itself wants a superuser) and set the API roles' allowed settings (supautils.ts). The
      // file runs statement by statement (as the CLI splits it); those run as supabase_admin.
      for (const statement of splitStatements(sql)) {
        const verdict: Verdict = CREATE_EVENT_TRIGGER.test(statement)
          ? { run: "as-superuser" }
          : judge(statement);
        if (verdict.run === "refused") throw new Error(verdict.message);
        if (verdict.run === "as-postgres") {
          await tx.exec(statement);
          continue;
        }
        await tx.exec(`set local session authorization ${SUPERUSER}`);
        await tx.exec(statement);
        await tx.exec(`set local session authorization ${MIGRATION_ROLE}`);
      }
    }
    if (after) await after(tx);
  });
}

/** A file that may create an event trigger, and a statement that does (comments before it allowed). */
const MENTIONS_EVENT_TRIGGER = /\bcreate\s+event\s+trigger\b/i;
const CREATE_EVENT_TRIGGER = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*create\s+event\s+trigger\b/i;

/** Brings a database up to date. Each file runs in its own transaction: a failing one leaves nothing behind. */
export async function migrate(db: PGlite, rootDir: string): Promise<MigrateResult> {
  const fresh = !(await isBootstrapped(db));
  if (fresh) {
    await adoptHostedRoles(db);
    for (const file of await bootstrapFiles()) {
      try {
        await db.transaction((tx) => tx.exec(file.sql));
      } catch (err) {
        throw new MigrationError(`bootstrap/${file.name}`, err);
      }
    }
    if (await autoExpose(rootDir)) await db.exec(AUTO_EXPOSE_SQL);
  }
  // A database bootstrapped before the hosted roles existed: its superuser is still `postgres`.
  const hosted = await hasHostedRoles(db);
  if (!fresh) await adoptLegacyEmulations(db, hosted);
  const run = (sql: string, after?: (tx: Transaction) => Promise<unknown>) =>
    hosted ? runAsPostgres(db, sql, after) : db.transaction(async (tx) => {
      await tx.exec(sql);
      if (after) await after(tx);
    });
  const done = new Set(
    (await db.query<{ version: string }>(`select version from supabase_migrations.schema_migrations`)).rows
      .map((r) => r.version),
  );
  const applied: string[] = [];
  try {
    for (const file of await migrationFiles(rootDir)) {
      const { version, name } = parseMigrationName(file.name);
      if (done.has(version)) continue;
      try {
        await run(file.sql, (tx) =>
          tx.query(
            `insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)`,
            [version, name, [file.sql]],
          ));
      } catch (err) {
        throw new MigrationError(file.name, err);
      }
      applied.push(file.name);
    }
    let seeded = false;
    if (fresh) {
      const seed = await seedFile(rootDir);
      if (seed) {
        try {
          await run(seed.sql);
        } catch (err) {
          throw new MigrationError(seed.name, err);
        }
        seeded = true;
      }
    }
    return { fresh, applied, seeded };
  } finally {
    // The connection goes back to the platform as the superuser with the default path.
    if (hosted) await db.exec(`discard all`);
    await db.exec(
      `${
        hosted ? `set session authorization ${SUPERUSER}; ` : ""
      }reset role; set search_path to ${DEFAULT_SEARCH_PATH}`,
    );
  }
}

/**
 * Databases bootstrapped before cron, net and vault were extensions had them as plain schemas
 * (the old bootstrap/30_cron_net_vault.sql), so `create extension pg_cron` would fail there
 * ("schema cron already exists"). Each such schema is replaced by its extension, keeping its
 * rows (jobs and their runs, queued requests and responses, secrets with their root key); and
 * postgres gets ADMIN on the API roles, as bootstrap/00_roles.sql now grants. Runs once: after
 * it, every schema belongs to its extension.
 */
async function adoptLegacyEmulations(db: PGlite, hosted: boolean): Promise<void> {
  const r = await db.query<{ nspname: string }>(
    `select n.nspname from pg_namespace n
      where n.nspname in ('cron', 'net', 'vault')
        and not exists (select 1 from pg_depend d where d.classid = 'pg_namespace'::regclass
                          and d.objid = n.oid and d.deptype = 'e')
        and not exists (select 1 from pg_extension e where e.extname = 'supabase_vault' and n.nspname = 'vault')`,
  );
  const legacy = new Set(r.rows.map((x) => x.nspname));
  if (legacy.size === 0) return;
  await db.transaction(async (tx) => {
    if (legacy.has("vault")) {
      await tx.exec(`
        alter schema vault rename to vault_legacy;
        create extension supabase_vault;
        delete from vault._root_key;
        insert into vault._root_key select * from vault_legacy._root_key;
        insert into vault.secrets select * from vault_legacy.secrets;
        drop schema vault_legacy cascade;`);
    }
    if (legacy.has("cron")) {
      await tx.exec(`
        alter schema cron rename to cron_legacy;
        create extension pg_cron with schema pg_catalog;
        insert into cron.job select * from cron_legacy.job;
        insert into cron.job_run_details select * from cron_legacy.job_run_details;
        select setval('cron.jobid_seq', greatest((select max(jobid) from cron.job), 1)),
               setval('cron.runid_seq', greatest((select max(runid) from cron.job_run_details), 1));
        drop schema cron_legacy cascade;`);
    }
    if (legacy.has("net")) {
      await tx.exec(`
        alter schema net rename to net_legacy;
        create extension pg_net with schema extensions;
        insert into net.http_request_queue select * from net_legacy.http_request_queue;
        insert into net._http_response select * from net_legacy._http_response;
        select setval('net.http_request_queue_id_seq', greatest(
          (select max(id) from net.http_request_queue), (select max(id) from net._http_response), 1));
        drop schema net_legacy cascade;`);
    }
    if (hosted) {
      await tx.exec(`grant anon, authenticated, service_role to ${MIGRATION_ROLE} with admin option`);
    }
  });
}

/** A hash of everything that shapes a fresh database, to key cached templates. */
export async function schemaHash(rootDir: string): Promise<string> {
  const parts = [
    ...(await bootstrapFiles()).map((f) => `b/${f.name}\n${f.sql}`),
    ...[...(await emulatedExtensionFiles())].map(([name, text]) => `e/${name}\n${text}`),
    ...(await migrationFiles(rootDir)).map((f) => `m/${f.name}\n${f.sql}`),
    `s/${(await seedFile(rootDir))?.sql ?? ""}`,
    `a/${await autoExpose(rootDir)}`,
  ];
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\n\0")));
  return Array.from(new Uint8Array(digest).slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
}
