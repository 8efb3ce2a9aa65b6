/**
 * RLS decides storage access. With Supabase's documented "own uid folder" policies, each user
 * manages their own folder and nothing else; anon gets nothing; the service role gets
 * everything; a bad Bearer token gets nothing at all (not even anon's rights).
 */
import assert from "node:assert/strict";
import { signJwt } from "@shared/auth/jwt.ts";
import type { Platform } from "../../stack/platform.ts";
import { anonClient, createUser, platformTest, serviceClient, type TestUser } from "../helpers/platform.ts";
import { createBucket, ownFolderPolicies, text } from "./helpers.ts";

interface Setup {
  bucket: string;
  alice: TestUser;
  bob: TestUser;
  /** Alice's private file. */
  path: string;
}

async function setup(p: Platform): Promise<Setup> {
  const bucket = await createBucket(p, { prefix: "private" });
  await ownFolderPolicies(p, bucket);
  const alice = await createUser(p, "alice");
  const bob = await createUser(p, "bob");
  const path = `${alice.id}/secret.txt`;
  const up = await alice.client.storage.from(bucket).upload(path, new Blob(["alice's secret"]));
  assert.equal(up.error, null);
  return { bucket, alice, bob, path };
}

async function contentOf(p: Platform, bucket: string, path: string): Promise<string> {
  return await text((await serviceClient(p).storage.from(bucket).download(path)).data);
}

const statusCode = (e: unknown) => (e as { statusCode?: string } | null)?.statusCode;

platformTest("a user manages their own folder, and owns what they upload", async (p) => {
  const { bucket, alice, path } = await setup(p);
  const sb = alice.client.storage.from(bucket);
  const row = await p.db.query<{ owner_id: string; owner: string }>(
    `select owner_id, owner::text from storage.objects where bucket_id = $1 and name = $2`,
    [bucket, path],
  );
  assert.deepEqual(row.rows[0], { owner_id: alice.id, owner: alice.id });
  assert.equal(await text((await sb.download(path)).data), "alice's secret");
  assert.deepEqual((await sb.list(alice.id)).data!.map((o) => o.name), ["secret.txt"]);
  assert.equal((await sb.update(path, new Blob(["v2"]))).error, null);
  assert.equal((await sb.upload(path, new Blob(["v3"]), { upsert: true })).error, null);
  assert.equal((await sb.copy(path, `${alice.id}/copy.txt`)).error, null);
  assert.equal((await sb.move(`${alice.id}/copy.txt`, `${alice.id}/moved.txt`)).error, null);
  assert.equal((await sb.createSignedUrl(path, 60)).error, null);
  assert.deepEqual((await sb.remove([`${alice.id}/moved.txt`])).data!.map((o) => o.name), [
    `${alice.id}/moved.txt`,
  ]);
  assert.equal(await contentOf(p, bucket, path), "v3");

  // Outside their folder, even the owner of the bucket's other files is refused.
  const outside = await sb.upload("shared/x.txt", new Blob(["x"]));
  assert.equal(statusCode(outside.error), "403");
  assert.equal(outside.error?.message, "new row violates row-level security policy");
  const escape = await sb.move(path, "shared/secret.txt");
  assert.equal(statusCode(escape.error), "403");
  assert.equal(await contentOf(p, bucket, path), "v3");
});

