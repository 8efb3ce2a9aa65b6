/**
 * Image services and CLIP embeddings through ai-gateway (one module, one platform).
 *
 * CLIP: 768-d unit vectors in one image/text space from the Jina wire format (the sandbox
 * stand-in computes them with the local provider), 0.25 credits each, refunded on any failure;
 * image_url goes through the SSRF-safe fetch (private, loopback and metadata addresses refused,
 * redirects re-checked); provider failures and malformed vectors are 502s, never passed on.
 *
 * Images: vision analysis (a forced analyze_image call, zod-validated, malformed answers retried
 * once then a refunded 502 model_bad_output), batch analysis billed per image, search by image over the caller's
 * document images only, upload-and-analyze (stored privately with a record), two-stage
 * reclassification stored on the document image, and health. Balances are checked exactly.
 */
import assert from "node:assert/strict";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import type { Platform } from "../../stack/platform.ts";
import { platformTest } from "../helpers/platform.ts";
import { createTeam } from "../ai/helpers.ts";
import { processSample } from "../pipeline/helpers.ts";
import { encodeBase64 } from "../../packages/shared/embeddings/decode.ts";
import { cosine } from "../../packages/shared/embeddings/provider.ts";
import {
  AI,
  analysis,
  billed,
  BLUE,
  FAST,
  gateway,
  imageServer,
  imageVerdict,
  jina,
  type Json,
  llm,
  pngBase64,
  RED,
  sent,
  sentImages,
  swatch,
  toolReply,
} from "./helpers.ts";

const q = async (p: Json, sql: string, params: unknown[] = []) =>
  (await p.db.query(sql, params)).rows as Json[];

/** One team with the sample catalogue processed, shared by the search and reclassify tests. */
let processed: Promise<{ t: Awaited<ReturnType<typeof createTeam>>; job: Json }> | null = null;
function processedCatalogue(p: Platform) {
  return processed ??= (async () => {
    const t = await createTeam(p, 50);
    return { t, job: await processSample(p, t.member.accessToken) };
  })();
}

platformTest(
  "images_analyze: the vision model's analysis, 1 credit; garbage twice is a refunded 502",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    s.reply(analysis("ceramic tile", 0.93));
    const r = await billed(p, t.member, "images_analyze", {
      image_base64: await pngBase64(RED),
      workspace_id: t.ws,
      context: "bathroom wall",
    }, 1);
    const d = r.body.data;
    assert.deepEqual(Object.keys(d.analysis).sort(), [
      "colors",
      "confidence",
      "description",
      "material_type",
      "style",
      "textures",
    ]);
    assert.equal(d.analysis.material_type, "ceramic tile");
    assert.equal(d.analysis.confidence, 0.93);
    assert.equal(d.media_type, "image/png");
    assert.deepEqual(sentImages(s), ["image/png"], "the image went to the model as a vision block");

    // Malformed once, then good: one retry, success, billed once.
    s.reset();
    s.reply("this is not json", analysis("oak", 0.8));
    const retried = await billed(p, t.member, "images_analyze", { image_base64: await pngBase64(RED) }, 1);
    assert.equal(retried.body.data.analysis.material_type, "oak");
    assert.equal(s.captures.requests().length, 2);

    // Garbage twice: a clear error, refunded, nothing passed on.
    s.reset();
    s.reply(toolReply("analyze_image", { material_type: 42 }), "I cannot help with that");
    const bad = await billed(p, t.member, "images_analyze", { image_base64: await pngBase64(RED) }, 1, 502);
    assert.equal(bad.body.code, "model_bad_output");
    assert.match(bad.body.error, /Image analysis: the model's answer was unusable 2 times/);
    assert.equal(bad.body.data, undefined);
    assert.equal(s.captures.requests().length, 2, "retried exactly once");
    const calls = await q(
      p,
      `select attempt, ok from public.ai_service_calls where user_id = $1 and action = 'images_analyze'
      order by created_at desc limit 2`,
      [t.member.id],
    );
    assert.deepEqual(calls.map((c) => [c.attempt, c.ok]).sort(), [[1, false], [2, false]]);

    // A model provider failure (after the SDK's one retry) is a refunded 502 too; an outsider's
    // workspace is a refunded 404.
    s.reset();
    s.failNext(529, { times: 2 });
    const down = await billed(p, t.member, "images_analyze", { image_base64: await pngBase64(RED) }, 1, 502);
    assert.equal(down.body.code, "model_unavailable");
    assert.equal(down.body.details.provider_status, 529);
    await billed(
      p,
      t.outsider,
      "images_analyze",
      { image_base64: await pngBase64(RED), workspace_id: t.ws },
      1,
      404,
    );
    const ssrf = await billed(
      p,
      t.member,
      "images_analyze",
      { image_url: "http://169.254.169.254/x.png" },
      1,
      400,
    );
    assert.equal(ssrf.body.code, "unsafe_url");
    assert.equal(s.captures.requests().length, 2, "refused inputs never reach the model");
  },
);

