/**
 * Image transformations as storage-js asks for them: `download(path, {transform})`
 * (/render/image/authenticated), `getPublicUrl(path, {transform})` (/render/image/public) and
 * `createSignedUrl(path, n, {transform})` (/render/image/sign, the transformation carried in the
 * token). Matches supabase/storage src/storage/renderer/image.ts (imgproxy options: resize cover →
 * fill, contain → fit, fill → force; sizes clamped to 1..2000; X-Transformations) and
 * src/http/routes/render/* (quality 20..100, format origin|avif), with the CLI's imgproxy
 * settings (IMGPROXY_ENABLE_WEBP_DETECTION=true: WebP when Accept allows it).
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { anonClient, platformTest, serviceClient } from "../helpers/platform.ts";
import { createBucket } from "./helpers.ts";

/** A 100x50 image with a left red half and a right blue half. */
async function picture(format: "png" | "jpeg" = "png"): Promise<Uint8Array> {
  const raw = new Uint8Array(100 * 50 * 3);
  for (let y = 0; y < 50; y++) {
    for (let x = 0; x < 100; x++) {
      const i = (y * 100 + x) * 3;
      if (x < 50) raw[i] = 255;
      else raw[i + 2] = 255;
    }
  }
  const img = sharp(raw, { raw: { width: 100, height: 50, channels: 3 } });
  return new Uint8Array(await (format === "png" ? img.png() : img.jpeg({ quality: 95 })).toBuffer());
}

async function dims(body: Blob | ArrayBuffer | Uint8Array) {
  const buf = body instanceof Blob ? new Uint8Array(await body.arrayBuffer()) : new Uint8Array(body);
  const m = await sharp(buf).metadata();
  return { width: m.width, height: m.height, format: m.format };
}

async function setup(p: Parameters<Parameters<typeof platformTest>[1]>[0], isPublic = false) {
  const bucket = await createBucket(p, { public: isPublic });
  const sb = serviceClient(p).storage.from(bucket);
  const png = await picture();
  assert.equal((await sb.upload("pics/a.png", png, { contentType: "image/png" })).error, null);
  assert.equal(
    (await sb.upload("pics/b.jpg", await picture("jpeg"), { contentType: "image/jpeg" })).error,
    null,
  );
  return { bucket, sb };
}

platformTest("download with transform: width, height and the three resize modes", async (p) => {
  const { sb } = await setup(p);
  const cases: [Record<string, unknown>, { width: number; height: number }][] = [
    [{ width: 20, height: 20 }, { width: 20, height: 20 }], // cover (default): cropped to the box
    [{ width: 20, height: 20, resize: "cover" }, { width: 20, height: 20 }],
    [{ width: 20, height: 20, resize: "contain" }, { width: 20, height: 10 }], // inside the box
    [{ width: 20, height: 20, resize: "fill" }, { width: 20, height: 20 }], // stretched
    [{ width: 40 }, { width: 40, height: 20 }], // one side: aspect kept
    [{ height: 10 }, { width: 20, height: 10 }],
    [{ width: 500 }, { width: 100, height: 50 }], // never enlarged
    [{ width: 80, height: 80 }, { width: 80, height: 50 }], // no upscaling: cropped to the box
    [{ width: 80, height: 80, resize: "fill" }, { width: 80, height: 50 }],
    [{ width: 80, height: 80, resize: "contain" }, { width: 80, height: 40 }],
  ];
  for (const [transform, expected] of cases) {
    const { data, error } = await sb.download("pics/a.png", { transform });
    assert.equal(error, null, JSON.stringify(transform));
    const got = await dims(data!);
    assert.deepEqual({ width: got.width, height: got.height }, expected, JSON.stringify(transform));
    assert.equal(got.format, "png"); // storage-js sends no Accept that allows WebP
  }

  // cover crops the centre; fill keeps both halves, squeezed.
  const cover = await sb.download("pics/a.png", { transform: { width: 10, height: 10, resize: "cover" } });
  const fill = await sb.download("pics/a.png", { transform: { width: 10, height: 10, resize: "fill" } });
  const px = async (b: Blob, x: number) => {
    const { data } = await sharp(new Uint8Array(await b.arrayBuffer())).raw().toBuffer({
      resolveWithObject: true,
    });
    return [data[(5 * 10 + x) * 3], data[(5 * 10 + x) * 3 + 2]];
  };
  assert.deepEqual(await px(fill.data!, 0), [255, 0]);
  assert.deepEqual(await px(fill.data!, 9), [0, 255]);
  assert.ok((await px(cover.data!, 0))[0] > 200); // the centre 50x50 is half red, half blue
  assert.ok((await px(cover.data!, 9))[1] > 200);
});