platformTest("another user cannot read, list, overwrite, move, copy, sign or delete it", async (p) => {
  const { bucket, alice, bob, path } = await setup(p);
  const sb = bob.client.storage.from(bucket);

  assert.equal(statusCode((await sb.download(path)).error), "404");
  assert.equal(statusCode((await sb.info(path)).error), "404");
  assert.equal((await sb.exists(path)).data, false);
  assert.deepEqual((await sb.list(alice.id)).data, []);
  assert.deepEqual((await sb.list()).data, []);
  assert.equal(statusCode((await sb.createSignedUrl(path, 60)).error), "404");
  assert.equal((await sb.createSignedUrls([path], 60)).data![0].signedURL, null);

  // Overwrite: plain upload collides, upsert and update are refused by RLS.
  assert.equal(statusCode((await sb.upload(path, new Blob(["bob was here"]))).error), "403");
  assert.equal(
    statusCode((await sb.upload(path, new Blob(["bob was here"]), { upsert: true })).error),
    "403",
  );
  assert.equal(statusCode((await sb.update(path, new Blob(["bob was here"]))).error), "404");
  assert.equal(statusCode((await sb.move(path, `${bob.id}/stolen.txt`)).error), "404");
  assert.equal(statusCode((await sb.copy(path, `${bob.id}/stolen.txt`)).error), "404");

  // Delete: nothing visible, nothing removed.
  assert.deepEqual((await sb.remove([path])).data, []);
  const direct = await fetch(`${p.url}/storage/v1/object/${bucket}/${path}`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${bob.accessToken}`, apikey: p.config.anonKey },
  });
  assert.equal((await direct.json()).statusCode, "404");
  assert.equal(await contentOf(p, bucket, path), "alice's secret");
});

platformTest("bob's writes into alice's folder are refused and leave nothing", async (p) => {
  const { bucket, alice, bob, path } = await setup(p);
  const sb = bob.client.storage.from(bucket);
  const planted = await sb.upload(`${alice.id}/planted.txt`, new Blob(["x"]));
  assert.equal(statusCode(planted.error), "403");
  assert.equal(statusCode((await sb.createSignedUploadUrl(`${alice.id}/planted.txt`)).error), "403");
  const rows = await p.db.query(`select name from storage.objects where bucket_id = $1`, [bucket]);
  assert.deepEqual(rows.rows, [{ name: path }]);
  assert.equal(await contentOf(p, bucket, path), "alice's secret");
});

platformTest("anon can do nothing in a private bucket", async (p) => {
  const { bucket, alice, path } = await setup(p);
  const sb = anonClient(p).storage.from(bucket);
  assert.equal(statusCode((await sb.download(path)).error), "404");
  assert.deepEqual((await sb.list(alice.id)).data, []);
  assert.equal(statusCode((await sb.upload("anon.txt", new Blob(["x"]))).error), "403");
  assert.equal(statusCode((await sb.upload(path, new Blob(["x"]), { upsert: true })).error), "403");
  assert.deepEqual((await sb.remove([path])).data, []);
  assert.equal(statusCode((await sb.createSignedUrl(path, 60)).error), "404");
  assert.equal(statusCode(await fetch(sb.getPublicUrl(path).data.publicUrl).then((r) => r.json())), "404");
  // No apikey and no Authorization at all is refused outright (Storage's jwt plugin; see
  // no_key_test.ts).
  const bare = await fetch(`${p.url}/storage/v1/object/${bucket}/${path}`);
  assert.equal((await bare.json()).message, "Invalid Compact JWS");
  assert.equal(await contentOf(p, bucket, path), "alice's secret");
});

platformTest("the service role bypasses RLS and keeps the owner on overwrite", async (p) => {
  const { bucket, alice, path } = await setup(p);
  const sb = serviceClient(p).storage.from(bucket);
  assert.equal(await text((await sb.download(path)).data), "alice's secret");
  assert.deepEqual((await sb.list(alice.id)).data!.map((o) => o.name), ["secret.txt"]);
  assert.equal((await sb.update(path, new Blob(["rewritten"]))).error, null);
  const row = await p.db.query<{ owner_id: string }>(
    `select owner_id from storage.objects where bucket_id = $1 and name = $2`,
    [bucket, path],
  );
  assert.equal(row.rows[0].owner_id, alice.id);
  assert.equal((await sb.upload("system/by-service.txt", new Blob(["s"]))).error, null);
  const sys = await p.db.query<{ owner_id: string | null }>(
    `select owner_id from storage.objects where bucket_id = $1 and name = 'system/by-service.txt'`,
    [bucket],
  );
  assert.equal(sys.rows[0].owner_id, null);
  assert.equal((await sb.remove([path])).data!.length, 1);
});

platformTest("a forged, expired or foreign-role Bearer token is refused outright", async (p) => {
  const { bucket, alice, path } = await setup(p);
  const url = `${p.url}/storage/v1/object/${bucket}/${path}`;
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, string][] = [
    [
      await signJwt(
        { sub: alice.id, role: "authenticated", exp: now + 60 },
        "not-the-project-secret-at-all!!!",
      ),
      "invalid signature",
    ],
    [
      await signJwt({ sub: alice.id, role: "authenticated", exp: now - 10 }, p.config.jwtSecret),
      "jwt expired",
    ],
    [
      await signJwt({ sub: alice.id, role: "postgres", exp: now + 60 }, p.config.jwtSecret),
      'role "postgres" is not allowed',
    ],
    ["not-a-jwt", "jwt malformed"],
  ];
  for (const [token, message] of cases) {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      statusCode: "403",
      code: "AccessDenied",
      error: "Unauthorized",
      message,
    });
  }
});
