/**
 * Object info of an object uploaded without user metadata answers `"metadata": {}`, never null:
 * what Storage's info renderer (supabase/storage src/storage/renderer/info.ts, `metadata:
 * obj.user_metadata`, serialized through the route's object response schema) gives storage-js
 * `info()`. With metadata it is that metadata, unchanged.
 */
import assert from "node:assert/strict";
import { platformTest, serviceClient } from "../helpers/platform.ts";
import { createBucket } from "./helpers.ts";

platformTest("info() of an object uploaded without metadata has metadata {}", async (p) => {
  const bucket = await createBucket(p, { public: true });
  const sb = serviceClient(p).storage.from(bucket);
  assert.equal((await sb.upload("plain.txt", new Blob(["x"]))).error, null);
  assert.equal((await sb.upload("raw.bin", new Uint8Array([1, 2]).buffer)).error, null);
  assert.equal((await sb.upload("tagged.txt", new Blob(["y"]), { metadata: { k: "v" } })).error, null);

  for (const name of ["plain.txt", "raw.bin"]) {
    const info = await sb.info(name);
    assert.equal(info.error, null);
    assert.deepEqual(info.data!.metadata, {}, name);
    // The HTTP answer itself, authenticated and public.
    for (const path of [`object/info/${bucket}/${name}`, `object/info/public/${bucket}/${name}`]) {
      const res = await fetch(`${p.url}/storage/v1/${path}`, {
        headers: { Authorization: `Bearer ${p.config.serviceRoleKey}` },
      });
      assert.deepEqual((await res.json()).metadata, {}, path);
    }
  }
  assert.deepEqual((await sb.info("tagged.txt")).data!.metadata, { k: "v" });
});