platformTest("images_analyze_batch is billed per image and is all or nothing", async (p) => {
  const t = await createTeam(p, 20);
  const s = llm(p);
  const srv = await imageServer();
  p.env.IMAGE_FETCH_ALLOWED_HOSTS = srv.host;
  try {
    s.reply(analysis("brick"), analysis("glass"), analysis("steel"));
    const r = await billed(p, t.member, "images_analyze_batch", {
      images: [{ image_base64: await pngBase64(RED) }, { image_url: `${srv.url}/blue.png` }, {
        image_base64: await pngBase64(BLUE),
      }],
    }, 3);
    assert.equal(r.body.data.count, 3);
    assert.deepEqual(r.body.data.results.map((x: Json) => x.analysis.material_type), [
      "brick",
      "glass",
      "steel",
    ]);
    assert.deepEqual(r.body.data.results.map((x: Json) => x.index), [0, 1, 2]);
    // One unsafe URL refuses the batch before any model call, and the 2 credits come back.
    s.reset();
    const bad = await billed(
      p,
      t.member,
      "images_analyze_batch",
      {
        image_urls: [`${srv.url}/red.png`, "http://192.168.1.1/cam.png"],
      },
      2,
      400,
    );
    assert.match(bad.body.error, /images\.1: image_url refused/);
    assert.equal(s.captures.requests().length, 0);
    // A model failure on the second image fails the batch: refunded in full.
    s.reply(analysis("brick"), "nope", "still nope");
    await billed(
      p,
      t.member,
      "images_analyze_batch",
      { image_urls: [`${srv.url}/red.png`, `${srv.url}/blue.png`] },
      2,
      502,
    );
  } finally {
    p.env.IMAGE_FETCH_ALLOWED_HOSTS = "";
    await srv.stop();
  }
  await billed(p, t.member, "images_analyze_batch", { images: [] }, 1, 400);
});

platformTest(
  "images_search finds the caller's document images by image; others' stay invisible",
  async (p) => {
    const { t, job } = await processedCatalogue(p);
    const s = llm(p);
    // The slate swatch embedded on page 3 of the sample catalogue (a material image it kept).
    const query = encodeBase64(await swatch(40, 40, [60, 62, 66]));
    const r = await billed(p, t.member, "images_search", { image_base64: query, limit: 5 }, 1);
    const d = r.body.data;
    assert.ok(d.count >= 1);
    assert.equal(d.results[0].document_id, job.document_id);
    assert.equal(d.results[0].page_number, 3);
    assert.ok(d.results[0].similarity > 0.99, JSON.stringify(d.results[0]));
    assert.ok(
      d.results.every((x: Json, i: number) => i === 0 || x.similarity <= d.results[i - 1].similarity),
    );
    assert.equal(s.captures.requests().length, 0, "search uses no language model");
    const all = await billed(p, t.member, "images_search", { image_base64: query, embedding_type: "all" }, 1);
    assert.deepEqual(Object.keys(all.body.data.results[0].scores).sort(), [
      "color",
      "material",
      "style",
      "texture",
      "visual",
    ]);
    // The outsider searches the same picture and sees nothing of the member's documents.
    const other = await billed(p, t.outsider, "images_search", { image_base64: query }, 1);
    assert.equal(other.body.data.count, 0);
    await billed(p, t.outsider, "images_search", { image_base64: query, workspace_id: t.ws }, 1, 404);
  },
);

