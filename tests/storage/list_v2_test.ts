/**
 * storage-js `listV2()`: POST /storage/v1/object/list-v2/{bucket}. Matches Storage's
 * listObjectsV2 route (supabase/storage src/http/routes/object/listObjectsV2.ts) and
 * ObjectStorage.listObjectsV2 (src/storage/object.ts): `{hasNext, nextCursor, folders, objects}`,
 * folders named with a trailing '/' and a `key`, flat listing without `with_delimiter`, a
 * continuation cursor that keeps the sort, and RLS deciding what a caller sees.
 */
import assert from "node:assert/strict";
import { createUser, platformTest, serviceClient } from "../helpers/platform.ts";
import { createBucket, ownFolderPolicies } from "./helpers.ts";

const NAMES = [
  "a.txt",
  "docs.txt",
  "docs/one.txt",
  "docs/two.txt",
  "docs/deep/three.txt",
  "img/x.png",
  "z.txt",
];

async function seeded(p: Parameters<Parameters<typeof platformTest>[1]>[0]) {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  for (const name of NAMES) {
    const { error } = await sb.upload(name, new Blob([name], { type: "text/plain" }));
    assert.equal(error, null);
  }
  return { bucket, sb };
}

platformTest("listV2 with_delimiter: one level, folders and files apart", async (p) => {
  const { sb } = await seeded(p);
  const { data, error } = await sb.listV2({ with_delimiter: true });
  assert.equal(error, null);
  assert.equal(data!.hasNext, false);
  assert.equal(data!.nextCursor, undefined);
  assert.deepEqual(data!.folders.map((f) => [f.name, f.key]), [["docs/", "docs"], ["img/", "img"]]);
  assert.deepEqual(data!.objects.map((o) => [o.name, o.key]), [
    ["a.txt", "a.txt"],
    ["docs.txt", "docs.txt"],
    ["z.txt", "z.txt"],
  ]);
  const a = data!.objects[0];
  assert.match(a.id, /^[0-9a-f-]{36}$/);
  assert.equal(a.metadata?.size, 5);
  assert.ok(a.created_at && a.updated_at);

  const inDocs = await sb.listV2({ prefix: "docs/", with_delimiter: true });
  assert.equal(inDocs.error, null);
  assert.deepEqual(inDocs.data!.folders.map((f) => [f.name, f.key]), [["docs/deep/", "deep"]]);
  assert.deepEqual(inDocs.data!.objects.map((o) => [o.name, o.key]), [
    ["docs/one.txt", "one.txt"],
    ["docs/two.txt", "two.txt"],
  ]);
});

platformTest("listV2 without delimiter lists every object under the prefix, flat", async (p) => {
  const { sb } = await seeded(p);
  const all = await sb.listV2();
  assert.equal(all.error, null);
  assert.deepEqual(all.data!.folders, []);
  assert.deepEqual(all.data!.objects.map((o) => o.name), [...NAMES].sort());
  // A prefix is a plain string prefix, not a folder.
  const docs = await sb.listV2({ prefix: "doc" });
  assert.deepEqual(docs.data!.objects.map((o) => o.name), [
    "docs.txt",
    "docs/deep/three.txt",
    "docs/one.txt",
    "docs/two.txt",
  ]);
});

platformTest("listV2 pages with a cursor that keeps the sort, folders included", async (p) => {
  const { sb } = await seeded(p);
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const { data, error } = await sb.listV2({ with_delimiter: true, limit: 1, cursor });
    assert.equal(error, null);
    seen.push(...data!.folders.map((f) => f.name), ...data!.objects.map((o) => o.name));
    if (!data!.hasNext) break;
    assert.ok(data!.nextCursor);
    cursor = data!.nextCursor;
  }
  // By name a folder sorts as "docs/", after "docs.txt" ('.' < '/'), as Storage's seek does.
  assert.deepEqual(seen, ["a.txt", "docs.txt", "docs/", "img/", "z.txt"]);

  // The same, descending: a cursor naming a folder resumes past all of it.
  const down: string[] = [];
  cursor = undefined;
  for (let page = 0; page < 10; page++) {
    const { data } = await sb.listV2({
      with_delimiter: true,
      limit: 2,
      cursor,
      sortBy: { column: "name", order: "desc" },
    });
    down.push(...data!.folders.map((f) => f.name), ...data!.objects.map((o) => o.name));
    if (!data!.hasNext) break;
    cursor = data!.nextCursor;
  }
  assert.deepEqual(down.slice(0, 2), ["img/", "z.txt"]); // one page: folders first, then files
  assert.deepEqual([...down].sort(), ["a.txt", "docs.txt", "docs/", "img/", "z.txt"]);

  // Descending by name, two a page, flat.
  const desc: string[] = [];
  cursor = undefined;
  for (let page = 0; page < 10; page++) {
    const { data } = await sb.listV2({ limit: 2, cursor, sortBy: { column: "name", order: "desc" } });
    desc.push(...data!.objects.map((o) => o.name));
    if (!data!.hasNext) break;
    cursor = data!.nextCursor;
  }
  assert.deepEqual(desc, [...NAMES].sort().reverse());

  // By created_at: every object exactly once across pages (ties broken by name).
  const byTime: string[] = [];
  cursor = undefined;
  for (let page = 0; page < 10; page++) {
    const { data } = await sb.listV2({ limit: 4, cursor, sortBy: { column: "created_at", order: "asc" } });
    byTime.push(...data!.objects.map((o) => o.name));
    if (!data!.hasNext) break;
    cursor = data!.nextCursor;
  }
  assert.deepEqual([...byTime].sort(), [...NAMES].sort());
});

platformTest("listV2 errors: unknown bucket, a cursor that does not decode", async (p) => {
  const sb = serviceClient(p).storage;
  const missing = await sb.from("no-such-bucket-v2").listV2();
  assert.equal(missing.data, null);
  assert.equal(missing.error?.message, "Bucket not found");
  const bucket = await createBucket(p);
  const bad = await sb.from(bucket).listV2({ cursor: "bm9wZQ==" }); // "nope"
  assert.equal(bad.data, null);
  assert.ok(bad.error);
});

platformTest("listV2 under RLS: a user lists only their own folder", async (p) => {
  const bucket = await createBucket(p);
  await ownFolderPolicies(p, bucket);
  const user = await createUser(p, "v2");
  const uid = user.id;
  const admin = serviceClient(p).storage.from(bucket);
  await admin.upload(`${uid}/mine.txt`, new Blob(["m"]));
  await admin.upload(`someone-else/theirs.txt`, new Blob(["t"]));
  const client = user.client;
  const { data, error } = await client.storage.from(bucket).listV2({ with_delimiter: true });
  assert.equal(error, null);
  assert.deepEqual(data!.folders.map((f) => f.name), [`${uid}/`]);
  const flat = await client.storage.from(bucket).listV2();
  assert.deepEqual(flat.data!.objects.map((o) => o.name), [`${uid}/mine.txt`]);
});
