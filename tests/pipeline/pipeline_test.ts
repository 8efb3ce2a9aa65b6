/**
 * The PDF processing pipeline end to end on the local platform: a real catalogue PDF (pdf-lib:
 * an index page, two products over three pages, three embedded images) goes through extract and
 * the six stages with the scripted LLM stand-in; progress only rises; chunks stay inside product
 * boundaries and skip the index page; images land in material-images with five unit 768-d
 * embeddings. A run killed mid-stage is taken over only once its heartbeat is stale and finishes
 * without duplicate rows; a failing stage is retried with 2^attempt s backoff (model failures are
 * not: the model layer retried them already, tests/llm/pipeline_failures_test.ts).
 */
import assert from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import { createUser, platformTest } from "../helpers/platform.ts";
import { grant } from "../ai/helpers.ts";
import { encodeBase64 } from "../../packages/shared/embeddings/decode.ts";
import { runJob } from "../../services/ai-backend/mod.ts";
import { LocalHashEmbeddings } from "../../packages/shared/embeddings/mod.ts";
import { sampleCatalogue } from "../helpers/catalogue_pdf.ts";
import {
  discoveryCall,
  documentCounts,
  type Json,
  llm,
  metadataCall,
  post,
  q,
  scriptFullRun,
  verdictCall,
} from "./helpers.ts";