platformTest("render headers: type by Accept and format, X-Transformations, the object's ETag", async (p) => {
  const { bucket, sb } = await setup(p);
  const auth = { Authorization: `Bearer ${p.config.serviceRoleKey}` };
  const url =
    `${p.url}/storage/v1/render/image/authenticated/${bucket}/pics/a.png?width=30&height=30&resize=contain`;

  const webp = await fetch(url, { headers: { ...auth, Accept: "image/avif,image/webp,*/*" } });
  assert.equal(webp.status, 200);
  assert.equal(webp.headers.get("content-type"), "image/webp");
  assert.equal(webp.headers.get("x-transformations"), "height:30,width:30,resizing_type:fit");
  const info = await sb.info("pics/a.png");
  assert.equal(webp.headers.get("etag"), info.data!.etag);
  assert.equal(webp.headers.get("cache-control"), "max-age=3600");
  const body = new Uint8Array(await webp.arrayBuffer());
  assert.equal(webp.headers.get("content-length"), String(body.byteLength));
  assert.deepEqual(await dims(body), { width: 30, height: 15, format: "webp" });

  const origin = await fetch(`${url}&format=origin`, { headers: { ...auth, Accept: "image/webp" } });
  assert.equal(origin.headers.get("content-type"), "image/png");
  await origin.body?.cancel();

  const avif = await fetch(`${url}&format=avif`, { headers: auth });
  assert.equal(avif.headers.get("content-type"), "image/avif");
  assert.equal(avif.headers.get("x-transformations"), "height:30,width:30,resizing_type:fit,format:avif");
  assert.equal((await dims(await avif.arrayBuffer())).format, "heif");

  // Quality changes a lossy encoding.
  const q = async (quality: number) => {
    const res = await fetch(
      `${p.url}/storage/v1/render/image/authenticated/${bucket}/pics/b.jpg?width=100&quality=${quality}`,
      { headers: auth },
    );
    assert.equal(res.headers.get("content-type"), "image/jpeg");
    return (await res.arrayBuffer()).byteLength;
  };
  assert.ok((await q(20)) < (await q(100)));

  // Sizes are clamped to 2000.
  const big = await fetch(`${p.url}/storage/v1/render/image/authenticated/${bucket}/pics/a.png?width=9000`, {
    headers: auth,
  });
  assert.equal(big.headers.get("x-transformations"), "width:2000,resizing_type:fill");
  await big.body?.cancel();
});

platformTest("public and signed transformed URLs", async (p) => {
  const { bucket, sb } = await setup(p, true);
  const publicUrl = sb.getPublicUrl("pics/a.png", { transform: { width: 20, height: 10 } }).data.publicUrl;
  assert.match(publicUrl, /\/render\/image\/public\//);
  const pub = await fetch(publicUrl);
  assert.equal(pub.status, 200);
  assert.deepEqual(await dims(await pub.arrayBuffer()), { width: 20, height: 10, format: "png" });

  const signed = await sb.createSignedUrl("pics/a.png", 60, { transform: { width: 10, resize: "contain" } });
  assert.equal(signed.error, null);
  assert.match(signed.data!.signedUrl, /\/storage\/v1\/render\/image\/sign\/[^?]+\?token=/);
  // The transformation is the token's: query parameters cannot change it.
  const res = await fetch(`${signed.data!.signedUrl}&width=90`);
  assert.equal(res.status, 200);
  assert.ok(res.headers.get("expires"));
  assert.deepEqual(await dims(await res.arrayBuffer()), { width: 10, height: 5, format: "png" });
  // A plain signed URL still serves the original.
  const plain = await sb.createSignedUrl("pics/a.png", 60);
  assert.match(plain.data!.signedUrl, /\/object\/sign\//);
  assert.deepEqual(await dims(await (await fetch(plain.data!.signedUrl)).arrayBuffer()), {
    width: 100,
    height: 50,
    format: "png",
  });
  void bucket;
});

platformTest("transform errors: bad options, not an image, RLS", async (p) => {
  const { bucket, sb } = await setup(p);
  const auth = { Authorization: `Bearer ${p.config.serviceRoleKey}` };
  const base = `${p.url}/storage/v1/render/image/authenticated/${bucket}/pics/a.png`;
  for (const q of ["quality=10", "quality=101", "width=abc", "resize=stretch", "format=gif", "height=-1"]) {
    const res = await fetch(`${base}?${q}`, { headers: auth });
    assert.equal(res.status, 400, q);
    assert.equal((await res.json()).statusCode, "400", q);
  }
  const bad = await sb.createSignedUrl("pics/a.png", 60, { transform: { quality: 5 } });
  assert.ok(bad.error);

  await sb.upload("notes.txt", new Blob(["not an image"], { type: "text/plain" }));
  const txt = await fetch(`${p.url}/storage/v1/render/image/authenticated/${bucket}/notes.txt?width=10`, {
    headers: auth,
  });
  assert.equal(txt.status, 400);
  assert.equal((await txt.json()).statusCode, "422");

  // anon has no policy on this private bucket: the object is not found, nothing is rendered.
  const anon = await anonClient(p).storage.from(bucket).download("pics/a.png", { transform: { width: 10 } });
  assert.equal(anon.data, null);
  assert.ok(anon.error);
});

platformTest("animated GIFs stay animated, resized frame by frame", async (p) => {
  const bucket = await createBucket(p);
  const sb = serviceClient(p).storage.from(bucket);
  const frame = (r: number) =>
    sharp({ create: { width: 40, height: 20, channels: 3, background: { r, g: 0, b: 0 } } }).png().toBuffer();
  const gif = await sharp(await Promise.all([frame(255), frame(0), frame(128)]), { join: { animated: true } })
    .gif().toBuffer();
  assert.equal((await sb.upload("anim.gif", new Uint8Array(gif), { contentType: "image/gif" })).error, null);
  const { data, error } = await sb.download("anim.gif", { transform: { width: 10, height: 10 } });
  assert.equal(error, null);
  assert.equal(data!.type, "image/gif");
  const m = await sharp(new Uint8Array(await data!.arrayBuffer())).metadata();
  assert.deepEqual([m.pages, m.width, m.height], [3, 10, 10]);
});
