/**
 * Where bytes live and what a failed write leaves behind. The byte stores and the multipart
 * parser are tested directly; atomicity through a storage app built over the test platform's
 * database with a byte store the test can inspect; persistence with a platform on disk.
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { type ByteStore, DiskByteStore, MemoryByteStore, sweepOrphans } from "../../stack/storage/bytes.ts";
import { createStorageApp } from "../../stack/storage/app.ts";
import { parseMultipart } from "../../stack/storage/upload.ts";
import { StorageError } from "../../stack/storage/errors.ts";
import { startPlatform } from "../../stack/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { createUser, platformTest } from "../helpers/platform.ts";
import { createBucket, ownFolderPolicies } from "./helpers.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("memory and disk stores keep, return and drop bytes by key", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const store of [new MemoryByteStore(), new DiskByteStore(`${dir}/objects`)] as ByteStore[]) {
      const key = crypto.randomUUID();
      assert.equal(await store.get(key), null);
      await store.put(key, bytes("abc"));
      assert.deepEqual(await store.get(key), bytes("abc"));
      assert.deepEqual(await Array.fromAsync(store.keys()), [key]);
      await store.delete(key);
      await store.delete(key); // idempotent
      assert.equal(await store.get(key), null);
      // Keys are never paths: anything but a UUID is refused before touching the disk.
      await assert.rejects(() => store.put("../../etc/passwd", bytes("x")), /invalid byte store key/);
    }
    const disk = new DiskByteStore(`${dir}/objects`);
    const key = crypto.randomUUID();
    await disk.put(key, bytes("on disk"));
    assert.equal(await Deno.readTextFile(`${dir}/objects/${key.slice(0, 2)}/${key}`), "on disk");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sweepOrphans drops unreferenced bytes and interrupted temp files", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const disk = new DiskByteStore(dir);
    const [live, orphan] = [crypto.randomUUID(), crypto.randomUUID()];
    await disk.put(live, bytes("live"));
    await disk.put(orphan, bytes("orphan"));
    const temp = `${live}.tmp-${crypto.randomUUID()}`;
    await Deno.writeTextFile(`${dir}/${live.slice(0, 2)}/${temp}`, "half");
    const removed = await sweepOrphans(
      disk,
      (keys) => Promise.resolve(new Set(keys.filter((k) => k === live))),
    );
    assert.equal(removed, 2);
    assert.deepEqual(await Array.fromAsync(disk.keys()), [live]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseMultipart reads storage-js's form, including the file under an empty field name", async () => {
  const form = new FormData();
  form.append("cacheControl", "3600");
  form.append("metadata", JSON.stringify({ a: "b" }));
  form.append("", new Blob([new Uint8Array([0, 13, 10, 45, 45, 255])], { type: "image/png" }), "x.png");
  const res = new Response(form);
  const body = new Uint8Array(await res.arrayBuffer());
  const parts = parseMultipart(body, res.headers.get("content-type")!);
  assert.deepEqual(parts.map((x) => [x.name, x.filename, x.contentType]), [
    ["cacheControl", null, null],
    ["metadata", null, null],
    ["", "x.png", "image/png"],
  ]);
  assert.deepEqual(parts[2].data, new Uint8Array([0, 13, 10, 45, 45, 255]));
  assert.throws(() => parseMultipart(bytes("garbage"), "multipart/form-data; boundary=zzz"), StorageError);
  assert.throws(() => parseMultipart(body, "multipart/form-data"), StorageError);
});

/** A storage app over the platform's database, with bytes the test can see. */
function appOver(p: Platform, store: ByteStore) {
  const app = createStorageApp({ db: p.db, bytes: store, jwtSecret: p.config.jwtSecret });
  return (
    method: string,
    path: string,
    token: string,
    body?: BodyInit,
    headers: Record<string, string> = {},
  ) =>
    app.fetch(
      new Request(`http://storage.local${path}`, {
        method,
        body,
        headers: { Authorization: `Bearer ${token}`, ...headers },
      }),
    );
}

