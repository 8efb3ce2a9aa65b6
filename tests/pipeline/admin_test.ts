/**
 * Reading what the pipeline produced: the RAG reads as the uploader (others see nothing), and
 * the admin job API (platform admins only): list, statistics, one job, status, stage progress,
 * the SSE stream, per-page view, products, and deletion with the stored files; and each stage
 * on its own at /api/internal/<stage>/{job_id}.
 */
import assert from "node:assert/strict";
import { createUser, platformTest, setPlatformRole } from "../helpers/platform.ts";
import { grant } from "../ai/helpers.ts";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";
import { get, type Json, llm, post, processSample, q, scriptFullRun, verdictCall } from "./helpers.ts";
import { sampleCatalogue } from "../helpers/catalogue_pdf.ts";

platformTest("the uploader reads documents, content, chunks, images, products and embeddings", async (p) => {
  const u = await createUser(p, "rag-reads");
  await grant(p, u.id, 10);
  const job = await processSample(p, u.accessToken);
  const doc = job.document_id;
  const t = u.accessToken;

  const list = await get(p, t, "/api/rag/documents");
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.documents.map((d: { id: string }) => d.id), [doc]);
  const content = await get(p, t, `/api/rag/documents/${doc}/content`);
  assert.equal(content.status, 200);
  assert.equal(content.body.document.page_count, 4);
  assert.equal(content.body.products.length, 2);
  assert.equal(content.body.images.length, 2);
  assert.ok(content.body.chunks.length >= 4);
  const chunks = await get(p, t, `/api/rag/chunks?document_id=${doc}&limit=2`);
  assert.equal(chunks.body.chunks.length, 2);
  assert.equal(chunks.body.total, content.body.chunks.length);
  assert.equal((await get(p, t, `/api/rag/images?document_id=${doc}`)).body.images.length, 2);
  assert.equal((await get(p, t, `/api/rag/products?document_id=${doc}`)).body.products.length, 2);
  const emb = await get(p, t, `/api/rag/embeddings?document_id=${doc}&include_vectors=true&limit=1`);
  assert.equal(emb.status, 200);
  assert.equal(JSON.parse(emb.body.text.chunks[0].embedding).length, 1024);
  assert.equal(JSON.parse(emb.body.image.images[0].texture_slig_768).length, 768);
  const stats = await get(p, t, "/api/rag/stats");
  assert.deepEqual(
    { ...stats.body, chunks: undefined },
    { jobs_by_status: { completed: 1 }, documents: 1, products: 2, images: 2, chunks: undefined },
  );
  const health = await get(p, t, "/api/rag/health");
  assert.equal(health.body.status, "healthy");
  assert.equal(health.body.llm_configured, true);

  const other = await createUser(p, "rag-reads-other");
  assert.equal((await get(p, other.accessToken, `/api/rag/documents/${doc}/content`)).status, 404);
  assert.equal((await get(p, other.accessToken, `/api/rag/chunks?document_id=${doc}`)).status, 404);
  assert.deepEqual((await get(p, other.accessToken, "/api/rag/documents")).body.documents, []);
  const notYours = await fetch(`${aiBackendOf(p).url}/api/rag/documents/${doc}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${other.accessToken}` },
  });
  assert.equal(notYours.status, 404);
  await notYours.body?.cancel();

  const del = await fetch(`${aiBackendOf(p).url}/api/rag/documents/${doc}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${t}` },
  });
  assert.equal(del.status, 200);
  assert.equal((await del.json()).removed_files, 3, "two images and the PDF");
  assert.equal((await q(p, `select 1 from public.pipeline_documents where id = $1`, [doc])).length, 0);
  assert.equal((await q(p, `select 1 from public.ai_jobs where id = $1`, [job.job_id])).length, 0);
  assert.equal(
    (await q(p, `select 1 from storage.objects where bucket_id = 'material-images' and name like $1`, [
      `${doc}/%`,
    ]))
      .length,
    0,
  );
});

