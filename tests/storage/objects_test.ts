/**
 * Objects through supabase-js storage, as a frontend uses it: upload (Blob, raw bodies, upsert,
 * update), download, info, exists, list, move, copy, remove, and the bucket's limits. Run as
 * the service role so that RLS (tested in security_test.ts) stays out of the way.
 */
import assert from "node:assert/strict";
import { platformTest, serviceClient } from "../helpers/platform.ts";
import { createBucket, text } from "./helpers.ts";

platformTest("upload a Blob, download it, and read its row", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  const up = await sb.upload("docs/hello.txt", new Blob(["hello world"], { type: "text/plain" }), {
    metadata: { purpose: "greeting" },
  });
  assert.equal(up.error, null);
  assert.equal(up.data?.path, "docs/hello.txt");
  assert.equal(up.data?.fullPath, `${bucket}/docs/hello.txt`);
  assert.match(up.data!.id, /^[0-9a-f-]{36}$/);

  const down = await sb.download("docs/hello.txt");
  assert.equal(down.error, null);
  assert.equal(await text(down.data), "hello world");

  const rows = await p.db.query<{ id: string; metadata: Record<string, unknown>; user_metadata: unknown }>(
    `select id, metadata, user_metadata from storage.objects where bucket_id = $1 and name = 'docs/hello.txt'`,
    [bucket],
  );
  assert.equal(rows.rows[0].id, up.data!.id);
  assert.equal(rows.rows[0].metadata.size, 11);
  assert.equal(rows.rows[0].metadata.mimetype, "text/plain");
  assert.equal(rows.rows[0].metadata.cacheControl, "max-age=3600");
  assert.equal(rows.rows[0].metadata.eTag, '"5eb63bbbe01eeed093cb22bb8f5acdc3"'); // md5("hello world")
  assert.deepEqual(rows.rows[0].user_metadata, { purpose: "greeting" });
});

platformTest("raw bodies keep their content type, cache control and x-metadata", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
  const up = await sb.upload("img/a.png", png.buffer, {
    contentType: "image/png",
    cacheControl: "60",
    metadata: { alt: "ünïcode" },
  });
  assert.equal(up.error, null);
  const res = await fetch(`${p.url}/storage/v1/object/${bucket}/img/a.png`, {
    headers: { Authorization: `Bearer ${p.config.serviceRoleKey}` },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  assert.equal(res.headers.get("cache-control"), "max-age=60");
  assert.equal(res.headers.get("content-length"), "8");
  assert.ok(res.headers.get("etag"));
  assert.ok(res.headers.get("last-modified"));
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), png);

  const info = await sb.info("img/a.png");
  assert.equal(info.error, null);
  assert.equal(info.data?.size, 8);
  assert.equal(info.data?.contentType, "image/png");
  assert.equal(info.data?.bucketId, bucket);
  assert.deepEqual(info.data?.metadata, { alt: "ünïcode" });

  // A string body goes up as text/plain;charset=UTF-8, storage-js's default.
  assert.equal((await sb.upload("note.txt", "plain string")).error, null);
  const note = await sb.download("note.txt");
  assert.equal(await text(note.data), "plain string");
});

platformTest(
  "upload refuses an existing path unless upsert; update replaces; update needs the object",
  async (p) => {
    const bucket = await createBucket(p);
    const sb = serviceClient(p).storage.from(bucket);
    assert.equal((await sb.upload("f.txt", new Blob(["v1"]))).error, null);

    const again = await sb.upload("f.txt", new Blob(["v2"]));
    assert.equal(again.data, null);
    assert.equal((again.error as { status?: number }).status, 400);
    assert.equal((again.error as { statusCode?: string }).statusCode, "409");
    assert.equal(again.error?.message, "The resource already exists");
    assert.equal(await text((await sb.download("f.txt")).data), "v1");

    assert.equal((await sb.upload("f.txt", new Blob(["v2"]), { upsert: true })).error, null);
    assert.equal(await text((await sb.download("f.txt")).data), "v2");

    assert.equal((await sb.update("f.txt", new Blob(["v3"]))).error, null);
    assert.equal(await text((await sb.download("f.txt")).data), "v3");

    const missing = await sb.update("nope.txt", new Blob(["x"]));
    assert.equal((missing.error as { statusCode?: string }).statusCode, "404");
    const count = await p.db.query(`select 1 from storage.objects where bucket_id = $1`, [bucket]);
    assert.equal(count.rows.length, 1);
  },
);