platformTest(
  "refused and failed writes leave no bytes; replaced and removed bytes are dropped",
  async (p) => {
    const bucket = await createBucket(p);
    await ownFolderPolicies(p, bucket);
    const store = new MemoryByteStore();
    const call = appOver(p, store);
    const user = await createUser(p);
    const svc = p.config.serviceRoleKey;

    // RLS refuses: nothing stored.
    const refused = await call("POST", `/object/${bucket}/elsewhere/a.txt`, user.accessToken, "x");
    assert.equal((await refused.json()).statusCode, "403");
    assert.equal(store.size, 0);

    // A trigger fails the row write after the bytes were written: the bytes go again.
    await p.db.exec(`
    create function public.refuse_boom() returns trigger language plpgsql as $$
    begin
      if new.name like '%boom%' then raise exception 'refused by trigger'; end if;
      return new;
    end $$;
    create trigger refuse_boom before insert or update on storage.objects
      for each row execute function public.refuse_boom();
  `);
    const boom = await call("POST", `/object/${bucket}/${user.id}/boom.txt`, user.accessToken, "x");
    assert.deepEqual(await boom.json(), {
      statusCode: "400",
      code: "InvalidRequest",
      error: "InvalidRequest",
      message: "refused by trigger",
    });
    assert.equal(store.size, 0);

    // Upsert and update replace: one object, one set of bytes.
    const path = `/object/${bucket}/${user.id}/a.txt`;
    assert.equal((await call("POST", path, user.accessToken, "v1")).status, 200);
    assert.equal((await call("POST", path, user.accessToken, "v2", { "x-upsert": "true" })).status, 200);
    assert.equal((await call("PUT", path, user.accessToken, "v3")).status, 200);
    assert.equal(store.size, 1);
    assert.equal(await (await call("GET", path, user.accessToken)).text(), "v3");

    // Move renames the row and keeps its bytes; copy makes its own.
    const move = await call(
      "POST",
      "/object/move",
      user.accessToken,
      JSON.stringify({ bucketId: bucket, sourceKey: `${user.id}/a.txt`, destinationKey: `${user.id}/b.txt` }),
      { "content-type": "application/json" },
    );
    assert.equal(move.status, 200);
    await move.body?.cancel();
    assert.equal(store.size, 1);
    const copy = await call(
      "POST",
      "/object/copy",
      user.accessToken,
      JSON.stringify({ bucketId: bucket, sourceKey: `${user.id}/b.txt`, destinationKey: `${user.id}/c.txt` }),
      { "content-type": "application/json" },
    );
    assert.equal(copy.status, 200);
    await copy.body?.cancel();
    assert.equal(store.size, 2);

    const removed = await call(
      "DELETE",
      `/object/${bucket}`,
      svc,
      JSON.stringify({ prefixes: [`${user.id}/b.txt`, `${user.id}/c.txt`] }),
      { "content-type": "application/json" },
    );
    assert.equal((await removed.json()).length, 2);
    assert.equal(store.size, 0);
    await p.db.exec(`drop trigger refuse_boom on storage.objects; drop function public.refuse_boom()`);
  },
);

platformTest("when the byte store fails, no row is written and the error is a 500", async (p) => {
  const bucket = await createBucket(p);
  const failing: ByteStore = {
    put: () => Promise.reject(new Error("disk full")),
    get: () => Promise.resolve(null),
    delete: () => Promise.resolve(),
    keys: async function* () {},
  };
  const call = appOver(p, failing);
  const original = console.error;
  console.error = () => {}; // the app logs the unexpected failure; keep the test output clean
  try {
    const res = await call("POST", `/object/${bucket}/a.txt`, p.config.serviceRoleKey, "x");
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), {
      statusCode: "500",
      code: "InternalError",
      error: "InternalError",
      message: "Internal server error",
    });
  } finally {
    console.error = original;
  }
  const rows = await p.db.query(`select 1 from storage.objects where bucket_id = $1`, [bucket]);
  assert.equal(rows.rows.length, 0);
});

Deno.test({
  name: "a persistent platform keeps bytes under dataDir/storage across restarts",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dataDir = await Deno.makeTempDir();
    const opts = { dataDir, apiPort: 0, bcryptCost: 4 };
    try {
      let p = await startPlatform(opts);
      let sb = createClient(p.url, p.config.serviceRoleKey, { auth: { persistSession: false } }).storage;
      assert.equal((await sb.createBucket("kept")).error, null);
      assert.equal((await sb.from("kept").upload("dir/file.txt", new Blob(["persisted"]))).error, null);
      const version = (await p.db.query<{ version: string }>(
        `select version from storage.objects where name = 'dir/file.txt'`,
      )).rows[0].version;
      const file = `${dataDir}/storage/objects/${version.slice(0, 2)}/${version}`;
      assert.equal(await Deno.readTextFile(file), "persisted");
      await p.stop();

      // Bytes no row points at (a crash between writing bytes and committing) are swept at start.
      const orphan = crypto.randomUUID();
      await Deno.mkdir(`${dataDir}/storage/objects/${orphan.slice(0, 2)}`, { recursive: true });
      await Deno.writeTextFile(`${dataDir}/storage/objects/${orphan.slice(0, 2)}/${orphan}`, "orphan");

      p = await startPlatform(opts);
      sb = createClient(p.url, p.config.serviceRoleKey, { auth: { persistSession: false } }).storage;
      assert.equal(await (await sb.from("kept").download("dir/file.txt")).data?.text(), "persisted");
      await assert.rejects(() => Deno.stat(`${dataDir}/storage/objects/${orphan.slice(0, 2)}/${orphan}`));
      await p.stop();
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