platformTest("images_reclassify re-runs the two-stage classification and stores it", async (p) => {
  const { t, job } = await processedCatalogue(p);
  const [img] = await q(
    p,
    `select id, category from public.document_images where document_id = $1 order by filename limit 1`,
    [job.document_id],
  );
  const s = llm(p);
  // Low confidence first: the validation model is asked and decides.
  s.reply(imageVerdict("logo", 0.4), imageVerdict("material", 0.88));
  const r = await billed(p, t.member, "images_reclassify", { image_id: img.id }, 1);
  const d = r.body.data;
  assert.equal(d.category, "material");
  assert.equal(d.confidence, 0.88);
  assert.equal(d.validated, true);
  assert.equal(d.primary.category, "logo");
  assert.equal(d.validation.model, AI.classification_validation_model);
  assert.equal(d.is_material, true);
  const reqs = s.captures.requests();
  assert.equal(reqs.length, 2);
  assert.deepEqual(reqs.map((x) => (x.body as Json).model), [
    sent(AI.classification_primary_model),
    sent(AI.classification_validation_model),
  ]);
  const [row] = await q(
    p,
    `select category, confidence, classified_at, classification from public.document_images where id = $1`,
    [img.id],
  );
  assert.equal(row.category, "material");
  assert.ok(Math.abs(row.confidence - 0.88) < 1e-6);
  assert.ok(row.classified_at);
  assert.equal(row.classification.validated, true);
  const [esc] = await q(
    p,
    `select count(*)::int as n from public.ai_service_calls where user_id = $1 and escalation_reason = 'low_confidence'`,
    [t.member.id],
  );
  assert.equal(esc.n, 1);
  // Sure first answer: no validation call.
  s.reset();
  s.reply(imageVerdict("certificate", 0.95));
  const sure = await billed(p, t.member, "images_reclassify", {
    image_id: img.id,
    ai_config: { profile: "FAST_CONFIG" },
  }, 1);
  assert.equal(sure.body.data.validated, false);
  assert.equal(sure.body.data.is_material, false);
  assert.equal((s.captures.requests()[0].body as Json).model, sent(FAST.classification_primary_model));
  // Outsiders cannot see it (refunded 404) and change nothing.
  s.reset();
  await billed(p, t.outsider, "images_reclassify", { image_id: img.id }, 1, 404);
  await billed(p, t.member, "images_reclassify", { image_id: crypto.randomUUID() }, 1, 404);
  assert.equal(s.captures.requests().length, 0);
  const [after] = await q(p, `select category from public.document_images where id = $1`, [img.id]);
  assert.equal(after.category, "certificate");
});

