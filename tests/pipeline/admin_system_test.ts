/**
 * The Admin group's system and data actions through ai-gateway (platform admins only; a normal
 * user gets 403 on every one): health probes every dependency for real, metrics and packages
 * report real figures, export/backup/cleanup act on real rows and files, test-product goes
 * through the caller's product path and leaves nothing, OCR stores the vision model's text on
 * the image row, product embeddings fill the missing ones in bounded batches. Also: a job from
 * the gateway's multipart upload-async path that ends failed is refunded exactly once.
 */
import assert from "node:assert/strict";
import {
  createUser,
  createWorkspace,
  platformTest,
  serviceClient,
  setPlatformRole,
} from "../helpers/platform.ts";
import { balance, gateway, grant } from "../ai/helpers.ts";
import { encodeBase64 } from "../../packages/shared/embeddings/decode.ts";
import { PROMPT_DEFAULTS } from "../../services/ai-backend/mod.ts";
import type { Platform } from "../../stack/platform.ts";
import { type Json, llm, post, q, scriptFullRun } from "./helpers.ts";
import { sampleCatalogue } from "../helpers/catalogue_pdf.ts";

async function admin(p: Platform, name: string) {
  const u = await createUser(p, name);
  await setPlatformRole(p, u.id, "admin");
  return u;
}

