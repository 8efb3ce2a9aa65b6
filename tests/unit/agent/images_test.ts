/** Image data URL validation: type, size, base64, and the bytes' own signature. */
import assert from "node:assert/strict";
import { checkImageDataUrl, checkImages, MAX_IMAGE_BYTES } from "../../../packages/shared/agent/images.ts";

const b64 = (bytes: number[]) => btoa(String.fromCharCode(...bytes));
const PNG = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = b64([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const GIF = btoa("GIF89a\x01\x00\x01\x00");
const WEBP = btoa("RIFF\x24\x00\x00\x00WEBPVP8 ");

Deno.test("images: accepted types with matching bytes", () => {
  const cases: [string, string, number][] = [
    [`data:image/png;base64,${PNG}`, "image/png", 12],
    [`data:image/jpeg;base64,${JPEG}`, "image/jpeg", 6],
    [`data:IMAGE/JPEG;base64,${JPEG}`, "image/jpeg", 6],
    [`data:image/gif;base64,${GIF}`, "image/gif", 10],
    [`data:image/webp;base64,${WEBP}`, "image/webp", 16],
    [`  data:image/png;base64,${PNG}\n`, "image/png", 12],
  ];
  for (const [url, type, bytes] of cases) {
    const r = checkImageDataUrl(url);
    assert.ok(r.ok, url);
    if (r.ok) {
      assert.equal(r.image.media_type, type);
      assert.equal(r.image.bytes, bytes);
    }
  }
});

Deno.test("images: refused with a reason", () => {
  const big = "A".repeat(Math.ceil(((MAX_IMAGE_BYTES + 3) * 4) / 3));
  const cases: [string, RegExp][] = [
    ["https://example.com/a.png", /not a base64 data URL/],
    [`data:image/png,${PNG}`, /not a base64 data URL/],
    [`data:image/png;base64,${PNG}!`, /not a base64 data URL/],
    [`data:image/svg+xml;base64,${btoa("<svg/>")}`, /image\/svg\+xml is not supported/],
    [`data:image/bmp;base64,${btoa("BM")}`, /not supported/],
    [`data:application/pdf;base64,${btoa("%PDF")}`, /not supported/],
    [`data:image/png;base64,`, /is empty/],
    [`data:image/png;base64,${JPEG}`, /does not contain image\/png data/],
    [`data:image/jpeg;base64,${PNG}`, /does not contain image\/jpeg data/],
    [`data:image/webp;base64,${btoa("RIFF\x24\x00\x00\x00WAVEfmt ")}`, /does not contain image\/webp/],
    [`data:image/png;base64,iVBORw0KGgoA=`, /not valid base64|does not contain/],
    [`data:image/png;base64,${big}`, /limit is 5242880 bytes/],
  ];
  for (const [url, re] of cases) {
    const r = checkImageDataUrl(url);
    assert.equal(r.ok, false, url.slice(0, 60));
    if (!r.ok) assert.match(r.message, re, url.slice(0, 60));
  }
});

Deno.test("images: at most four per request; problems name their position", () => {
  const good = `data:image/png;base64,${PNG}`;
  assert.deepEqual(checkImages([good, good]).problems, []);
  assert.equal(checkImages([good, good]).images.length, 2);
  assert.deepEqual(checkImages(Array(5).fill(good)).problems, ["images: at most 4 images per request"]);
  assert.deepEqual(checkImages([good, "nope"]).problems, [
    "images.1: is not a base64 data URL (data:<type>;base64,<data>)",
  ]);
});
