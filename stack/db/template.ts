/**
 * Migrated template databases. Booting PGlite and applying every migration takes seconds; a
 * template (a tarball of the migrated data folder, cached on disk under .cache/ keyed by the
 * hash of bootstrap + migrations + seed) makes every later in-memory database a copy.
 */
import { openDatabase, type PGlite } from "./database.ts";
import { migrate, schemaHash } from "./migrate.ts";

const memo = new Map<string, Promise<Blob>>();

async function buildTemplate(rootDir: string, hash: string): Promise<Blob> {
  const cacheDir = `${rootDir}/.cache`;
  const path = `${cacheDir}/template-${hash}.tar`;
  try {
    return new Blob([await Deno.readFile(path)]);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const db = await openDatabase();
  try {
    await migrate(db, rootDir);
    const blob = await db.dumpDataDir("none");
    await Deno.mkdir(cacheDir, { recursive: true });
    // Write then rename, so that parallel test processes never read a half-written file.
    const tmp = `${path}.${crypto.randomUUID()}`;
    await Deno.writeFile(tmp, new Uint8Array(await blob.arrayBuffer()));
    await Deno.rename(tmp, path);
    await removeStaleTemplates(cacheDir, path);
    return blob;
  } finally {
    await db.close();
  }
}

/**
 * Each template is tens of megabytes and every schema change makes a new one: keep only the
 * current. Another process may be removing the same files, so a vanished file is fine.
 */
async function removeStaleTemplates(cacheDir: string, keep: string): Promise<void> {
  for await (const e of Deno.readDir(cacheDir)) {
    const path = `${cacheDir}/${e.name}`;
    if (!e.isFile || path === keep || !/^template-[0-9a-f]+\.tar$/.test(e.name)) continue;
    await Deno.remove(path).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
}

export async function templateBlob(rootDir: string): Promise<Blob> {
  const hash = await schemaHash(rootDir);
  let p = memo.get(hash);
  if (!p) {
    p = buildTemplate(rootDir, hash);
    memo.set(hash, p);
    p.catch(() => memo.delete(hash));
  }
  return p;
}

/** An in-memory database, migrated and seeded, copied from the cached template. */
export async function openFromTemplate(rootDir: string): Promise<PGlite> {
  return openDatabase({ loadDataDir: await templateBlob(rootDir) });
}
