/**
 * The local platform's Postgres: PGlite (Postgres compiled to WASM) with the extensions a project
 * may enable, available as on a hosted project: pgvector, pg_trgm, pgcrypto and uuid-ossp, and
 * SQL emulations of pg_cron, pg_net and supabase_vault. Available is not enabled: the bootstrap
 * enables only the hosted defaults (uuid-ossp, pgcrypto, supabase_vault) and migrations enable
 * the rest. One instance serves every part of the platform; PGlite runs one
 * statement at a time and queues the rest, and `transaction()` holds the connection for its whole
 * callback.
 */
import { MemoryFS, PGlite, type Transaction } from "@electric-sql/pglite";
import { parseTar } from "nanotar";
import { vector } from "@electric-sql/pglite-pgvector";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";
import { uuid_ossp } from "@electric-sql/pglite/contrib/uuid_ossp";

export type { PGlite, Transaction };
export type Queryable = Pick<PGlite, "query" | "exec"> | Transaction;

const extensions = { vector, pg_trgm, pgcrypto, uuid_ossp };

/**
 * Extensions `postgres` (not a superuser) may create, as supautils' `privileged_extensions`
 * allows on hosted Supabase: those PGlite ships whose control file is not already `trusted`.
 * Marking them trusted has the same effect as supautils: the script runs as the superuser and
 * the extension belongs to the role that created it.
 */
const PRIVILEGED_EXTENSIONS = ["vector"];
const EXTENSION_DIR = "/pglite/share/postgresql/extension";

/** Emscripten's file system, where PGlite unpacks extension control and script files. */
interface EmscriptenFs {
  readFile(path: string, opts: { encoding: "utf8" }): string;
  writeFile(path: string, data: string | Uint8Array, opts?: { canOwn?: boolean }): void;
  mkdirTree(path: string): void;
}

function trustPrivilegedExtensions(db: PGlite): void {
  const fs = (db as unknown as { mod: { FS: EmscriptenFs } }).mod.FS;
  for (const name of PRIVILEGED_EXTENSIONS) {
    const path = `${EXTENSION_DIR}/${name}.control`;
    const control = fs.readFile(path, { encoding: "utf8" });
    if (!/^\s*trusted\s*=/m.test(control)) fs.writeFile(path, `${control.trimEnd()}\ntrusted = true\n`);
  }
}

/**
 * Extensions hosted Supabase offers that PGlite cannot build (their work is done in C), emulated
 * in SQL with the platform's workers doing what their background workers do: a control file and
 * an install script each, in ./extensions, written into PGlite's extension directory at open.
 * So they are available, not enabled: `create extension pg_cron` (as on hosted, by a migration)
 * brings the schema into being, `drop extension` removes it, and pg_available_extensions lists
 * them. Their control files say `trusted`, for the same reason as PRIVILEGED_EXTENSIONS.
 */
const EMULATED_DIR = new URL("./extensions/", import.meta.url);

/** The emulated extensions' files (name -> text), read once per process. */
let emulatedFiles: Promise<Map<string, string>> | null = null;

export function emulatedExtensionFiles(): Promise<Map<string, string>> {
  emulatedFiles ??= (async () => {
    const files = new Map<string, string>();
    for await (const e of Deno.readDir(EMULATED_DIR)) {
      if (e.isFile && /\.(control|sql)$/.test(e.name)) {
        files.set(e.name, await Deno.readTextFile(new URL(e.name, EMULATED_DIR)));
      }
    }
    return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
  })();
  return emulatedFiles;
}

async function installEmulatedExtensions(db: PGlite): Promise<void> {
  const fs = (db as unknown as { mod: { FS: EmscriptenFs } }).mod.FS;
  for (const [name, text] of await emulatedExtensionFiles()) fs.writeFile(`${EXTENSION_DIR}/${name}`, text);
}

/** The search_path every connection starts with, as hosted Supabase sets it for `postgres`. */
export const DEFAULT_SEARCH_PATH = `"$user", public, extensions`;

