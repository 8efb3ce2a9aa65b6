/**
 * URLs handed to browsers: signed download URLs (work without credentials, refused once expired
 * or tampered with), public URLs (public buckets only) and signed upload URLs.
 */
import assert from "node:assert/strict";
import { signJwt } from "@shared/auth/jwt.ts";
import { anonClient, createUser, platformTest, serviceClient } from "../helpers/platform.ts";
import { createBucket, ownFolderPolicies } from "./helpers.ts";

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

platformTest("a signed URL downloads without credentials until it expires", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  assert.equal(
    (await sb.upload("report.pdf", new Blob(["%PDF-1.7"], { type: "application/pdf" }))).error,
    null,
  );

  const signed = await sb.createSignedUrl("report.pdf", 1);
  assert.equal(signed.error, null);
  const url = new URL(signed.data!.signedUrl);
  assert.equal(url.pathname, `/storage/v1/object/sign/${bucket}/report.pdf`);
  const token = url.searchParams.get("token")!;
  const claims = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  assert.deepEqual(Object.keys(claims).sort(), ["exp", "iat", "url"]);
  assert.equal(claims.url, `${bucket}/report.pdf`);
  assert.equal(claims.exp - claims.iat, 1);

  const ok = await fetch(signed.data!.signedUrl);
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("content-type"), "application/pdf");
  assert.ok(ok.headers.get("expires"));
  assert.equal(await ok.text(), "%PDF-1.7");

  await new Promise((r) => setTimeout(r, 1200));
  const late = await getJson(signed.data!.signedUrl);
  assert.equal(late.status, 400);
  assert.deepEqual(late.body, {
    statusCode: "400",
    code: "InvalidJWT",
    error: "InvalidJWT",
    message: "jwt expired",
  });
});

platformTest("tampered, foreign, past-dated and missing tokens are refused", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  for (const name of ["a.txt", "b.txt"]) assert.equal((await sb.upload(name, new Blob([name]))).error, null);
  const base = `${p.url}/storage/v1/object/sign/${bucket}`;
  const secret = p.config.jwtSecret;

  const { data } = await sb.createSignedUrl("a.txt", 60);
  const token = new URL(data!.signedUrl).searchParams.get("token")!;
  // The same token for another object: the url claim does not match.
  const other = await getJson(`${base}/b.txt?token=${token}`);
  assert.equal(other.body.code, "InvalidSignature");

  // Payload rewritten to point at b.txt, signature kept: the signature no longer verifies.
  const [h, , s] = token.split(".");
  const forged = btoa(JSON.stringify({ url: `${bucket}/b.txt`, iat: 1, exp: 4102444800 }))
    .replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const tampered = await getJson(`${base}/b.txt?token=${h}.${forged}.${s}`);
  assert.deepEqual(tampered.body, {
    statusCode: "400",
    code: "InvalidJWT",
    error: "InvalidJWT",
    message: "invalid signature",
  });

  const wrongKey = await signJwt(
    { url: `${bucket}/a.txt`, iat: 1, exp: 4102444800 },
    "another-secret-of-32-characters!!",
  );
  assert.equal((await getJson(`${base}/a.txt?token=${wrongKey}`)).body.message, "invalid signature");

  const now = Math.floor(Date.now() / 1000);
  const past = await signJwt({ url: `${bucket}/a.txt`, iat: now - 120, exp: now - 60 }, secret);
  assert.equal((await getJson(`${base}/a.txt?token=${past}`)).body.message, "jwt expired");

  // A user's session token is signed with the same secret but names no object.
  const user = await createUser(p);
  assert.equal((await getJson(`${base}/a.txt?token=${user.accessToken}`)).body.code, "InvalidSignature");
  assert.equal((await getJson(`${base}/a.txt?token=garbage`)).body.message, "jwt malformed");
  assert.equal((await getJson(`${base}/a.txt`)).body.code, "MissingParameter");
});

platformTest("createSignedUrls signs what the caller can see and reports the rest", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  assert.equal((await sb.upload("x.txt", new Blob(["x"]))).error, null);
  const many = await sb.createSignedUrls(["x.txt", "missing.txt"], 60);
  assert.equal(many.error, null);
  assert.equal(many.data![0].error, null);
  assert.equal(many.data![0].path, "x.txt");
  assert.equal(await (await fetch(many.data![0].signedUrl!)).text(), "x");
  assert.deepEqual(many.data![1], {
    error: "Either the object does not exist or you do not have access to it",
    path: "missing.txt",
    signedURL: null,
    signedUrl: null,
  });
  const none = await sb.createSignedUrl("missing.txt", 60);
  assert.equal((none.error as { statusCode?: string }).statusCode, "404");
  const badExpiry = await sb.createSignedUrl("x.txt", 0);
  assert.equal((badExpiry.error as { statusCode?: string }).statusCode, "400");
});

