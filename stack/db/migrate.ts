/**
 * Platform bootstrap, migrations and seed, applied the way the Supabase CLI applies them:
 * bootstrap SQL first (what hosted Supabase provides), then supabase/migrations/*.sql in
 * filename order, each once, recorded in supabase_migrations.schema_migrations; then
 * supabase/seed.sql, on a fresh database only.
 */
import type { PGlite } from "./database.ts";

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

/** Brings a database up to date. Each file runs in its own transaction: a failing one leaves nothing behind. */
export async function migrate(db: PGlite, rootDir: string): Promise<MigrateResult> {
  const fresh = !(await isBootstrapped(db));
  if (fresh) {
    for (const file of await bootstrapFiles()) {
      try {
        await db.transaction((tx) => tx.exec(file.sql));
      } catch (err) {
        throw new MigrationError(`bootstrap/${file.name}`, err);
      }
    }
  }
  const done = new Set(
    (await db.query<{ version: string }>(`select version from supabase_migrations.schema_migrations`)).rows
      .map((r) => r.version),
  );
  const applied: string[] = [];
  for (const file of await migrationFiles(rootDir)) {
    const { version, name } = parseMigrationName(file.name);
    if (done.has(version)) continue;
    try {
      await db.transaction(async (tx) => {
        await tx.exec(file.sql);
        await tx.query(
          `insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)`,
          [version, name, [file.sql]],
        );
      });
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
        await db.transaction((tx) => tx.exec(seed.sql));
      } catch (err) {
        throw new MigrationError(seed.name, err);
      }
      seeded = true;
    }
  }
  // Every statement above ran as the superuser; the connection keeps the default path.
  await db.exec(`reset role; set search_path to "$user", public, extensions`);
  return { fresh, applied, seeded };
}

/** A hash of everything that shapes a fresh database, to key cached templates. */
export async function schemaHash(rootDir: string): Promise<string> {
  const parts = [
    ...(await bootstrapFiles()).map((f) => `b/${f.name}\n${f.sql}`),
    ...(await migrationFiles(rootDir)).map((f) => `m/${f.name}\n${f.sql}`),
    `s/${(await seedFile(rootDir))?.sql ?? ""}`,
  ];
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\n\0")));
  return Array.from(new Uint8Array(digest).slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
}
