/**
 * The CLIP embedding module without a platform: colour naming (HSV rules), image sniffing and
 * base64 decoding, the local provider's joint space and determinism, the Jina adapter's request
 * shape and its checks of the answer (count, 768 dimensions, finite numbers, HTTP errors), and the
 * provider choice from the environment.
 */
import assert from "node:assert/strict";
import {
  clipFromEnv,
  colorName,
  JinaClipEmbeddings,
  LocalClipEmbeddings,
} from "../../../packages/shared/embeddings/clip.ts";
import {
  decodeBase64Image,
  ImageInputError,
  requireImage,
  sniffImageType,
} from "../../../packages/shared/embeddings/decode.ts";
import { cosine, EmbeddingError } from "../../../packages/shared/embeddings/provider.ts";
import { swatch } from "../../helpers/catalogue_pdf.ts";

Deno.test("colorName names pixels by hue, saturation and value", () => {
  const cases: [number, number, number, string][] = [
    [200, 30, 30, "red"],
    [240, 140, 30, "orange"],
    [120, 70, 20, "brown"],
    [230, 210, 40, "yellow"],
    [40, 150, 60, "green"],
    [40, 80, 200, "blue"],
    [120, 50, 150, "purple"],
    [230, 100, 170, "pink"],
    [235, 215, 180, "beige"],
    [250, 250, 250, "white"],
    [128, 128, 130, "grey"],
    [20, 20, 20, "black"],
  ];
  for (const [r, g, b, name] of cases) assert.equal(colorName(r, g, b), name, `${r},${g},${b}`);
});

Deno.test("images are sniffed from their bytes; base64 input is checked before decoding", () => {
  const sigs: [number[], string | null][] = [
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "image/png"],
    [[0xff, 0xd8, 0xff, 0xe0], "image/jpeg"],
    [[0x47, 0x49, 0x46, 0x38, 0x39, 0x61], "image/gif"],
    [[0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50], "image/webp"],
    [[0x25, 0x50, 0x44, 0x46, 0x2d], null],
    [[], null],
  ];
  for (const [bytes, type] of sigs) assert.equal(sniffImageType(new Uint8Array(bytes)), type);
  assert.throws(() => requireImage(new Uint8Array(0)), ImageInputError);
  assert.throws(() => decodeBase64Image("not base64 !!"), /not valid base64/);
  assert.throws(() => decodeBase64Image(""), /empty/);
  assert.throws(() => decodeBase64Image("A".repeat(100), 10), /larger than 10 bytes/);
  assert.deepEqual([...decodeBase64Image("data:image/png;base64,AQID")], [1, 2, 3]);
  assert.deepEqual([...decodeBase64Image("-_8")], [0xfb, 0xff], "URL-safe alphabet");
});

Deno.test("local CLIP: deterministic unit vectors; texts land near their colour's pictures", async () => {
  const clip = new LocalClipEmbeddings();
  const red = await clip.embedImage(await swatch(32, 32, [200, 30, 30]));
  const again = await clip.embedImage(await swatch(32, 32, [200, 30, 30]));
  const green = await clip.embedImage(await swatch(32, 32, [40, 150, 60]));
  assert.deepEqual(red, again);
  assert.equal(red.length, 768);
  assert.ok(Math.abs(Math.hypot(...red) - 1) < 1e-9);
  const t = (s: string) => clip.embedText(s);
  assert.ok(cosine(await t("red tiles"), red) > cosine(await t("red tiles"), green));
  assert.ok(cosine(await t("green"), green) > cosine(await t("green"), red));
  await assert.rejects(() => clip.embedImage(new TextEncoder().encode("hello")), ImageInputError);
  await assert.rejects(() => clip.embedText(" "), EmbeddingError);
});

function fakeFetch(answer: (body: Record<string, unknown>) => Response) {
  const seen: { url: string; headers: Headers; body: Record<string, unknown> }[] = [];
  const f = ((url: string, init: RequestInit) => {
    const body = JSON.parse(init.body as string);
    seen.push({ url, headers: new Headers(init.headers), body });
    return Promise.resolve(answer(body));
  }) as unknown as typeof fetch;
  return { f, seen };
}

Deno.test("Jina adapter: documented request, checked answers", async () => {
  const vec = Array.from({ length: 768 }, (_, i) => (i === 0 ? 3 : 0));
  const ok = fakeFetch(() => Response.json({ data: [{ index: 0, embedding: vec }] }));
  const jina = new JinaClipEmbeddings({
    baseUrl: "https://api.example/v1/",
    apiKey: "k",
    model: "jina-clip-v2",
    fetch: ok.f,
  });
  const v = await jina.embedText("oak");
  assert.equal(v[0], 1, "re-normalised");
  assert.equal(ok.seen[0].url, "https://api.example/v1/embeddings");
  assert.equal(ok.seen[0].headers.get("authorization"), "Bearer k");
  assert.deepEqual(ok.seen[0].body, {
    model: "jina-clip-v2",
    dimensions: 768,
    normalized: true,
    embedding_type: "float",
    input: [{ text: "oak" }],
  });
  await jina.embedImage(await swatch(8, 8, [1, 2, 3]));
  assert.equal(typeof (ok.seen[1].body.input as { image: string }[])[0].image, "string");
  await assert.rejects(() => jina.embedImage(new Uint8Array([1, 2, 3])), ImageInputError);

  const bad: [Response, RegExp][] = [
    [Response.json({ detail: "bad key" }, { status: 401 }), /answered 401: bad key/],
    [new Response("oops", { status: 200 }), /non-JSON/],
    [Response.json({ data: [] }), /returned 0 embeddings for 1 inputs/],
    [Response.json({ data: [{ index: 0, embedding: [1, 2] }] }), /2 dimensions; 768 are required/],
    [Response.json({ data: [{ index: 0, embedding: vec.map(() => NaN) }] }), /non-finite/],
  ];
  for (const [res, msg] of bad) {
    const j = new JinaClipEmbeddings({
      baseUrl: "https://x",
      apiKey: "k",
      model: "m",
      fetch: fakeFetch(() => res).f,
    });
    await assert.rejects(() => j.embedText("a"), msg);
  }
  const down = new JinaClipEmbeddings({
    baseUrl: "https://x",
    apiKey: "k",
    model: "m",
    fetch: fakeFetch(() => Response.json({ detail: "down" }, { status: 503 })).f,
  });
  const h = await down.health();
  assert.deepEqual([h.status, h.remote], ["unhealthy", true]);
  assert.match(h.error!, /503/);
});

Deno.test("clipFromEnv picks the provider from the environment", () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  assert.equal(clipFromEnv(env({})).name, "local");
  const j = clipFromEnv(env({ CLIP_API_KEY: "k" }));
  assert.deepEqual([j.name, j.model, j.dimensions], ["jina", "jina-clip-v2", 768]);
  assert.equal(clipFromEnv(env({ CLIP_API_KEY: "k", CLIP_MODEL: "jina-clip-v1" })).model, "jina-clip-v1");
  assert.equal(clipFromEnv(env({ CLIP_API_KEY: "k", CLIP_PROVIDER: "local" })).name, "local");
  assert.throws(() => clipFromEnv(env({ CLIP_PROVIDER: "jina" })), /needs CLIP_API_KEY/);
  assert.throws(() => clipFromEnv(env({ CLIP_PROVIDER: "openclip" })), /unknown CLIP_PROVIDER/);
});