platformTest("platform admins list, inspect, stream and delete jobs; others are refused", async (p) => {
  const u = await createUser(p, "admin-jobs-user");
  await grant(p, u.id, 10);
  const job = await processSample(p, u.accessToken);
  const admin = await createUser(p, "admin-jobs-admin");
  await setPlatformRole(p, admin.id, "admin");
  const a = admin.accessToken;

  for (const path of ["/api/admin/jobs", `/api/admin/jobs/${job.job_id}`, "/api/admin/progress/active"]) {
    assert.equal((await get(p, u.accessToken, path)).status, 403, path);
  }

  const list = await get(p, a, "/api/admin/jobs?status=completed");
  assert.equal(list.status, 200);
  assert.ok(list.body.jobs.some((j: { id: string }) => j.id === job.job_id));
  const stats = await get(p, a, "/api/admin/jobs/statistics");
  assert.equal(stats.status, 200);
  assert.ok(stats.body.by_status.completed >= 1);
  assert.equal(typeof stats.body.total_jobs, "number");

  const one = await get(p, a, `/api/admin/jobs/${job.job_id}`);
  assert.equal(one.body.document.id, job.document_id);
  const status = await get(p, a, `/api/admin/jobs/${job.job_id}/status`);
  assert.deepEqual(
    [status.body.status, status.body.progress, status.body.current_stage, status.body.attempts],
    ["completed", 100, "create-relationships", 1],
  );
  const progress = await get(p, a, `/api/admin/jobs/${job.job_id}/progress`);
  assert.deepEqual(progress.body.stages.map((s: { status: string }) => s.status), Array(7).fill("completed"));
  assert.deepEqual(progress.body.stages[5].progress_range, [60, 80]);

  const pages = await get(p, a, `/api/admin/jobs/${job.job_id}/progress/pages`);
  assert.deepEqual(
    pages.body.pages.map((
      pg: Record<string, unknown>,
    ) => [pg.page_number, pg.is_index_page, pg.product, pg.saved_images]),
    [[1, true, null, 0], [2, false, "Oak Floor Natur", 1], [3, false, "Slate Tile Anthracite", 1], [
      4,
      false,
      "Slate Tile Anthracite",
      0,
    ]],
  );
  assert.equal(pages.body.pages[0].chunks, 0);

  const products = await get(p, a, `/api/admin/jobs/${job.job_id}/products`);
  assert.deepEqual(products.body.products.map((x: { name: string }) => x.name), [
    "Oak Floor Natur",
    "Slate Tile Anthracite",
  ]);
  assert.ok(products.body.products.every((x: { chunk_count: number }) => x.chunk_count > 0));

  const stream = await get(p, a, `/api/admin/jobs/${job.job_id}/progress/stream`);
  assert.match(stream.type, /text\/event-stream/);
  const events = [...(stream.body as string).matchAll(/event: (\w+)\ndata: (.*)\n/g)].map((
    m,
  ) => [m[1], JSON.parse(m[2])]);
  assert.deepEqual(events.map((e) => e[0]), ["progress", "done"]);
  assert.equal(events[0][1].progress, 100);

  // A running job cannot be deleted; a finished one goes with its rows and files.
  await q(p, `update public.ai_jobs set status = 'processing' where id = $1`, [job.job_id]);
  const busy = await fetch(`${aiBackendOf(p).url}/api/admin/jobs/${job.job_id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${a}` },
  });
  assert.equal(busy.status, 409);
  await busy.body?.cancel();
  await q(p, `update public.ai_jobs set status = 'completed' where id = $1`, [job.job_id]);
  const del = await fetch(`${aiBackendOf(p).url}/api/admin/jobs/${job.job_id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${a}` },
  });
  assert.equal(del.status, 200);
  assert.equal((await get(p, a, `/api/admin/jobs/${job.job_id}`)).status, 404);
  assert.equal(
    (await q(p, `select 1 from public.document_chunks where document_id = $1`, [job.document_id])).length,
    0,
  );
});

platformTest("each stage runs alone at /api/internal/<stage>/{job_id} for platform admins", async (p) => {
  const u = await createUser(p, "internal-user");
  await grant(p, u.id, 10);
  const admin = await createUser(p, "internal-admin");
  await setPlatformRole(p, admin.id, "admin");
  const form = new FormData();
  form.append("file", new File([await sampleCatalogue() as Uint8Array<ArrayBuffer>], "c.pdf"));
  form.append("defer_processing", "true"); // stepped through by hand below
  const up = await fetch(`${aiBackendOf(p).url}/api/rag/documents/upload-async`, {
    method: "POST",
    headers: { authorization: `Bearer ${u.accessToken}` },
    body: form,
  });
  const jobId = (await up.json()).job_id;

  assert.equal((await post(p, u.accessToken, `/api/internal/create-chunks/${jobId}`)).status, 403);
  const early = await post(p, admin.accessToken, `/api/internal/classify-images/${jobId}`);
  assert.equal(early.status, 409);
  assert.equal(early.body.code, "stage_not_ready");
  const [still] = await q(p, `select status from public.ai_jobs where id = $1`, [jobId]);
  assert.equal(still.status, "pending", "a refused stage leaves the job as it was");

  scriptFullRun(llm(p));
  const run = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(run.status, 200, JSON.stringify(run.body));
  assert.equal(run.body.status, "completed");
  const doc = run.body.document_id;
  const [before] = await q(
    p,
    `select count(*)::int as n from public.document_chunks where document_id = $1`,
    [doc],
  );

  // Re-running one stage replaces its rows and checkpoint, never duplicates them.
  const chunks = await post(p, admin.accessToken, `/api/internal/create-chunks/${jobId}`);
  assert.equal(chunks.status, 200, JSON.stringify(chunks.body));
  assert.equal(chunks.body.output.chunk_count, before.n);
  assert.equal(chunks.body.job.status, "completed");
  const [after] = await q(p, `select count(*)::int as n from public.document_chunks where document_id = $1`, [
    doc,
  ]);
  assert.equal(after.n, before.n);

  // A stage's ai_config: the FAST profile classifies with its own models.
  const s = llm(p);
  s.reply(verdictCall("material", 0.9), verdictCall("material", 0.9), verdictCall("logo", 0.9));
  const fast = await post(p, admin.accessToken, `/api/internal/classify-images/${jobId}`, {
    ai_config: { profile: "FAST_CONFIG" },
  });
  assert.equal(fast.status, 200, JSON.stringify(fast.body));
  assert.equal(fast.body.output.material_images.length, 2);
  const models = s.captures.requests().map((r) => (r.body as Json).model);
  assert.deepEqual(models, ["claude-haiku-4-5", "claude-haiku-4-5", "claude-haiku-4-5"]);
  const bad = await post(p, admin.accessToken, `/api/internal/classify-images/${jobId}`, {
    ai_config: { classification_confidence_threshold: 2 },
  });
  assert.equal(bad.status, 400);
});