platformTest("public URLs serve public buckets only", async (p) => {
  const pub = await createBucket(p, { public: true });
  const priv = await createBucket(p);
  for (const b of [pub, priv]) {
    assert.equal(
      (await serviceClient(p).storage.from(b).upload("logo.svg", new Blob(["<svg/>"]))).error,
      null,
    );
  }
  // getPublicUrl is computed client-side; fetching it is the test.
  const pubUrl = anonClient(p).storage.from(pub).getPublicUrl("logo.svg").data.publicUrl;
  assert.equal(pubUrl, `${p.url}/storage/v1/object/public/${pub}/logo.svg`);
  const ok = await fetch(pubUrl);
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), "<svg/>");
  const dl = await fetch(
    anonClient(p).storage.from(pub).getPublicUrl("logo.svg", { download: true }).data.publicUrl,
  );
  assert.equal(dl.headers.get("content-disposition"), "attachment;");
  await dl.body?.cancel();

  const refused = await getJson(anonClient(p).storage.from(priv).getPublicUrl("logo.svg").data.publicUrl);
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.body, {
    statusCode: "404",
    code: "NoSuchBucket",
    error: "Bucket not found",
    message: "Bucket not found",
  });
  assert.equal(
    (await getJson(`${p.url}/storage/v1/object/public/${pub}/missing.svg`)).body.code,
    "NoSuchKey",
  );
  const info = await getJson(`${p.url}/storage/v1/object/info/public/${pub}/logo.svg`);
  assert.equal(info.body.size, 6);
  const privInfo = await getJson(`${p.url}/storage/v1/object/info/public/${priv}/logo.svg`);
  assert.equal(privInfo.body.code, "NoSuchBucket");

  // Public only opens the public route: the authenticated route still applies RLS.
  const anonDownload = await anonClient(p).storage.from(pub).download("logo.svg");
  assert.equal((anonDownload.error as { statusCode?: string }).statusCode, "404");

  // Making the bucket private closes its public URLs at once.
  assert.equal((await serviceClient(p).storage.updateBucket(pub, { public: false })).error, null);
  assert.equal((await getJson(pubUrl)).body.code, "NoSuchBucket");
});

platformTest("signed upload URLs: issued only to who may insert, redeemed once per path", async (p) => {
  const bucket = await createBucket(p);
  await ownFolderPolicies(p, bucket);
  const user = await createUser(p);
  const sb = user.client.storage.from(bucket);

  const signed = await sb.createSignedUploadUrl(`${user.id}/avatar.png`);
  assert.equal(signed.error, null);
  const up = await anonClient(p).storage.from(bucket).uploadToSignedUrl(
    `${user.id}/avatar.png`,
    signed.data!.token,
    new Blob(["png-bytes"], { type: "image/png" }),
  );
  assert.equal(up.error, null);
  assert.equal(up.data?.fullPath, `${bucket}/${user.id}/avatar.png`);
  const row = await p.db.query<{ owner_id: string }>(
    `select owner_id from storage.objects where bucket_id = $1 and name = $2`,
    [bucket, `${user.id}/avatar.png`],
  );
  assert.equal(row.rows[0].owner_id, user.id);
  assert.equal(await (await sb.download(`${user.id}/avatar.png`)).data?.text(), "png-bytes");

  // Not upsert: the same token cannot overwrite what it created.
  const again = await anonClient(p).storage.from(bucket).uploadToSignedUrl(
    `${user.id}/avatar.png`,
    signed.data!.token,
    new Blob(["other"]),
  );
  assert.equal(again.error?.message, "The resource already exists");

  // The token is bound to its path.
  const elsewhere = await anonClient(p).storage.from(bucket).uploadToSignedUrl(
    `${user.id}/other.png`,
    signed.data!.token,
    new Blob(["x"]),
  );
  assert.equal((elsewhere.error as { statusCode?: string }).statusCode, "400");

  // Someone else's folder: RLS would refuse the upload, so no URL is issued.
  const intruder = await createUser(p);
  const refused = await intruder.client.storage.from(bucket).createSignedUploadUrl(`${user.id}/evil.png`);
  assert.equal((refused.error as { statusCode?: string }).statusCode, "403");
  const count = await p.db.query(`select 1 from storage.objects where bucket_id = $1`, [bucket]);
  assert.equal(count.rows.length, 1);

  // A download token cannot be used to upload, nor an upload token to download.
  const dl = await sb.createSignedUrl(`${user.id}/avatar.png`, 60);
  const dlToken = new URL(dl.data!.signedUrl).searchParams.get("token")!;
  const asUpload = await anonClient(p).storage.from(bucket).uploadToSignedUrl(
    `${user.id}/avatar.png`,
    dlToken,
    new Blob(["x"]),
  );
  assert.equal(asUpload.error?.message, "Not an upload token");
  const asDownload = await getJson(
    `${p.url}/storage/v1/object/sign/${bucket}/${user.id}/avatar.png?token=${signed.data!.token}`,
  );
  assert.equal(asDownload.body.code, "InvalidSignature");
});