platformTest("a catalogue PDF goes through all six stages with monotonic progress", async (p) => {
  const s = llm(p);
  const u = await createUser(p, "pipeline");
  await grant(p, u.id, 10);
  const seen: number[] = [];
  let jobId: string | null = null;
  scriptFullRun(s, async () => {
    // Every model call samples the job's progress as another reader would.
    const [job] = await q(p, `select progress from public.ai_jobs where user_id = $1`, [u.id]);
    if (job) seen.push(job.progress);
  });
  const pdf = await sampleCatalogue();
  const res = await post(p, u.accessToken, "/api/rag/documents/upload", {
    pdf_base64: encodeBase64(pdf),
    filename: "catalogue.pdf",
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  jobId = res.body.job_id;
  assert.equal(res.body.status, "completed");
  assert.equal(res.body.progress, 100);
  assert.equal(s.pendingReplies, 0, "every scripted reply was used, none more");
  const documentId = res.body.document_id as string;

  // Progress: sampled values never fall; checkpoints in the spec's stage order and ranges.
  assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
  assert.ok(seen.length === 7 && seen[0] === 0 && seen.at(-1)! >= 50, `sampled ${seen}`);
  const cps = await q(
    p,
    `select stage, progress from public.ai_job_checkpoints where job_id = $1 order by progress`,
    [
      jobId,
    ],
  );
  assert.deepEqual(cps.map((c) => [c.stage, c.progress]), [
    ["extract", 10],
    ["classify-images", 20],
    ["upload-images", 30],
    ["save-images-db", 50],
    ["extract-metadata", 60],
    ["create-chunks", 80],
    ["create-relationships", 100],
  ]);

  // Two products with their page ranges and extracted metadata.
  const products = await q(
    p,
    `select id, name, page_start, page_end, metadata from public.pipeline_products where document_id = $1
     order by page_start`,
    [documentId],
  );
  assert.deepEqual(products.map((x) => [x.name, x.page_start, x.page_end]), [
    ["Oak Floor Natur", 2, 2],
    ["Slate Tile Anthracite", 3, 4],
  ]);
  assert.deepEqual(products[0].metadata.materials, ["oak"]);
  assert.deepEqual(products[1].metadata.materials, ["slate"]);

  // Classification: the unsure image went to the validation model; the logo was not kept.
  const calls = s.captures.requests().filter((r) => r.path.endsWith("/messages"));
  assert.equal(calls.length, 7);
  const models = calls.map((c) => (c.body as Json).model);
  assert.equal(models[3], "claude-opus-4-6", "the validation model checks the unsure answer");
  assert.equal((calls[1].body as Json).messages[0].content[0].type, "image");

  // Images: two material images stored at {document_id}/{filename}, five unit 768-d vectors each.
  const images = await q(
    p,
    `select id, filename, page_number, storage_url, category,
            extensions.vector_dims(visual_slig_768) as dims,
            round((visual_slig_768 operator(extensions.<#>) visual_slig_768)::numeric, 4) as neg_norm2,
            round((color_slig_768 operator(extensions.<#>) color_slig_768)::numeric, 4) as color_neg_norm2,
            round((material_slig_768 operator(extensions.<#>) material_slig_768)::numeric, 4) as material_neg_norm2
       from public.document_images where document_id = $1 order by filename`,
    [documentId],
  );
  assert.deepEqual(images.map((i) => [i.filename, i.page_number, i.category]), [
    ["page-2-image-1.png", 2, "material"],
    ["page-3-image-1.png", 3, "material"],
  ]);
  for (const im of images) {
    assert.equal(im.dims, 768);
    assert.equal(Number(im.neg_norm2), -1);
    assert.equal(Number(im.color_neg_norm2), -1);
    assert.equal(Number(im.material_neg_norm2), -1);
    assert.ok(im.storage_url.endsWith(`/material-images/${documentId}/${im.filename}`), im.storage_url);
  }
  const stored = await q(
    p,
    `select name from storage.objects where bucket_id = 'material-images' order by name`,
  );
  assert.deepEqual(
    stored.map((o) => o.name).filter((n: string) => n.startsWith(documentId)),
    [`${documentId}/page-2-image-1.png`, `${documentId}/page-3-image-1.png`],
  );
  const png = await fetch(images[0].storage_url);
  assert.equal(png.status, 200);
  assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).subarray(0, 4)], [137, 80, 78, 71]);

  // Chunks: 1024-d, within one product's pages, never on the index page, linked by page range.
  const chunks = await q(
    p,
    `select chunk_index, content, page_start, page_end, product_id, extensions.vector_dims(embedding) as dims
       from public.document_chunks where document_id = $1 order by chunk_index`,
    [documentId],
  );
  assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
  for (const c of chunks) {
    assert.equal(c.dims, 1024);
    assert.ok(c.content.length <= 512);
    assert.ok(c.page_start >= 2, "the index page is skipped");
    const product = products.find((x) => x.id === c.product_id);
    assert.ok(product, `chunk ${c.chunk_index} is linked to a product`);
    assert.ok(c.page_start >= product.page_start && c.page_end <= product.page_end, "inside its product");
    assert.ok(!(c.content.includes("Oak") && c.content.includes("Slate")), "never across a product boundary");
  }
  assert.ok(chunks.some((c) => c.product_id === products[1].id && c.page_end === 4));

  // Relationships at similarity >= 0.5: the slate image to the slate product and its chunks.
  const rels = await q(
    p,
    `select kind, source_id, i.filename, similarity from public.document_relationships r
       join public.document_images i on i.id = r.image_id where r.document_id = $1`,
    [documentId],
  );
  assert.ok(rels.every((r) => r.similarity >= 0.5));
  const productImage = rels.filter((r) => r.kind === "product_image")
    .map((r) => [products.find((x) => x.id === r.source_id).name, r.filename]).sort();
  assert.deepEqual(productImage, [
    ["Oak Floor Natur", "page-2-image-1.png"],
    ["Oak Floor Natur", "page-3-image-1.png"],
    ["Slate Tile Anthracite", "page-2-image-1.png"],
    ["Slate Tile Anthracite", "page-3-image-1.png"],
  ]);
  assert.ok(rels.some((r) => r.kind === "chunk_image"));

  // The owner reads the checkpoints; another user cannot see the job.
  const other = await createUser(p, "pipeline-other");
  const cpRes = await fetch(`${aiBackendOf(p).url}/api/rag/jobs/${jobId}/checkpoints`, {
    headers: { authorization: `Bearer ${u.accessToken}` },
  });
  assert.equal(cpRes.status, 200);
  assert.equal((await cpRes.json()).checkpoints.length, 7);
  const denied = await post(p, other.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(denied.status, 404);

  // AI tracking: every model call of the job, by stage and by model.
  const track = async (path: string) =>
    await (await fetch(`${aiBackendOf(p).url}/api/rag/jobs/${jobId}/ai-tracking${path}`, {
      headers: { authorization: `Bearer ${u.accessToken}` },
    })).json();
  const all = await track("");
  assert.equal(all.totals.calls, 7);
  assert.equal(all.totals.failed, 0);
  assert.deepEqual(
    Object.fromEntries(Object.entries(all.by_stage).map(([k, v]) => [k, (v as Json).calls])),
    { "extract": 1, "classify-images": 4, "extract-metadata": 2 },
  );
  assert.equal((await track("/stage/classify-images")).calls.length, 4);
  assert.equal((await track("/model/claude-opus-4-6")).calls.length, 1);
});