platformTest("missing objects and buckets answer in Storage's error shape", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  const res = await fetch(`${p.url}/storage/v1/object/${bucket}/missing.txt`, {
    headers: { Authorization: `Bearer ${p.config.serviceRoleKey}` },
  });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    statusCode: "404",
    code: "NoSuchKey",
    error: "not_found",
    message: "Object not found",
  });

  const up = await serviceClient(p).storage.from("no-such-bucket").upload("a.txt", new Blob(["x"]));
  assert.equal((up.error as { statusCode?: string }).statusCode, "404");
  assert.equal(up.error?.message, "Bucket not found");

  assert.deepEqual(await sb.exists("missing.txt"), {
    data: false,
    error: (await sb.exists("missing.txt")).error,
  });
  assert.equal((await sb.upload("there.txt", new Blob(["x"]))).error, null);
  assert.deepEqual(await sb.exists("there.txt"), { data: true, error: null });

  const head = await fetch(`${p.url}/storage/v1/object/${bucket}/there.txt`, {
    method: "HEAD",
    headers: { Authorization: `Bearer ${p.config.serviceRoleKey}` },
  });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), "1");
  await head.body?.cancel();
});

platformTest("list: folders with null ids, prefix, search, limit, offset, sortBy", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  for (const name of ["b.txt", "A.txt", "photos/1.png", "photos/2.png", "photos/2024/x.png", "docs/c.md"]) {
    assert.equal((await sb.upload(name, new Blob([name]))).error, null);
  }
  const root = await sb.list();
  assert.equal(root.error, null);
  assert.deepEqual(root.data!.map((o) => [o.name, o.id === null]), [
    ["A.txt", false],
    ["b.txt", false],
    ["docs", true],
    ["photos", true],
  ]);
  const file = root.data!.find((o) => o.name === "A.txt")!;
  assert.equal((file.metadata as { size: number }).size, 5);
  assert.ok(file.created_at && file.updated_at);
  const folder = root.data!.find((o) => o.name === "docs")!;
  assert.equal(folder.metadata, null);
  assert.equal(folder.created_at, null);

  const photos = await sb.list("photos");
  assert.deepEqual(photos.data!.map((o) => o.name), ["1.png", "2.png", "2024"]);
  assert.deepEqual((await sb.list("photos/")).data!.map((o) => o.name), ["1.png", "2.png", "2024"]);
  assert.deepEqual((await sb.list("photos", { search: "2" })).data!.map((o) => o.name), ["2.png", "2024"]);
  assert.deepEqual((await sb.list("", { search: "a" })).data!.map((o) => o.name), ["A.txt"]);
  assert.deepEqual((await sb.list("photos", { limit: 1, offset: 1 })).data!.map((o) => o.name), ["2.png"]);
  assert.deepEqual(
    (await sb.list("photos", { sortBy: { column: "name", order: "desc" } })).data!.map((o) => o.name),
    ["2024", "2.png", "1.png"],
  );
  // By a timestamp: folders first, then files in upload order.
  assert.deepEqual(
    (await sb.list("photos", { sortBy: { column: "created_at", order: "asc" } })).data!.map((o) => o.name),
    ["2024", "1.png", "2.png"],
  );
  assert.deepEqual((await sb.list("nothing-here")).data, []);

  const bad = await sb.list("", { sortBy: { column: "size", order: "asc" } });
  assert.equal((bad.error as { statusCode?: string }).statusCode, "400");
});