export interface OpenOptions {
  /** A folder to persist the database in; omitted keeps it in memory. */
  dataDir?: string;
  /** An in-memory database's files (dataFilesOf a dumpDataDir tarball), copied in at open. */
  files?: DataFiles;
}

/**
 * The buffer pool. PGlite keeps every page in memory anyway (MEMFS, or the OS's page cache under
 * a data folder), so a miss costs a copy, not a disk read; what Postgres' default of 128MB costs is
 * its allocation at every open (about 0.6 s of the 1 s an in-memory open took). 16MB holds every
 * hot page of the suite's and the benches' databases.
 */
export const SHARED_BUFFERS = "16MB";

/** Where PGlite's data folder lives in its Emscripten file system. */
const PGDATA = "/pglite/data";

/** A data folder's directories and files, parsed once from a dumpDataDir tarball. */
export interface DataFiles {
  dirs: string[];
  files: { path: string; data: Uint8Array }[];
}

/**
 * Writes `files` as a data folder at `dir` (made if missing), for `openDatabase({ dataDir })`: how a
 * new data folder starts from the migrated template, tens of times faster than PGlite's
 * loadDataDir (which untars through the Emscripten file system: 3 s for the template).
 */
export async function writeDataFiles(files: DataFiles, dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  for (const d of files.dirs) await Deno.mkdir(`${dir}/${d}`, { recursive: true, mode: 0o700 });
  await Promise.all(files.files.map((f) => Deno.writeFile(`${dir}/${f.path}`, f.data, { mode: 0o600 })));
}

/** Parses a dumpDataDir tarball (`dumpDataDir("none")`) into DataFiles. */
export function dataFilesOf(tar: Uint8Array): DataFiles {
  const dirs = new Set<string>();
  const files: DataFiles["files"] = [];
  for (const entry of parseTar(tar)) {
    const path = entry.name.replace(/^\/+|\/+$/g, "");
    if (!path) continue;
    if (entry.type === "directory") {
      dirs.add(path);
      continue;
    }
    if (entry.type !== "file") throw new Error(`data folder tarball: unexpected ${entry.type} entry ${path}`);
    const slash = path.lastIndexOf("/");
    if (slash > 0) dirs.add(path.slice(0, slash));
    files.push({ path, data: entry.data ?? new Uint8Array(0) });
  }
  return { dirs: [...dirs].sort(), files };
}

/**
 * PGlite's in-memory file system, holding `files` when Postgres starts: each open copies the
 * parsed files in (tens of milliseconds) instead of untarring a tarball (loadDataDir: about 0.4 s
 * for the migrated template).
 */