platformTest("a run killed mid-stage resumes from its last checkpoint without duplicate rows", async (p) => {
  const s = llm(p);
  const u = await createUser(p, "pipeline-kill");
  await grant(p, u.id, 10);
  // Stored through upload-async (a pending job, deferred: this test runs it), then run here.
  const form = new FormData();
  form.append(
    "file",
    new File([await sampleCatalogue() as Uint8Array<ArrayBuffer>], "c.pdf", { type: "application/pdf" }),
  );
  form.append("defer_processing", "true");
  const up = await fetch(`${aiBackendOf(p).url}/api/rag/documents/upload-async`, {
    method: "POST",
    headers: { authorization: `Bearer ${u.accessToken}` },
    body: form,
  });
  assert.equal(up.status, 202);
  const jobId = (await up.json()).job_id as string;

  const kill = new AbortController();
  const service = createClient(p.url, p.config.serviceRoleKey, { auth: { persistSession: false } });
  // A heartbeat older than three intervals (90 s) marks a dead run.
  const t0 = new Date(Date.now() - 10 * 60_000);
  const deps = {
    db: service,
    textEmbeddings: new LocalHashEmbeddings(),
    secrets: (n: string) => p.env[n],
    sleep: () => Promise.resolve(),
  };
  s.reply(
    discoveryCall(),
    verdictCall("material", 0.92),
    verdictCall("material", 0.9),
    verdictCall("logo", 0.97),
    metadataCall("oak"),
    // The process dies while the second product's metadata is being asked for.
    { ...metadataCall("slate"), beforeReply: () => kill.abort() },
  );
  const killed = await runJob({ ...deps, signal: kill.signal }, jobId);
  assert.equal(killed.status, "processing");
  assert.equal(killed.current_stage, "extract-metadata");
  assert.equal(killed.progress, 50);
  const documentId = killed.document_id!;
  const before = await documentCounts(p, documentId);
  assert.deepEqual(before, { products: 2, images: 2, chunks: 0, relationships: 0 });
  const [cp] = await q(p, `select count(*)::int as n from public.ai_job_checkpoints where job_id = $1`, [
    jobId,
  ]);
  assert.equal(cp.n, 4, "extract, classify, upload, save: the metadata stage has no checkpoint");

  // While its heartbeat is fresh, the job belongs to the (dead) run: resume is refused.
  const busy = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(busy.status, 409, JSON.stringify(busy.body));
  await q(p, `update public.ai_jobs set heartbeat_at = $2 where id = $1`, [jobId, t0.toISOString()]);

  // Later, with the heartbeat stale, resume takes over: only extract-metadata onward runs.
  s.reply(metadataCall("oak"), metadataCall("slate"));
  const done = await runJob(deps, jobId);
  assert.equal(done.status, "completed", done.message ?? "");
  assert.equal(done.progress, 100);
  assert.equal(done.attempts, 2);
  assert.equal(s.pendingReplies, 0);
  assert.equal(s.captures.requests().filter((r) => r.path.endsWith("/messages")).length, 8);
  const after = await documentCounts(p, documentId);
  assert.equal(after.products, 2);
  assert.equal(after.images, 2);
  assert.ok(after.chunks >= 4 && after.relationships > 0);

  // Restart from scratch gives the same rows again, once.
  s.reply(
    discoveryCall(),
    verdictCall("material", 0.92),
    verdictCall("material", 0.9),
    verdictCall("logo", 0.97),
    metadataCall("oak"),
    metadataCall("slate"),
  );
  const restarted = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/restart`);
  assert.equal(restarted.status, 200, JSON.stringify(restarted.body));
  assert.equal(restarted.body.status, "completed");
  assert.deepEqual(await documentCounts(p, restarted.body.document_id), after);
});

platformTest("a failing stage is retried with 2^attempt s backoff, then fails the job", async (p) => {
  const s = llm(p);
  const u = await createUser(p, "pipeline-retry");
  await grant(p, u.id, 10);
  const form = new FormData();
  form.append(
    "file",
    new File([await sampleCatalogue() as Uint8Array<ArrayBuffer>], "c.pdf", { type: "application/pdf" }),
  );
  form.append("defer_processing", "true");
  const up = await fetch(`${aiBackendOf(p).url}/api/rag/documents/upload-async`, {
    method: "POST",
    headers: { authorization: `Bearer ${u.accessToken}` },
    body: form,
  });
  const jobId = (await up.json()).job_id as string;
  const service = createClient(p.url, p.config.serviceRoleKey, { auth: { persistSession: false } });
  const waits: number[] = [];
  // The text embedding provider is down: create-chunks fails on every attempt.
  const local = new LocalHashEmbeddings();
  let embedCalls = 0;
  const deps = {
    db: service,
    textEmbeddings: {
      name: local.name,
      model: local.model,
      dimensions: local.dimensions,
      embed: () => {
        embedCalls++;
        return Promise.reject(new Error("embedding provider unreachable"));
      },
    },
    secrets: (n: string) => p.env[n],
    sleep: (ms: number) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
  scriptFullRun(s);
  const job = await runJob(deps, jobId);
  assert.deepEqual(waits, [2000, 4000]);
  assert.equal(embedCalls, 3);
  assert.equal(job.status, "failed");
  assert.equal(job.current_stage, "create-chunks");
  assert.match(job.error ?? "", /create-chunks failed after 3 attempts: embedding provider unreachable/);
  assert.equal(job.metadata.error_code, undefined, "not a coded failure");
  const cps = await q(p, `select stage from public.ai_job_checkpoints where job_id = $1 order by progress`, [
    jobId,
  ]);
  assert.deepEqual(cps.map((c) => c.stage), [
    "extract",
    "classify-images",
    "upload-images",
    "save-images-db",
    "extract-metadata",
  ]);
});