platformTest(
  "images_upload_analyze stores the upload privately with its analysis (JSON and multipart)",
  async (p) => {
    const t = await createTeam(p, 20);
    const s = llm(p);
    s.reply(analysis("terracotta"));
    const r = await billed(p, t.member, "images_upload_analyze", {
      image_base64: await pngBase64(RED, 40),
      filename: "swatch.png",
      workspace_id: t.ws,
    }, 1);
    const img = r.body.data;
    assert.equal(r.body.data.analysis.material_type, "terracotta");
    assert.equal(img.storage_bucket, "image-uploads");
    assert.equal(img.storage_path, `${t.member.id}/${img.id}.png`);
    assert.equal(img.width, 40);
    assert.equal(img.material_type, "terracotta");
    const file = await fetch(img.signed_url);
    assert.equal(file.status, 200);
    assert.equal((await file.arrayBuffer()).byteLength, img.size_bytes);
    // Workspace members read the record over REST; the outsider does not.
    const rest = (token: string) =>
      fetch(`${p.url}/rest/v1/image_uploads?id=eq.${img.id}&select=id,material_type`, {
        headers: { apikey: p.config.anonKey, authorization: `Bearer ${token}` },
      }).then((x) => x.json());
    assert.equal((await rest(t.viewer.accessToken)).length, 1);
    assert.equal((await rest(t.outsider.accessToken)).length, 0);

    // Multipart straight to the backend (the gateway routes multipart to upload-async).
    s.reply(analysis("granite"));
    const form = new FormData();
    form.append(
      "file",
      new File([await swatch(20, 20, BLUE) as Uint8Array<ArrayBuffer>], "blue.png", { type: "image/png" }),
    );
    const res = await fetch(`${aiBackendOf(p).url}/api/images/upload-and-analyze`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.admin.accessToken}` },
      body: form,
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(res.headers.get("x-credits-charged"), "1");
    assert.equal(body.image.filename, "blue.png");
    assert.equal(body.analysis.material_type, "granite");

    // A viewer may not upload into the workspace; a model failure stores nothing.
    await billed(
      p,
      t.viewer,
      "images_upload_analyze",
      { image_base64: await pngBase64(RED), workspace_id: t.ws },
      1,
      403,
    );
    s.reset();
    s.reply("x", "y");
    await billed(p, t.member, "images_upload_analyze", { image_base64: await pngBase64(RED) }, 1, 502);
    const [n] = await q(p, `select count(*)::int as n from public.image_uploads where user_id = $1`, [
      t.member.id,
    ]);
    assert.equal(n.n, 1);
    await billed(p, t.member, "images_upload_analyze", { image_base64: btoa("plain text") }, 1, 400);
  },
);

platformTest("images_health is free and reports the vision, CLIP and embedding set-up", async (p) => {
  const t = await createTeam(p, 1);
  const h = await billed(p, t.member, "images_health", {}, 0);
  const d = h.body.data;
  assert.equal(d.status, "healthy");
  assert.equal(d.vision.configured, true);
  assert.equal(d.vision.confidence_threshold, 0.7);
  assert.equal(d.clip.provider, "jina");
  assert.equal(d.image_embeddings.dimensions, 768);
  const anon = await gateway(p, null, "images_health");
  assert.equal(anon.status, 401);
});

// ---- CLIP embeddings ----

const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));

platformTest(
  "CLIP image and text embeddings: one 768-d space, Jina wire format, 0.25 credits each",
  async (p) => {
    const t = await createTeam(p, 10);
    const s = jina(p);
    const red = await billed(
      p,
      t.member,
      "embeddings_clip_image",
      { image_base64: await pngBase64(RED) },
      0.25,
    );
    const d = red.body.data;
    assert.equal(d.dimensions, 768);
    assert.equal(d.embedding.length, 768);
    assert.ok(Math.abs(norm(d.embedding) - 1) < 1e-6);
    assert.equal(d.provider, "jina");
    assert.equal(d.model, "jina-clip-v2");
    assert.equal(d.media_type, "image/png");
    // The request the adapter sent is Jina's documented shape.
    const sent = s.captures.requests().at(-1)!;
    assert.equal(sent.path, "/v1/embeddings");
    const body = sent.body as Json;
    assert.equal(body.model, "jina-clip-v2");
    assert.equal(body.dimensions, 768);
    assert.equal(typeof body.input[0].image, "string");
    assert.equal(sent.headers.authorization, "[redacted]");

    const blue =
      (await billed(p, t.member, "embeddings_clip_image", { image_base64: await pngBase64(BLUE) }, 0.25))
        .body.data.embedding;
    const text = async (q: string) =>
      (await billed(p, t.member, "embeddings_clip_text", { text: q, workspace_id: t.ws }, 0.25)).body.data;
    const redText = await text("red");
    assert.equal(redText.input_type, "text");
    assert.equal(redText.embedding.length, 768);
    assert.deepEqual((s.captures.requests().at(-1)!.body as Json).input, [{ text: "red" }]);
    const blueText = (await text("a blue wall")).embedding;
    // Joint space: each text is nearer its own colour's picture.
    assert.ok(cosine(redText.embedding, d.embedding) > cosine(redText.embedding, blue));
    assert.ok(cosine(blueText, blue) > cosine(blueText, d.embedding));
  },
);

platformTest(
  "image_url: fetched safely; private, loopback and metadata addresses are refused and refunded",
  async (p) => {
    const t = await createTeam(p, 10);
    jina(p);
    const srv = await imageServer();
    const before = p.env.IMAGE_FETCH_ALLOWED_HOSTS;
    p.env.IMAGE_FETCH_ALLOWED_HOSTS = srv.host;
    try {
      const ok = await billed(
        p,
        t.member,
        "embeddings_clip_image",
        { image_url: `${srv.url}/red.png` },
        0.25,
      );
      assert.equal(ok.body.data.embedding.length, 768);
      assert.deepEqual(srv.hits, ["/red.png"]);
      for (
        const url of [
          "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
          "http://localhost/red.png",
          "http://10.0.0.7/red.png",
          "http://[::1]/red.png",
          "file:///etc/passwd",
          // An allowed host redirecting to an address that is not: the hop is checked again.
          `${srv.url}/redirect?to=${encodeURIComponent("http://127.0.0.1:9/red.png")}`,
        ]
      ) {
        const r = await billed(p, t.member, "embeddings_clip_image", { image_url: url }, 0.25, 400);
        assert.equal(r.body.code, "unsafe_url", url);
      }
      const notImage = await billed(
        p,
        t.member,
        "embeddings_clip_image",
        { image_url: `${srv.url}/text.txt` },
        0.25,
        400,
      );
      assert.equal(notImage.body.code, "invalid_image");
      const missing = await billed(
        p,
        t.member,
        "embeddings_clip_image",
        { image_url: `${srv.url}/nope.png` },
        0.25,
        400,
      );
      assert.equal(missing.body.code, "image_fetch_failed");
    } finally {
      p.env.IMAGE_FETCH_ALLOWED_HOSTS = before ?? "";
      await srv.stop();
    }
    // Without the allowance the same local server is refused too.
    const r = await billed(
      p,
      t.member,
      "embeddings_clip_image",
      { image_url: `${srv.url}/red.png` },
      0.25,
      400,
    );
    assert.equal(r.body.code, "unsafe_url");
  },
);

platformTest("bad input, provider failures and malformed vectors are refunded errors", async (p) => {
  const t = await createTeam(p, 10);
  const s = jina(p);
  const both = await billed(
    p,
    t.member,
    "embeddings_clip_image",
    {
      image_base64: await pngBase64(RED),
      image_url: "https://example.com/a.png",
    },
    0.25,
    400,
  );
  assert.match(both.body.error, /exactly one of image_url or image_base64/);
  await billed(
    p,
    t.member,
    "embeddings_clip_image",
    { image_base64: btoa("hello, not a picture") },
    0.25,
    400,
  );
  await billed(p, t.member, "embeddings_clip_text", { text: "   " }, 0.25, 400);
  // An outsider's workspace is not theirs to bill against.
  await billed(p, t.outsider, "embeddings_clip_text", { text: "red", workspace_id: t.ws }, 0.25, 404);

  s.failNext(503, { message: "model overloaded" });
  const down = await billed(p, t.member, "embeddings_clip_text", { text: "red" }, 0.25, 502);
  assert.equal(down.body.code, "embedding_failed");
  assert.match(down.body.error, /503/);
  s.answerNext({ data: [{ index: 0, embedding: [0.1, 0.2] }] });
  const short = await billed(p, t.member, "embeddings_clip_text", { text: "red" }, 0.25, 502);
  assert.match(short.body.error, /2 dimensions; 768 are required/);
  s.answerNext({ data: [{ index: 0, embedding: "garbage" }] });
  await billed(p, t.member, "embeddings_clip_text", { text: "red" }, 0.25, 502);
});

platformTest("embeddings_health reports the CLIP provider's real state (free)", async (p) => {
  const t = await createTeam(p, 10);
  const s = jina(p);
  const h = await billed(p, t.member, "embeddings_health", {}, 0);
  assert.equal(h.headers.get("x-credits-charged"), null);
  const clip = h.body.data.clip;
  assert.equal(h.body.data.status, "healthy");
  assert.equal(clip.provider, "jina");
  assert.equal(clip.remote, true);
  assert.equal(clip.dimensions, 768);
  assert.equal(clip.status, "healthy");
  assert.equal(h.body.data.text_embeddings.dimensions, 1024);
  s.failNext(401, { message: "invalid key" });
  const bad = await gateway(p, t.member.accessToken, "embeddings_health");
  assert.equal(bad.status, 200);
  assert.equal(bad.body.data.status, "degraded");
  assert.equal(bad.body.data.clip.status, "unhealthy");
  assert.match(bad.body.data.clip.error, /401/);
  assert.ok(!JSON.stringify(bad.body).includes("jina_sandbox_local_placeholder"), "the key never leaks");
});