platformTest("move renames, copy duplicates, across buckets too", async (p) => {
  const bucket = await createBucket(p);
  const other = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  assert.equal((await sb.upload("src/a.txt", new Blob(["payload"]), { metadata: { k: 1 } })).error, null);

  const copied = await sb.copy("src/a.txt", "dst/b.txt");
  assert.equal(copied.error, null);
  assert.equal(copied.data?.path, `${bucket}/dst/b.txt`);
  assert.equal(await text((await sb.download("dst/b.txt")).data), "payload");
  assert.deepEqual((await sb.info("dst/b.txt")).data?.metadata, { k: 1 });
  assert.equal((await sb.copy("src/a.txt", "dst/b.txt")).error?.message, "The resource already exists");

  const moved = await sb.move("src/a.txt", "moved/a.txt");
  assert.deepEqual(moved, { data: { message: "Successfully moved" }, error: null });
  assert.equal(await text((await sb.download("moved/a.txt")).data), "payload");
  assert.equal((await sb.exists("src/a.txt")).data, false);

  assert.equal((await sb.move("moved/a.txt", "a.txt", { destinationBucket: other })).error, null);
  assert.equal(await text((await serviceClient(p).storage.from(other).download("a.txt")).data), "payload");
  assert.equal((await sb.copy("dst/b.txt", "b.txt", { destinationBucket: other })).error, null);
  assert.equal(await text((await serviceClient(p).storage.from(other).download("b.txt")).data), "payload");

  const gone = await sb.move("no/such.txt", "x.txt");
  assert.equal((gone.error as { statusCode?: string }).statusCode, "404");
  const clash = await sb.upload("clash.txt", new Blob(["c"]));
  assert.equal(clash.error, null);
  assert.equal((await sb.move("dst/b.txt", "clash.txt")).error?.message, "The resource already exists");
  const noBucket = await sb.move("dst/b.txt", "x.txt", { destinationBucket: "no-such-bucket" });
  assert.equal(noBucket.error?.message, "Bucket not found");
});

platformTest("remove deletes the listed paths and returns their rows", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  for (const name of ["a.txt", "b.txt", "keep.txt"]) {
    assert.equal((await sb.upload(name, new Blob([name]))).error, null);
  }
  const removed = await sb.remove(["a.txt", "b.txt", "never-existed.txt"]);
  assert.equal(removed.error, null);
  assert.deepEqual(removed.data!.map((o) => o.name).sort(), ["a.txt", "b.txt"]);
  assert.equal(removed.data![0].bucket_id, bucket);
  assert.deepEqual((await sb.list()).data!.map((o) => o.name), ["keep.txt"]);
  assert.equal((await sb.download("a.txt")).error?.message, "Object not found");

  const one = await fetch(`${p.url}/storage/v1/object/${bucket}/keep.txt`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${p.config.serviceRoleKey}` },
  });
  assert.deepEqual(await one.json(), { message: "Successfully deleted" });
  const empty = await fetch(`${p.url}/storage/v1/object/${bucket}`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${p.config.serviceRoleKey}`, "content-type": "application/json" },
    body: JSON.stringify({ prefixes: [] }),
  });
  assert.equal(empty.status, 400);
  assert.equal((await empty.json()).statusCode, "400");
});

platformTest("bucket file size limit and allowed mime types are enforced on upload", async (p) => {
  const bucket = await createBucket(p, { fileSizeLimit: "10B", allowedMimeTypes: ["text/plain", "image/*"] });
  const sb = serviceClient(p).storage.from(bucket);
  assert.equal((await sb.upload("ok.txt", new Blob(["0123456789"], { type: "text/plain" }))).error, null);
  assert.equal((await sb.upload("ok.gif", new Uint8Array([1, 2]), { contentType: "image/gif" })).error, null);

  const big = await sb.upload("big.txt", new Blob(["0123456789A"], { type: "text/plain" }));
  assert.equal((big.error as { statusCode?: string }).statusCode, "413");
  const bigRaw = await sb.upload("big-raw.txt", "0123456789A", { contentType: "text/plain" });
  assert.equal((bigRaw.error as { statusCode?: string }).statusCode, "413");
  const pdf = await sb.upload("a.pdf", new Blob(["%PDF"], { type: "application/pdf" }));
  assert.equal((pdf.error as { statusCode?: string }).statusCode, "415");
  assert.equal(pdf.error?.message, "mime type application/pdf is not supported");

  const rows = await p.db.query(`select name from storage.objects where bucket_id = $1 order by name`, [
    bucket,
  ]);
  assert.deepEqual(rows.rows.map((r) => (r as { name: string }).name), ["ok.gif", "ok.txt"]);
});