class PreloadedMemoryFS extends MemoryFS {
  #files: DataFiles;
  constructor(files: DataFiles) {
    super();
    this.#files = files;
  }
  override initialSyncFs(): Promise<void> {
    const fs = (this.pg as unknown as { Module: { FS: EmscriptenFs } }).Module.FS;
    for (const dir of this.#files.dirs) fs.mkdirTree(`${PGDATA}/${dir}`);
    // Each database writes its own copy: MEMFS owns (and writes into) the array it is given.
    for (const f of this.#files.files) fs.writeFile(`${PGDATA}/${f.path}`, f.data.slice(), { canOwn: true });
    return Promise.resolve();
  }
}

/**
 * A fresh in-memory database's data folder, as initdb leaves it: made once per process, so that
 * every later fresh database is a copy (a few times cheaper than running initdb again; tests and
 * the template build open many). The copy is the same database: what initdb wrote, nothing more.
 * One difference from hosted Supabase, invisible to SQL but `show wal_segment_size`: WAL segments
 * of 1MB instead of 16MB, which keeps every copy of a data folder 15MB smaller.
 */
let initdbDataDir: Promise<DataFiles> | null = null;

function freshDataDir(): Promise<DataFiles> {
  if (!initdbDataDir) {
    const made = (async () => {
      // 1MB WAL segments (initdb --wal-segsize; hosted uses 16MB): a copy carries the segment its
      // checkpoint is in, and Postgres makes more as it needs them.
      const db = await PGlite.create({
        extensions,
        startParams: startParams(),
        initDbStartParams: ["--wal-segsize=1"],
      });
      try {
        return dataFilesOf(new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer()));
      } finally {
        await db.close();
      }
    })();
    made.catch(() => (initdbDataDir = null));
    initdbDataDir = made;
  }
  return initdbDataDir;
}

function startParams(): string[] {
  return [...PGlite.defaultStartParams, "-c", `shared_buffers=${SHARED_BUFFERS}`];
}

export async function openDatabase(opts: OpenOptions = {}): Promise<PGlite> {
  const db = await PGlite.create({
    dataDir: opts.dataDir,
    // A fresh in-memory database starts from a copy of initdb's output (freshDataDir).
    fs: opts.dataDir ? undefined : new PreloadedMemoryFS(opts.files ?? await freshDataDir()),
    extensions,
    startParams: startParams(),
  });
  trustPrivilegedExtensions(db);
  await installEmulatedExtensions(db);
  await db.exec(`set search_path to ${DEFAULT_SEARCH_PATH}`);
  return db;
}

/** Who is asking, as PostgREST passes it to Postgres for one request. */
export interface RequestContext {
  /** Postgres role to run as: the JWT's `role` claim, or `anon`. */
  role: string;
  /** JWT claims, with `role` included, exposed as `request.jwt.claims`. */
  claims: Record<string, unknown>;
  method?: string;
  path?: string;
  /** Lower-cased header names. */
  headers?: Record<string, string>;
  /** Schema the request targets (first on the search_path). */
  schema?: string;
  readOnly?: boolean;
  /** Exposed as `request.cookies` (JSON), as PostgREST does. */
  cookies?: Record<string, string>;
  /** Further transaction-local settings, e.g. `timezone` from `Prefer: timezone=`. */
  settings?: Record<string, string>;
}

/**
 * The one `select set_config(...)` statement that puts a request's context in place, in
 * PostgREST's order (PreQuery.hs): search_path, role, request.jwt.claims, request.method,
 * request.path, request.headers, request.cookies, then any further settings. All
 * transaction-local. Exported so that callers that pipeline their statements (the REST layer)
 * set exactly the same context as withRequestContext.
 */
export function requestContextQuery(ctx: RequestContext): { sql: string; params: string[] } {
  const schema = ctx.schema ?? "public";
  const searchPath = schema === "public"
    ? "public, extensions"
    : `"${schema.replaceAll('"', '""')}", public, extensions`;
  const settings: [string, string][] = [
    ["search_path", searchPath],
    ["role", ctx.role],
    ["request.jwt.claims", JSON.stringify({ ...ctx.claims, role: ctx.role })],
    ["request.method", ctx.method ?? ""],
    ["request.path", ctx.path ?? ""],
    ["request.headers", JSON.stringify(ctx.headers ?? {})],
    ...(ctx.cookies ? [["request.cookies", JSON.stringify(ctx.cookies)] as [string, string]] : []),
    ...Object.entries(ctx.settings ?? {}),
  ];
  const params: string[] = [];
  const calls = settings.map(([name, value]) => {
    params.push(name, value);
    return `set_config($${params.length - 1}, $${params.length}, true)`;
  });
  return { sql: `select ${calls.join(", ")}`, params };
}

/**
 * Runs `fn` in one transaction under the caller's role and claims, set the way PostgREST sets
 * them (PreQuery.hs): search_path, role, request.jwt.claims, request.method, request.path,
 * request.headers, all transaction-local. RLS then decides every row.
 */
export function withRequestContext<T>(
  db: PGlite,
  ctx: RequestContext,
  fn: (tx: Transaction) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    if (ctx.readOnly) await tx.exec("set transaction read only");
    const { sql, params } = requestContextQuery(ctx);
    await tx.query(sql, params);
    return await fn(tx);
  });
}
