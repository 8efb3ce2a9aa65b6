/**
 * Bucket CRUD through supabase-js storage: create, get, list, update, empty, delete, and the
 * refusals (duplicates, bad names, non-empty deletes, users without bucket policies).
 */
import assert from "node:assert/strict";
import { anonClient, createUser, platformTest, serviceClient } from "../helpers/platform.ts";
import { createBucket, uniqueBucket } from "./helpers.ts";

platformTest("create, get, list, update and delete a bucket", async (p) => {
  const storage = serviceClient(p).storage;
  const id = uniqueBucket("crud");
  const created = await storage.createBucket(id, {
    public: false,
    fileSizeLimit: "1MB",
    allowedMimeTypes: ["image/png"],
  });
  assert.deepEqual(created, { data: { name: id }, error: null });

  const got = await storage.getBucket(id);
  assert.equal(got.error, null);
  assert.equal(got.data?.id, id);
  assert.equal(got.data?.name, id);
  assert.equal(got.data?.public, false);
  assert.equal(got.data?.file_size_limit, 1_000_000);
  assert.deepEqual(got.data?.allowed_mime_types, ["image/png"]);
  assert.equal(got.data?.type, "STANDARD");
  assert.ok(got.data?.created_at && got.data?.updated_at);

  const listed = await storage.listBuckets({ search: id });
  assert.deepEqual(listed.data?.map((b) => b.id), [id]);

  const updated = await storage.updateBucket(id, {
    public: true,
    fileSizeLimit: null,
    allowedMimeTypes: null,
  });
  assert.deepEqual(updated, { data: { message: "Successfully updated" }, error: null });
  const after = await storage.getBucket(id);
  assert.equal(after.data?.public, true);
  assert.equal(after.data?.file_size_limit, null);
  assert.equal(after.data?.allowed_mime_types, null);

  assert.deepEqual(await storage.deleteBucket(id), {
    data: { message: "Successfully deleted" },
    error: null,
  });
  const gone = await storage.getBucket(id);
  assert.equal(gone.data, null);
  assert.equal((gone.error as { statusCode?: string }).statusCode, "404");
  assert.equal(gone.error?.message, "Bucket not found");
});

platformTest("listBuckets sorts, pages and searches", async (p) => {
  const storage = serviceClient(p).storage;
  const tag = uniqueBucket("list");
  for (const s of ["c", "a", "b"]) assert.equal((await storage.createBucket(`${tag}-${s}`)).error, null);
  const asc = await storage.listBuckets({ search: tag, sortColumn: "name", sortOrder: "asc" });
  assert.deepEqual(asc.data?.map((b) => b.id), [`${tag}-a`, `${tag}-b`, `${tag}-c`]);
  const page = await storage.listBuckets({
    search: tag,
    sortColumn: "name",
    sortOrder: "desc",
    limit: 1,
    offset: 1,
  });
  assert.deepEqual(page.data?.map((b) => b.id), [`${tag}-b`]);
});

platformTest("duplicate and invalid buckets are refused with Storage's codes", async (p) => {
  const storage = serviceClient(p).storage;
  const id = await createBucket(p);
  const dup = await storage.createBucket(id);
  assert.equal((dup.error as { status?: number }).status, 400);
  assert.equal((dup.error as { statusCode?: string }).statusCode, "409");
  assert.equal(dup.error?.message, "The resource already exists");

  const res = await fetch(`${p.url}/storage/v1/bucket`, {
    method: "POST",
    headers: { Authorization: `Bearer ${p.config.serviceRoleKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bad/name" }),
  });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    statusCode: "400",
    code: "InvalidBucketName",
    error: "Invalid Input",
    message: "Bucket name invalid",
  });

  const tooBig = await storage.createBucket(`${id}-big`, { public: false, fileSizeLimit: "1GB" });
  assert.equal((tooBig.error as { statusCode?: string }).statusCode, "413");
  const badSize = await storage.createBucket(`${id}-size`, { public: false, fileSizeLimit: "lots" });
  assert.equal((badSize.error as { statusCode?: string }).statusCode, "400");
  const badMime = await storage.createBucket(`${id}-mime`, {
    public: false,
    allowedMimeTypes: ["not a type"],
  });
  assert.equal((badMime.error as { statusCode?: string }).statusCode, "400");

  const notJson = await fetch(`${p.url}/storage/v1/bucket`, {
    method: "POST",
    headers: { Authorization: `Bearer ${p.config.serviceRoleKey}`, "content-type": "application/json" },
    body: "{not json",
  });
  assert.equal(notJson.status, 400);
  assert.equal((await notJson.json()).code, "InvalidRequest");
  assert.equal(
    (await storage.updateBucket("no-such-bucket", { public: true })).error?.message,
    "Bucket not found",
  );
  assert.equal((await storage.deleteBucket("no-such-bucket")).error?.message, "Bucket not found");
});

platformTest("a bucket with objects cannot be deleted until emptied", async (p) => {
  const storage = serviceClient(p).storage;
  const id = await createBucket(p);
  for (const name of ["a.txt", "dir/b.txt"]) {
    assert.equal((await storage.from(id).upload(name, new Blob([name]))).error, null);
  }
  const refused = await storage.deleteBucket(id);
  assert.equal((refused.error as { statusCode?: string }).statusCode, "409");
  assert.equal(refused.error?.message, "The bucket you tried to delete is not empty");

  assert.deepEqual(await storage.emptyBucket(id), { data: { message: "Successfully emptied" }, error: null });
  assert.deepEqual((await storage.from(id).list()).data, []);
  assert.equal((await storage.deleteBucket(id)).error, null);
});

platformTest("without bucket policies, users and anon can neither create nor see buckets", async (p) => {
  const id = await createBucket(p);
  const user = await createUser(p);
  for (const client of [user.client, anonClient(p)]) {
    const create = await client.storage.createBucket(uniqueBucket("nope"));
    assert.equal((create.error as { statusCode?: string }).statusCode, "403");
    assert.equal(create.error?.message, "new row violates row-level security policy");
    assert.equal((await client.storage.getBucket(id)).error?.message, "Bucket not found");
    assert.deepEqual((await client.storage.listBuckets()).data, []);
    assert.equal((await client.storage.deleteBucket(id)).error?.message, "Bucket not found");
    assert.equal(
      (await client.storage.updateBucket(id, { public: true })).error?.message,
      "Bucket not found",
    );
  }
  assert.equal((await serviceClient(p).storage.getBucket(id)).data?.public, false);
});

platformTest("with a bucket policy, a user creates buckets they own", async (p) => {
  await p.db.exec(`
    create policy "users create buckets" on storage.buckets for insert to authenticated with check (true);
    create policy "owners read buckets" on storage.buckets for select to authenticated
      using (owner_id = (select auth.uid()::text));
  `);
  const user = await createUser(p);
  const id = uniqueBucket("mine");
  assert.equal((await user.client.storage.createBucket(id)).error, null);
  const got = await user.client.storage.getBucket(id);
  assert.equal(got.data?.owner, user.id);
  const other = await createUser(p);
  assert.equal((await other.client.storage.getBucket(id)).error?.message, "Bucket not found");
});