platformTest("downloads honour Range, If-None-Match, ?download= and never serve HTML as HTML", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  assert.equal(
    (await sb.upload("page.html", "<script>x</script>", { contentType: "text/html" })).error,
    null,
  );
  const url = `${p.url}/storage/v1/object/${bucket}/page.html`;
  const auth = { Authorization: `Bearer ${p.config.serviceRoleKey}` };

  const full = await fetch(url, { headers: auth });
  assert.equal(full.headers.get("content-type"), "text/plain");
  const etag = full.headers.get("etag")!;
  await full.body?.cancel();

  const part = await fetch(url, { headers: { ...auth, Range: "bytes=1-6" } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get("content-range"), "bytes 1-6/18");
  assert.equal(await part.text(), "script");

  const bad = await fetch(url, { headers: { ...auth, Range: "bytes=50-60" } });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).code, "InvalidRange");

  const cached = await fetch(url, { headers: { ...auth, "If-None-Match": etag } });
  assert.equal(cached.status, 304);
  await cached.body?.cancel();

  const att = await fetch(`${url}?download=my%20page.html`, { headers: auth });
  assert.equal(
    att.headers.get("content-disposition"),
    "attachment; filename=my%20page.html; filename*=UTF-8''my%20page.html;",
  );
  await att.body?.cancel();
});

platformTest("names: unicode and spaces round-trip; control characters are refused", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  assert.equal((await sb.upload("dossier été/plan (1).txt", new Blob(["é"]))).error, null);
  assert.equal(await text((await sb.download("dossier été/plan (1).txt")).data), "é");
  assert.deepEqual((await sb.list("dossier été")).data!.map((o) => o.name), ["plan (1).txt"]);
  const bad = await sb.upload("bad\u0001name.txt", new Blob(["x"]));
  assert.equal((bad.error as { statusCode?: string }).statusCode, "400");
  assert.match(bad.error!.message, /^Invalid key/);
});

platformTest("malformed requests are 400s that say what is wrong", async (p) => {
  const bucket = await createBucket(p);
  const base = `${p.url}/storage/v1`;
  const auth = { Authorization: `Bearer ${p.config.serviceRoleKey}` };
  const send = async (path: string, init: RequestInit) => {
    const res = await fetch(`${base}${path}`, { ...init, headers: { ...auth, ...init.headers } });
    return { status: res.status, body: await res.json() };
  };

  const noFile = new FormData();
  noFile.append("cacheControl", "3600");
  const r1 = await send(`/object/${bucket}/a.txt`, { method: "POST", body: noFile });
  assert.deepEqual([r1.status, r1.body.code, r1.body.message], [400, "InvalidRequest", "No file provided"]);

  const r2 = await send(`/object/${bucket}/a.txt`, {
    method: "POST",
    body: "x",
    headers: { "x-metadata": btoa("[1,2]") },
  });
  assert.deepEqual([r2.status, r2.body.message], [400, "x-metadata must be a JSON object"]);

  const r3 = await send(`/object/${bucket}/a.txt`, {
    method: "POST",
    body: "--zzz\r\nno end",
    headers: { "content-type": "multipart/form-data; boundary=zzz" },
  });
  assert.deepEqual([r3.status, r3.body.message], [400, "Malformed multipart body"]);

  const r4 = await send(`/object/list/${bucket}`, { method: "POST", body: JSON.stringify({ limit: -1 }) });
  assert.equal(r4.status, 400);
  assert.match(r4.body.message, /^body\/limit: /);

  const r5 = await send(`/object/move`, { method: "POST", body: JSON.stringify({ bucketId: bucket }) });
  assert.equal(r5.status, 400);
  assert.match(r5.body.message, /^body\/sourceKey: /);

  const r6 = await send(`/object/${bucket}/%E0%A4%A`, { method: "GET" });
  assert.deepEqual([r6.status, r6.body.code], [400, "InvalidKey"]);

  const r7 = await send(`/object/${bucket}`, { method: "GET" });
  assert.deepEqual([r7.status, r7.body.code], [400, "InvalidKey"]);

  const r8 = await send(`/nowhere`, { method: "GET" });
  assert.deepEqual([r8.status, r8.body.statusCode], [404, "404"]);

  // Nothing half-made is left behind by any of the above.
  const rows = await p.db.query(`select 1 from storage.objects where bucket_id = $1`, [bucket]);
  assert.equal(rows.rows.length, 0);
});