/** Uploads and processes the sample catalogue into a workspace; answers the finished job. */
async function processInto(p: Platform, token: string, workspaceId: string): Promise<Json> {
  scriptFullRun(llm(p));
  const res = await post(p, token, "/api/rag/documents/upload", {
    pdf_base64: encodeBase64(await sampleCatalogue()),
    filename: "catalogue.pdf",
    workspace_id: workspaceId,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

platformTest("admin system: normal users get 403; health, metrics and packages are real", async (p) => {
  const user = await createUser(p, "sys-user");
  const ws = await createWorkspace(p, user.id);
  const a = (await admin(p, "sys-admin")).accessToken;
  const denied: [string, Record<string, unknown>][] = [
    ["admin_system_health", {}],
    ["admin_system_metrics", {}],
    ["admin_export_data", { workspace_id: ws }],
    ["admin_packages_status", {}],
    ["admin_cleanup_data", { dry_run: false }],
    ["admin_backup_data", { workspace_id: ws }],
    ["admin_test_product", { workspace_id: ws }],
    ["admin_process_ocr", { image_id: crypto.randomUUID() }],
    ["admin_generate_product_embeddings", { workspace_id: ws }],
  ];
  for (const [action, payload] of denied) {
    const r = await gateway(p, user.accessToken, action, payload);
    assert.equal(r.status, 403, `${action}: ${JSON.stringify(r.body)}`);
  }
  // No admin action answers 501 any more.
  for (const [action, payload] of denied) {
    const r = await gateway(p, a, action, { ...payload, dry_run: true });
    assert.notEqual(r.status, 501, `${action}: ${JSON.stringify(r.body)}`);
  }

  const s = llm(p);
  const health = await gateway(p, a, "admin_system_health", {});
  assert.equal(health.status, 200, JSON.stringify(health.body));
  const h = health.body.data;
  assert.equal(h.status, "healthy");
  assert.equal(h.checks.database.reachable, true);
  assert.ok(h.checks.storage.buckets.includes("admin-backups"));
  assert.ok(h.checks.storage.buckets.includes("ai-documents"));
  assert.deepEqual([h.checks.llm.configured, h.checks.llm.reachable], [true, true]);
  assert.deepEqual([h.checks.embeddings.reachable, h.checks.embeddings.dimensions], [true, 1024]);
  assert.equal(typeof h.checks.job_queue.pending, "number");
  const probes = s.captures.requests().filter((r) => r.path.endsWith("/messages"));
  assert.deepEqual(probes.map((r) => (r.body as Json).max_tokens), [1], "the LLM was probed with one token");
  assert.equal(h.checks.llm.model, "claude-sonnet-4-6");
  // An unreachable model (the layer's retry fails too) degrades the report and names the failure.
  s.failNext(529, { message: "Overloaded", times: 2 });
  const degraded = await gateway(p, a, "admin_system_health", {});
  assert.equal(degraded.body.data.status, "degraded");
  assert.equal(degraded.body.data.checks.llm.reachable, false);
  assert.match(degraded.body.data.checks.llm.error, /Overloaded/);

  const pkgs = await gateway(p, a, "admin_packages_status", {});
  assert.equal(pkgs.status, 200);
  const sdk = pkgs.body.data.packages.find((x: Json) => x.name === "@anthropic-ai/sdk");
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(`npm:@anthropic-ai/sdk@${sdk.version}`, denoJson.imports["@anthropic-ai/sdk"]);
  assert.equal(sdk.source, "deno.lock");
  assert.equal(pkgs.body.data.lock.available, true);
  assert.equal(pkgs.body.data.runtime.deno, Deno.version.deno);
  assert.equal(pkgs.body.data.providers.llm.configured, true);
  assert.equal(pkgs.body.data.providers.text_embeddings.dimensions, 1024);
  assert.ok(!JSON.stringify(pkgs.body).includes(p.config.serviceRoleKey), "no secrets");
});

platformTest("a failed upload-async job is refunded exactly once; metrics count it", async (p) => {
  const u = await createUser(p, "refund-user");
  await grant(p, u.id, 5);
  const form = new FormData();
  form.append("file", new File([new TextEncoder().encode("not a pdf at all")], "notes.pdf"));
  form.append("defer_processing", "true"); // run by resume below
  const up = await fetch(`${p.url}/functions/v1/ai-gateway`, {
    method: "POST",
    headers: { authorization: `Bearer ${u.accessToken}` },
    body: form,
  });
  const body = await up.json();
  assert.equal(up.status, 202, JSON.stringify(body));
  assert.equal(await balance(p, u.id), 3, "charged 2 for the upload");
  const jobId = body.data.job_id;

  const run = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(run.status, 422, JSON.stringify(run.body));
  assert.equal(run.body.details.status, "failed");
  assert.equal(run.body.details.metadata.refund.credits, 2);
  assert.equal(await balance(p, u.id), 5, "refunded");
  // Run again (resume of a failed job): it fails again, and is not refunded a second time.
  const again = await post(p, u.accessToken, `/api/rag/jobs/${jobId}/resume`);
  assert.equal(again.status, 422);
  assert.equal(await balance(p, u.id), 5);
  const refunds = await q(
    p,
    `select r.amount::float as amount from public.credit_transactions r
       join public.ai_jobs j on r.refund_of = j.credit_transaction_id where j.id = $1`,
    [jobId],
  );
  assert.deepEqual(refunds, [{ amount: 2 }]);

  const a = (await admin(p, "metrics-admin")).accessToken;
  const m = await gateway(p, a, "admin_system_metrics", {});
  assert.equal(m.status, 200, JSON.stringify(m.body));
  const [counts] = await q(
    p,
    `select count(*)::int as jobs, count(*) filter (where status = 'failed')::int as failed,
            (select count(*)::int from public.credit_transactions) as tx from public.ai_jobs`,
  );
  assert.equal(m.body.data.jobs.total, counts.jobs);
  assert.equal(m.body.data.jobs.by_status.failed, counts.failed);
  assert.ok(m.body.data.credits.debited >= 2);
  assert.ok(m.body.data.credits.refunded >= 2);
  assert.ok(m.body.data.error_rates.jobs_failed >= 1);
  const tx = m.body.data.tables.find((t: Json) => t.table === "credit_transactions");
  assert.equal(tx.rows, counts.tx);
  assert.ok(tx.total_bytes > 0);
});

platformTest("export, backup and cleanup act on real rows and files", async (p) => {
  const owner = await createUser(p, "data-owner");
  await grant(p, owner.id, 20);
  const ws = await createWorkspace(p, owner.id);
  const job = await processInto(p, owner.accessToken, ws);
  const a = (await admin(p, "data-admin")).accessToken;

  const ex = await gateway(p, a, "admin_export_data", { workspace_id: ws });
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  const e = ex.body.data;
  assert.deepEqual(
    [e.counts.jobs, e.counts.documents, e.counts.products, e.counts.images, e.counts.checkpoints],
    [1, 1, 2, 2, 7],
  );
  assert.ok(e.counts.chunks >= 4);
  assert.equal(e.documents[0].id, job.document_id);
  assert.ok(!("embedding" in e.chunks[0]) && !("visual_slig_768" in e.images[0]), "no vectors");
  assert.deepEqual(e.truncated, []);
  const small = await gateway(p, a, "admin_export_data", { job_id: job.job_id, limit: 1 });
  assert.equal(small.body.data.chunks.length, 1);
  assert.ok(small.body.data.truncated.includes("chunks"));
  assert.equal((await gateway(p, a, "admin_export_data", { job_id: crypto.randomUUID() })).status, 404);
  assert.equal((await gateway(p, a, "admin_export_data", {})).status, 400);

  await q(
    p,
    `insert into public.products (workspace_id, name, sku) values ($1, 'Oak', 'OAK-1'), ($1, 'Slate', 'SL-1')`,
    [
      ws,
    ],
  );
  const bk = await gateway(p, a, "admin_backup_data", { workspace_id: ws, tables: ["products", "ai_jobs"] });
  assert.equal(bk.status, 200, JSON.stringify(bk.body));
  assert.deepEqual(bk.body.data.row_counts, { products: 2, ai_jobs: 1 });
  assert.equal(bk.body.data.bucket, "admin-backups");
  const file = await serviceClient(p).storage.from("admin-backups").download(bk.body.data.path);
  assert.equal(file.error, null);
  const snap = JSON.parse(await file.data!.text());
  assert.deepEqual(snap.tables.products.map((r: Json) => r.sku).sort(), ["OAK-1", "SL-1"]);
  assert.equal(snap.tables.ai_jobs[0].id, job.job_id);
  assert.equal(
    (await gateway(p, a, "admin_backup_data", { workspace_id: ws, tables: ["auth.users"] })).status,
    400,
  );
  assert.equal((await gateway(p, a, "admin_backup_data", { workspace_id: crypto.randomUUID() })).status, 404);

  // Cleanup: an old failed job (with its upload), an orphan upload and an orphan image.
  const svc = serviceClient(p);
  const oldJob = crypto.randomUUID();
  const oldPath = `${owner.id}/${oldJob}/old.pdf`;
  assert.equal((await svc.storage.from("ai-documents").upload(oldPath, new Uint8Array([1]))).error, null);
  await q(
    p,
    `insert into public.ai_jobs (id, user_id, job_type, status, storage_bucket, storage_path, updated_at)
     values ($1, $2, 'document_upload', 'failed', 'ai-documents', $3, now() - interval '40 days')`,
    [oldJob, owner.id, oldPath],
  );
  const orphanUpload = `${owner.id}/${crypto.randomUUID()}/orphan.pdf`;
  const orphanImage = `${crypto.randomUUID()}/page-1-image-1.png`;
  assert.equal(
    (await svc.storage.from("ai-documents").upload(orphanUpload, new Uint8Array([1]))).error,
    null,
  );
  assert.equal(
    (await svc.storage.from("material-images").upload(orphanImage, new Uint8Array([1]))).error,
    null,
  );

  const dry = await gateway(p, a, "admin_cleanup_data", { orphan_grace_minutes: 0 });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  const d = dry.body.data;
  assert.equal(d.dry_run, true);
  assert.deepEqual(d.failed_jobs.ids, [oldJob]);
  assert.deepEqual(d.orphan_uploads.paths, [orphanUpload]);
  assert.deepEqual(d.orphan_images.paths, [orphanImage]);
  assert.equal(d.failed_jobs.deleted + d.orphan_uploads.deleted + d.orphan_images.deleted, 0);
  assert.equal(
    (await q(p, `select 1 from public.ai_jobs where id = $1`, [oldJob])).length,
    1,
    "dry run kept it",
  );

  const wet = await gateway(p, a, "admin_cleanup_data", { dry_run: false, orphan_grace_minutes: 0 });
  assert.equal(wet.status, 200, JSON.stringify(wet.body));
  const w = wet.body.data;
  assert.deepEqual(
    [w.failed_jobs.deleted, w.orphan_uploads.deleted, w.orphan_images.deleted, w.errors],
    [1, 1, 1, []],
  );
  assert.equal((await q(p, `select 1 from public.ai_jobs where id = $1`, [oldJob])).length, 0);
  const left = await q(
    p,
    `select name from storage.objects where name = any($1)`,
    [[oldPath, orphanUpload, orphanImage]],
  );
  assert.deepEqual(left, []);
  // The completed job, its document and its images are untouched.
  assert.equal(
    (await q(p, `select status from public.ai_jobs where id = $1`, [job.job_id]))[0].status,
    "completed",
  );
  const images = await q(
    p,
    `select count(*)::int as n from storage.objects where bucket_id = 'material-images' and name like $1`,
    [`${job.document_id}/%`],
  );
  assert.equal(images[0].n, 2);
  const bad = await gateway(p, a, "admin_cleanup_data", { older_than_days: 0 });
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /older_than_days/);
});

platformTest("test product, OCR and product embeddings do real work", async (p) => {
  const adminUser = await admin(p, "work-admin");
  const a = adminUser.accessToken;
  await grant(p, adminUser.id, 20);
  const ws = await createWorkspace(p, adminUser.id);
  const outsiderWs = await createWorkspace(p, (await createUser(p, "work-other")).id);

  const tp = await gateway(p, a, "admin_test_product", { workspace_id: ws });
  assert.equal(tp.status, 200, JSON.stringify(tp.body));
  assert.equal(tp.body.data.success, true, JSON.stringify(tp.body.data.steps));
  assert.deepEqual(tp.body.data.steps.map((s: Json) => s.step), [
    "create",
    "read",
    "update",
    "embed",
    "delete",
    "verify_removed",
  ]);
  assert.equal(tp.body.data.steps[0].detail.created_by, adminUser.id, "written as the caller");
  assert.equal(
    (await q(p, `select 1 from public.products where id = $1`, [tp.body.data.product_id])).length,
    0,
  );
  // The caller's own rights apply: not a member of that workspace.
  assert.equal((await gateway(p, a, "admin_test_product", { workspace_id: outsiderWs })).status, 404);

  // OCR of a processed image: the vision model gets the PNG and the stored prompt.
  const job = await processInto(p, a, ws);
  const [img] = await q(
    p,
    `select id from public.document_images where document_id = $1 order by page_number limit 1`,
    [job.document_id],
  );
  const s = llm(p);
  s.reply("OAK FLOOR NATUR\n20 mm");
  const ocr = await gateway(p, a, "admin_process_ocr", { image_id: img.id });
  assert.equal(ocr.status, 200, JSON.stringify(ocr.body));
  assert.equal(ocr.body.data.ocr_text, "OAK FLOOR NATUR\n20 mm");
  assert.equal(ocr.body.data.model, "claude-sonnet-4-6");
  const [req] = s.captures.requests().map((r) => r.body as Json);
  assert.equal(req.system, PROMPT_DEFAULTS.find((d) => d.stage === "ocr")!.prompt_text);
  assert.equal(req.messages[0].content[0].source.media_type, "image/png");
  const [row] = await q(p, `select ocr_text, ocr_model, ocr_at from public.document_images where id = $1`, [
    img.id,
  ]);
  assert.deepEqual([row.ocr_text, row.ocr_model], ["OAK FLOOR NATUR\n20 mm", "claude-sonnet-4-6"]);
  assert.ok(row.ocr_at);
  assert.equal((await gateway(p, a, "admin_process_ocr", { image_id: crypto.randomUUID() })).status, 404);
  // The provider fails twice (the layer's retry too): 502 model_unavailable, the row keeps its text.
  s.failNext(500, { times: 2 });
  const down = await gateway(p, a, "admin_process_ocr", { image_id: img.id });
  assert.deepEqual([down.status, down.body.code], [502, "model_unavailable"], JSON.stringify(down.body));
  const [kept] = await q(p, `select ocr_text from public.document_images where id = $1`, [img.id]);
  assert.equal(kept.ocr_text, "OAK FLOOR NATUR\n20 mm");

  // Product embeddings: bounded batches, only what is missing or changed.
  await q(
    p,
    `insert into public.products (workspace_id, name, sku, description) values
       ($1, 'Oak Floor', 'OF-1', 'Brushed oak'), ($1, 'Slate Tile', 'ST-1', 'Cleft slate'), ($1, 'Grout', 'GR-1', null)`,
    [ws],
  );
  const first = await gateway(p, a, "admin_generate_product_embeddings", { workspace_id: ws, limit: 2 });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual([first.body.data.embedded, first.body.data.remaining, first.body.data.total_products], [
    2,
    1,
    3,
  ]);
  const second = await gateway(p, a, "admin_generate_product_embeddings", { workspace_id: ws });
  assert.deepEqual([second.body.data.embedded, second.body.data.remaining], [1, 0]);
  const none = await gateway(p, a, "admin_generate_product_embeddings", { workspace_id: ws });
  assert.equal(none.body.data.embedded, 0);
  await q(
    p,
    `update public.products set description = 'Oiled oak' where workspace_id = $1 and sku = 'OF-1'`,
    [ws],
  );
  const changed = await gateway(p, a, "admin_generate_product_embeddings", { workspace_id: ws });
  assert.equal(changed.body.data.embedded, 1, "an edited product is re-embedded");
  const stored = await q(
    p,
    `select extensions.vector_dims(embedding) as dims, embedding_model from public.product_embeddings
      where workspace_id = $1`,
    [ws],
  );
  assert.equal(stored.length, 3);
  assert.ok(stored.every((r) => r.dims === 1024 && r.embedding_model === changed.body.data.model));
  assert.equal(
    (await gateway(p, a, "admin_generate_product_embeddings", { workspace_id: ws, limit: 0 })).status,
    400,
  );
});

platformTest(
  "export, backup and cleanup of 1,800 jobs: past 1,000 rows and long id lists, nothing is missed",
  async (p) => {
    // 1,800 job ids are ~70 kB as one `in` list (and as many document ids): more than a request line
    // takes (fetch refuses ~64 kB; gateways in front of a hosted project far less), so the reads and
    // deletes go in groups.
    const owner = await createUser(p, "many-owner");
    const ws = await createWorkspace(p, owner.id);
    const a = (await admin(p, "many-admin")).accessToken;
    const ids = (await q(
      p,
      `insert into public.ai_jobs (user_id, workspace_id, job_type, status, updated_at)
     select $1, $2, 'document_upload', 'failed', now() - interval '40 days' from generate_series(1, 1800)
     returning id`,
      [owner.id, ws],
    )).map((r: Json) => r.id as string);
    await q(
      p,
      `insert into public.pipeline_documents (id, job_id, user_id, workspace_id, filename, page_count)
     select gen_random_uuid(), j, $1, $2, 'f.pdf', 1 from unnest($3::uuid[]) j`,
      [owner.id, ws, ids],
    );
    const ex = await gateway(p, a, "admin_export_data", { workspace_id: ws, limit: 2000 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body).slice(0, 300));
    assert.deepEqual([ex.body.data.counts.jobs, ex.body.data.counts.documents], [1800, 1800]);
    assert.deepEqual(ex.body.data.truncated, []);
    assert.deepEqual(
      new Set(ex.body.data.documents.map((d: Json) => d.job_id)),
      new Set(ids),
      "every job's document, once",
    );
    const capped = await gateway(p, a, "admin_export_data", { workspace_id: ws, limit: 150 });
    assert.equal(capped.body.data.documents.length, 150);
    assert.ok(capped.body.data.truncated.includes("jobs"));
    // A backup reads past PostgREST's 1,000 max rows too: every row, not the first page.
    const bk = await gateway(p, a, "admin_backup_data", {
      workspace_id: ws,
      tables: ["ai_jobs", "pipeline_documents"],
    });
    assert.equal(bk.status, 200, JSON.stringify(bk.body).slice(0, 300));
    assert.deepEqual(bk.body.data.row_counts, { ai_jobs: 1800, pipeline_documents: 1800 });

    const wet = await gateway(p, a, "admin_cleanup_data", {
      dry_run: false,
      orphan_grace_minutes: 0,
      limit: 1000,
    });
    assert.equal(wet.status, 200, JSON.stringify(wet.body).slice(0, 300));
    // At most `limit` (1,000) per rule and run: two runs clear them all.
    assert.equal(wet.body.data.failed_jobs.deleted, 1000);
    const again = await gateway(p, a, "admin_cleanup_data", {
      dry_run: false,
      orphan_grace_minutes: 0,
      limit: 1000,
    });
    assert.ok(again.body.data.failed_jobs.deleted >= 800, JSON.stringify(again.body.data.failed_jobs));
    assert.equal(
      (await q(p, `select count(*)::int as n from public.ai_jobs where id = any($1::uuid[])`, [ids]))[0].n,
      0,
    );
  },
);
