/**
 * Where object bytes live. Each stored version of an object gets its own key (a random UUID,
 * kept in storage.objects.version), so a write never touches the bytes a committed row points
 * at: new bytes go under a new key, the row switches to it in a transaction, and only then are
 * the old bytes dropped. Keys are never derived from object names, so no name can reach outside
 * the store's folder.
 */
const KEY_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Bytes backed by a plain ArrayBuffer, which is what a Response body accepts. */
export type Bytes = Uint8Array<ArrayBuffer>;

export interface ByteStore {
  put(key: string, bytes: Bytes): Promise<void>;
  /** null when nothing is stored under the key. */
  get(key: string): Promise<Bytes | null>;
  /** Idempotent: deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  keys(): AsyncIterable<string>;
}

export function newByteKey(): string {
  return crypto.randomUUID();
}

function checkKey(key: string): string {
  if (!KEY_RE.test(key)) throw new Error(`invalid byte store key: ${JSON.stringify(key)}`);
  return key;
}

/** A synchronous step as a promise, so that its errors reject (as the disk store's do) instead of throwing. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Ephemeral platforms (tests): bytes in a Map, gone with the process. */
export class MemoryByteStore implements ByteStore {
  readonly #data = new Map<string, Bytes>();

  put(key: string, bytes: Bytes): Promise<void> {
    return settle(() => void this.#data.set(checkKey(key), bytes.slice()));
  }

  get(key: string): Promise<Bytes | null> {
    return settle(() => this.#data.get(checkKey(key))?.slice() ?? null);
  }

  delete(key: string): Promise<void> {
    return settle(() => void this.#data.delete(checkKey(key)));
  }

  async *keys(): AsyncIterable<string> {
    for (const k of [...this.#data.keys()]) yield k;
  }

  get size(): number {
    return this.#data.size;
  }
}

/**
 * Persistent platforms: one file per key under `<root>/<first two hex chars>/<key>`. A file is
 * written under a temporary name and renamed, so a crash never leaves a partial file under a key.
 */
export class DiskByteStore implements ByteStore {
  constructor(readonly root: string) {}

  #path(key: string): string {
    checkKey(key);
    return `${this.root}/${key.slice(0, 2)}/${key}`;
  }

  async put(key: string, bytes: Bytes): Promise<void> {
    const path = this.#path(key);
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const tmp = `${path}.tmp-${crypto.randomUUID()}`;
    try {
      await Deno.writeFile(tmp, bytes);
      await Deno.rename(tmp, path);
    } catch (err) {
      await Deno.remove(tmp).catch((rmErr) => {
        if (!(rmErr instanceof Deno.errors.NotFound)) {
          console.error("storage: leftover temp file", tmp, rmErr);
        }
      });
      throw err;
    }
  }

  async get(key: string): Promise<Bytes | null> {
    try {
      return await Deno.readFile(this.#path(key));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await Deno.remove(this.#path(key));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }

  async *keys(): AsyncIterable<string> {
    let shards: Deno.DirEntry[];
    try {
      shards = await Array.fromAsync(Deno.readDir(this.root));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      throw err;
    }
    for (const shard of shards) {
      if (!shard.isDirectory) continue;
      for await (const entry of Deno.readDir(`${this.root}/${shard.name}`)) {
        // Temp files of writes cut short by a crash are listed too, so a sweep removes them.
        if (entry.isFile) yield entry.name;
      }
    }
  }

  /** Removes a leftover temp file by its listed name (see keys()). */
  async deleteListed(name: string): Promise<void> {
    if (KEY_RE.test(name)) return this.delete(name);
    const m = /^([0-9a-f-]{36})\.tmp-[0-9a-f-]{36}$/.exec(name);
    if (!m || !KEY_RE.test(m[1])) return;
    try {
      await Deno.remove(`${this.root}/${name.slice(0, 2)}/${name}`);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
}

/**
 * Drops bytes no storage.objects row points at: what a crash between writing bytes and
 * committing the row (or between committing and deleting replaced bytes) leaves behind. Run at
 * start, before any request can be writing.
 */
export async function sweepOrphans(
  store: DiskByteStore,
  referenced: (keys: string[]) => Promise<Set<string>>,
): Promise<number> {
  const listed: string[] = [];
  for await (const k of store.keys()) listed.push(k);
  const keys = listed.filter((k) => KEY_RE.test(k));
  const live = keys.length ? await referenced(keys) : new Set<string>();
  let removed = 0;
  for (const name of listed) {
    if (live.has(name)) continue;
    await store.deleteListed(name);
    removed++;
  }
  return removed;
}
