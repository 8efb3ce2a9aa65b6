/**
 * Reads past PostgREST's max_rows (1,000 rows per response, cut without an error): the
 * create-relationships stage links every chunk and image of a large document, the admin per-page
 * and per-product counts and the job AI tracking count every row, and the admin job statistics
 * count every job.
 */
import assert from "node:assert/strict";
import { createUser, platformTest, setPlatformRole } from "../helpers/platform.ts";
import { grant } from "../ai/helpers.ts";
import { get, type Json, post, processSample, q } from "./helpers.ts";

const SEEDED_CHUNKS = 1200;
const SEEDED_IMAGES = 1100;
const SEEDED_CALLS = 1200;

platformTest(
  "reads past 1,000 rows: relationships, per-page and per-product counts, AI tracking, statistics",
  async (p) => {
    const u = await createUser(p, "max-rows-user");
    await grant(p, u.id, 10);
    const job = await processSample(p, u.accessToken);
    const doc = job.document_id as string;
    const admin = await createUser(p, "max-rows-admin");
    await setPlatformRole(p, admin.id, "admin");
    const a = admin.accessToken;

    const [page2Image] = await q(
      p,
      `select id from public.document_images where document_id = $1 and page_number = 2`,
      [
        doc,
      ],
    );
    const products = await q(p, `select id, name from public.pipeline_products where document_id = $1`, [
      doc,
    ]);
    const oak = products.find((x) => x.name === "Oak Floor Natur").id;
    const slate = products.find((x) => x.name === "Slate Tile Anthracite").id;
    const [oakBefore] = await q(
      p,
      `select count(*)::int as n from public.document_chunks where document_id = $1 and product_id = $2`,
      [doc, oak],
    );

    // 1,200 more chunks on page 1 (of the oak product), 1,100 more images on page 4.
    await q(
      p,
      `insert into public.document_chunks
       (document_id, chunk_index, content, page_start, page_end, product_id, embedding, embedding_model)
     select $1, 10000 + g, 'seeded chunk ' || g, 1, 1, $2, c.embedding, c.embedding_model
       from generate_series(1, ${SEEDED_CHUNKS}) g,
            (select embedding, embedding_model from public.document_chunks where document_id = $1 limit 1) c`,
      [doc, oak],
    );
    await q(
      p,
      `insert into public.document_images (document_id, filename, storage_url, page_number, visual_slig_768,
       color_slig_768, texture_slig_768, style_slig_768, material_slig_768)
     select $1, 'seeded-' || g || '.png', 'seeded', 4, i.visual_slig_768, i.color_slig_768,
            i.texture_slig_768, i.style_slig_768, i.material_slig_768
       from generate_series(1, ${SEEDED_IMAGES}) g,
            (select * from public.document_images where document_id = $1 limit 1) i`,
      [doc],
    );

    // create-relationships links every seeded chunk to the page-2 image (one page away) and every
    // seeded image to the slate product (pages 3-4).
    const rel = await post(p, a, `/api/internal/create-relationships/${job.job_id}`);
    assert.equal(rel.status, 200, JSON.stringify(rel.body));
    const [linked] = await q(
      p,
      `select
       (select count(distinct r.source_id)::int from public.document_relationships r
          join public.document_chunks c on c.id = r.source_id
         where r.kind = 'chunk_image' and r.image_id = $2 and c.chunk_index > 10000) as chunks,
       (select count(distinct r.image_id)::int from public.document_relationships r
          join public.document_images i on i.id = r.image_id
         where r.kind = 'product_image' and r.source_id = $3 and i.filename like 'seeded-%') as images,
       (select count(*)::int from public.document_relationships
         where document_id = $1 and kind = 'chunk_image') as chunk_image,
       (select count(*)::int from public.document_relationships
         where document_id = $1 and kind = 'product_image') as product_image`,
      [doc, page2Image.id, slate],
    );
    assert.equal(linked.chunks, SEEDED_CHUNKS, "every seeded chunk is linked to the page-2 image");
    assert.equal(linked.images, SEEDED_IMAGES, "every seeded image is linked to the slate product");
    assert.deepEqual(rel.body.output, {
      chunk_image: linked.chunk_image,
      product_image: linked.product_image,
    });
    assert.ok(rel.body.output.chunk_image > 1000 && rel.body.output.product_image > 1000);

    // Per-page counts and per-product chunk counts count every row.
    const pages = await get(p, a, `/api/admin/jobs/${job.job_id}/progress/pages`);
    assert.equal(pages.status, 200);
    assert.equal(pages.body.pages[0].chunks, SEEDED_CHUNKS);
    assert.equal(pages.body.pages[3].saved_images, SEEDED_IMAGES);
    const [perPage] = await q(
      p,
      `select count(*)::int as n from public.document_chunks where document_id = $1 and 4 between page_start and page_end`,
      [doc],
    );
    assert.equal(pages.body.pages[3].chunks, perPage.n);
    const prods = await get(p, a, `/api/admin/jobs/${job.job_id}/products`);
    assert.equal(prods.status, 200);
    const oakOut = prods.body.products.find((x: Json) => x.id === oak);
    assert.equal(oakOut.chunk_count, oakBefore.n + SEEDED_CHUNKS);
    assert.ok(oakBefore.n > 0);

    // AI tracking: 1,200 more model calls of the job, all counted and listed.
    await q(
      p,
      `insert into public.ai_job_model_calls (job_id, stage, model, purpose, input_tokens, output_tokens, latency_ms, ok)
     select $1, 'classify-images', 'seeded-model', 'classification', 3, 2, 5, g % 10 <> 0
       from generate_series(1, ${SEEDED_CALLS}) g`,
      [job.job_id],
    );
    const [calls] = await q(
      p,
      `select count(*)::int as n, sum(input_tokens)::int as input_tokens,
            count(*) filter (where not ok)::int as failed,
            count(*) filter (where stage = 'classify-images')::int as classify
       from public.ai_job_model_calls where job_id = $1`,
      [job.job_id],
    );
    const track = await get(p, u.accessToken, `/api/rag/jobs/${job.job_id}/ai-tracking`);
    assert.equal(track.status, 200);
    assert.equal(track.body.totals.calls, calls.n);
    assert.equal(track.body.calls.length, calls.n);
    assert.equal(track.body.totals.failed, calls.failed);
    assert.equal(track.body.totals.input_tokens, calls.input_tokens);
    assert.equal(track.body.by_model["seeded-model"].calls, SEEDED_CALLS);
    const byStage = await get(
      p,
      u.accessToken,
      `/api/rag/jobs/${job.job_id}/ai-tracking/stage/classify-images`,
    );
    assert.equal(byStage.body.calls.length, calls.classify);
    const byModel = await get(p, u.accessToken, `/api/rag/jobs/${job.job_id}/ai-tracking/model/seeded-model`);
    assert.equal(byModel.body.totals.calls, SEEDED_CALLS);

    // Statistics over 1,200 more jobs: 700 completed in 10 s, 500 failed at classify-images after a retry.
    await q(
      p,
      `insert into public.ai_jobs (user_id, job_type, status, current_stage, attempts, started_at, completed_at)
     select $1, 'document_upload',
            case when g <= 700 then 'completed' else 'failed' end,
            case when g <= 700 then 'create-relationships' else 'classify-images' end,
            case when g <= 700 then 1 else 2 end,
            now() - interval '20 seconds', now() - interval '10 seconds'
       from generate_series(1, 1200) g`,
      [u.id],
    );
    const [expected] = await q(
      p,
      `select count(*)::int as total,
            count(*) filter (where status = 'completed')::int as completed,
            count(*) filter (where status = 'failed')::int as failed,
            count(*) filter (where status = 'failed' and current_stage = 'classify-images')::int as failed_classify,
            count(*) filter (where attempts > 1)::int as retried,
            avg(extract(epoch from completed_at - started_at))
              filter (where status = 'completed' and started_at is not null and completed_at is not null)::float8
              as avg_seconds
       from public.ai_jobs`,
    );
    const stats = await get(p, a, "/api/admin/jobs/statistics");
    assert.equal(stats.status, 200);
    assert.ok(expected.total > 1200);
    assert.equal(stats.body.total_jobs, expected.total);
    assert.deepEqual(stats.body.by_status, {
      pending: 0,
      processing: 0,
      completed: expected.completed,
      failed: expected.failed,
      cancelled: 0,
    });
    assert.equal(stats.body.failed_by_stage["classify-images"], expected.failed_classify);
    assert.equal(stats.body.jobs_run_more_than_once, expected.retried);
    assert.equal(stats.body.success_rate, expected.completed / (expected.completed + expected.failed));
    assert.ok(Math.abs(stats.body.average_duration_seconds - expected.avg_seconds) < 1e-6);
  },
);
