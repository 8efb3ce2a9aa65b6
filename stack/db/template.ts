/**
 * Migrated template databases. Booting PGlite and applying every migration takes seconds; a
 * template (a tarball of the migrated data folder, cached on disk under .cache/ keyed by the
 * hash of bootstrap + migrations + seed) makes every later in-memory database a copy, and every
 * new data folder (`deno task start` on a fresh or reset folder) starts from it too.
 *
 * The tarball holds only what a start needs: the template is checkpointed before it is dumped,
 * and of pg_wal only the segments from the checkpoint's redo point on are kept (Postgres keeps
 * recycled segments for later use; it makes new ones when it needs them), and segments are 1MB
 * (database.ts freshDataDir). The migrated template's tarball went from 69 to 36 MB, and with it
 * the cost of every copy.
 */
import { createTar } from "nanotar";
import { type DataFiles, dataFilesOf, openDatabase, type PGlite } from "./database.ts";
import { migrate, schemaHash } from "./migrate.ts";

/** Bumped when the tarball's contents change for a reason the schema hash does not see. */
const FORMAT = "v3";

const memo = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

async function buildTemplate(rootDir: string, hash: string): Promise<Uint8Array<ArrayBuffer>> {
  const cacheDir = `${rootDir}/.cache`;
  const path = `${cacheDir}/template-${FORMAT}-${hash}.tar`;
  try {
    return await Deno.readFile(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const db = await openDatabase();
  try {
    await migrate(db, rootDir);
    const tar = await dumpCheckpointed(db);
    await Deno.mkdir(cacheDir, { recursive: true });
    // Write then rename, so that parallel test processes never read a half-written file.
    const tmp = `${path}.${crypto.randomUUID()}`;
    await Deno.writeFile(tmp, tar);
    await Deno.rename(tmp, path);
    await removeStaleTemplates(cacheDir, path);
    return tar;
  } finally {
    await db.close();
  }
}

/** The data folder as a tarball after a checkpoint, without the WAL segments a start does not read. */
async function dumpCheckpointed(db: PGlite): Promise<Uint8Array<ArrayBuffer>> {
  await db.exec("checkpoint");
  const { rows } = await db.query<{ redo: string; current: string }>(
    `select redo_wal_file as redo, pg_walfile_name(pg_current_wal_lsn()) as current from pg_control_checkpoint()`,
  );
  const { redo, current } = rows[0];
  const files = dataFilesOf(new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer()));
  const needed = (path: string) => {
    const m = /^pg_wal\/([0-9A-F]{24})$/.exec(path);
    return !m || (m[1] >= redo && m[1] <= current);
  };
  return <Uint8Array<ArrayBuffer>> createTar([
    ...files.dirs.map((name) => ({ name: `${name}/` })),
    ...files.files.filter((f) => needed(f.path)).map((f) => ({ name: f.path, data: f.data })),
  ]);
}

/**
 * Each template is tens of megabytes and every schema change makes a new one: keep only the
 * current. Another process may be removing the same files, so a vanished file is fine.
 */
async function removeStaleTemplates(cacheDir: string, keep: string): Promise<void> {
  for await (const e of Deno.readDir(cacheDir)) {
    const path = `${cacheDir}/${e.name}`;
    if (!e.isFile || path === keep || !/^template-(v[0-9]+-)?[0-9a-f]+\.tar$/.test(e.name)) continue;
    await Deno.remove(path).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
}

function templateTar(rootDir: string): Promise<Uint8Array<ArrayBuffer>> {
  return schemaHash(rootDir).then((hash) => {
    let p = memo.get(hash);
    if (!p) {
      p = buildTemplate(rootDir, hash);
      memo.set(hash, p);
      p.catch(() => memo.delete(hash));
    }
    return p;
  });
}

/** Parsed once per tarball (a schema change makes a new one, and the old one can go). */
const parsed = new WeakMap<Uint8Array, DataFiles>();

/** The migrated template's files, parsed once per process. */
export async function templateFiles(rootDir: string): Promise<DataFiles> {
  const tar = await templateTar(rootDir);
  let files = parsed.get(tar);
  if (!files) parsed.set(tar, files = dataFilesOf(tar));
  return files;
}

/** An in-memory database, migrated and seeded, copied from the cached template. */
export async function openFromTemplate(rootDir: string): Promise<PGlite> {
  return openDatabase({ files: await templateFiles(rootDir) });
}
