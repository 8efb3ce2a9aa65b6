/**
 * Reads past PostgREST's max_rows (1,000 rows per response, cut without an error): a user with
 * 1,200 upload jobs and a processed document of 1,100 products, 1,200 chunks and 1,200 images,
 * seeded by SQL. Through HTTP: /api/rag/documents/{id}/content answers every product, chunk and
 * image; /api/rag/stats counts every job per status; the storage estimate sums every job's bytes;
 * a text-only visual search seeds from the images on the hit's page even when they come after the
 * first 1,000 images of the document.
 */
import assert from "node:assert/strict";
import { createUser, platformTest, setPlatformRole } from "../helpers/platform.ts";
import type { Platform } from "../../stack/platform.ts";
import { get, type Json, q } from "../pipeline/helpers.ts";
import { grant, ok } from "./helpers.ts";

const JOBS = 1200;
const PRODUCTS = 1100;
const CHUNKS = 1200;
const IMAGES = 1200;
/** Images on page 9, inserted last: after the first 1,000 of the document. */
const PAGE9_IMAGES = 10;

interface Seeded {
  token: string;
  userId: string;
  documentId: string;
  page9Images: string[];
}

const seeded = new WeakMap<Platform, Promise<Seeded>>();

function seed(p: Platform): Promise<Seeded> {
  let s = seeded.get(p);
  if (!s) {
    s = (async () => {
      const u = await createUser(p, "max-rows");
      // Job i: failed when i % 10 = 0 (120), completed otherwise (1,080); size_bytes 1000 + i.
      await q(
        p,
        `insert into public.ai_jobs (user_id, job_type, status, filename, size_bytes)
         select $1, 'document_upload', case when i % 10 = 0 then 'failed' else 'completed' end,
                'doc-' || i || '.pdf', 1000 + i
           from generate_series(1, $2::int) i`,
        [u.id, JOBS],
      );
      const [doc] = await q(
        p,
        `insert into public.pipeline_documents (id, job_id, user_id, filename, page_count)
         select gen_random_uuid(), id, $1, 'big.pdf', 10 from public.ai_jobs
          where user_id = $1 and filename = 'doc-1.pdf'
         returning id`,
        [u.id],
      );
      await q(
        p,
        `insert into public.pipeline_products (document_id, name, page_start, page_end)
         select $1, 'Product ' || i, 1 + i % 9, 1 + i % 9 from generate_series(1, $2::int) i`,
        [doc.id, PRODUCTS],
      );
      // Chunk 0..1198 on page 1; the last one, on page 9, names the quartz. The filler chunks
      // have zero vectors, which pgvector's cosine HNSW index leaves out (inserting 1,200
      // indexed vectors costs over a minute on PGlite); the table holds them all the same.
      await q(
        p,
        `insert into public.document_chunks
           (document_id, chunk_index, content, page_start, page_end, embedding, embedding_model)
         select $1, i, case when last then 'Zanzibar quartz countertop, polished'
                            else 'filler paragraph number ' || i end,
                case when last then 9 else 1 end, case when last then 9 else 1 end,
                array_fill(case when last then 0.03 else 0 end, array[1024])::real[]::extensions.vector(1024),
                'test'
           from generate_series(0, $2::int - 1) i, lateral (select i = $2::int - 1 as last) l`,
        [doc.id, CHUNKS],
      );
      // Images 1..1190 on page 1 (zero vectors, left out of the HNSW indexes as above), the last
      // ten on page 9 (distinct vectors).
      await q(
        p,
        `insert into public.document_images (document_id, filename, storage_url, page_number,
           visual_slig_768, color_slig_768, texture_slig_768, style_slig_768, material_slig_768)
         select $1, 'img-' || lpad(i::text, 5, '0') || '.png', 'https://example.test/' || i || '.png',
                case when p9 then 9 else 1 end, v, v, v, v, v
           from generate_series(1, $2::int) i,
                lateral (select i > $2::int - $3::int as p9) f,
                lateral (select (select array_agg(case when p9 and k = i % 768 + 1 then 1
                                                       when p9 then 0.01 else 0 end)
                                   from generate_series(1, 768) k)::real[]::extensions.vector(768) as v) vec
          order by i`,
        [doc.id, IMAGES, PAGE9_IMAGES],
      );
      const page9 = await q(
        p,
        `select id from public.document_images where document_id = $1 and page_number = 9 order by filename`,
        [doc.id],
      );
      return {
        token: u.accessToken,
        userId: u.id,
        documentId: doc.id,
        page9Images: page9.map((r: Json) => r.id as string),
      };
    })();
    seeded.set(p, s);
  }
  return s;
}

platformTest("content, stats and storage estimate count past 1,000 rows", async (p) => {
  const s = await seed(p);
  const content = await get(p, s.token, `/api/rag/documents/${s.documentId}/content`);
  assert.equal(content.status, 200, JSON.stringify(content.body).slice(0, 300));
  assert.equal(content.body.document.id, s.documentId);
  assert.equal(content.body.products.length, PRODUCTS);
  assert.equal(new Set(content.body.products.map((r: Json) => r.id)).size, PRODUCTS, "no product twice");
  assert.deepEqual(
    content.body.chunks.map((r: Json) => r.chunk_index),
    Array.from({ length: CHUNKS }, (_, i) => i),
    "every chunk, in chunk_index order",
  );
  assert.equal(content.body.images.length, IMAGES);
  assert.equal(new Set(content.body.images.map((r: Json) => r.id)).size, IMAGES, "no image twice");
  const pages = content.body.products.map((r: Json) => r.page_start);
  assert.deepEqual(pages, [...pages].sort((a, b) => a - b), "products by page");

  const stats = await get(p, s.token, "/api/rag/stats");
  assert.equal(stats.status, 200);
  assert.deepEqual(stats.body, {
    jobs_by_status: { completed: JOBS - JOBS / 10, failed: JOBS / 10 },
    documents: 1,
    products: PRODUCTS,
    chunks: CHUNKS,
    images: IMAGES,
  });

  // Platform-wide: every job's bytes, not those of an arbitrary 1,000.
  await setPlatformRole(p, s.userId, "admin");
  const [all] = await q(
    p,
    `select count(*)::int as n, coalesce(sum(size_bytes), 0)::bigint as bytes from public.ai_jobs`,
  );
  assert.ok(all.n >= JOBS);
  const seededBytes = Array.from({ length: JOBS }, (_, i) => 1001 + i).reduce((a, b) => a + b, 0);
  assert.ok(Number(all.bytes) >= seededBytes);
  const est = await get(p, s.token, "/api/monitoring/storage-estimate");
  assert.equal(est.status, 200, JSON.stringify(est.body));
  assert.equal(est.body.uploaded_document_bytes, Number(all.bytes));
  assert.equal(
    est.body.total_bytes,
    est.body.kb_content_bytes + est.body.kb_embedding_bytes + Number(all.bytes),
  );
});

platformTest("a text-only visual search seeds from the hit's page past the first 1,000 images", async (p) => {
  const s = await seed(p);
  await grant(p, s.userId, 5);
  const r = await ok(p, s.token, "rag_search", {
    strategy: "visual",
    query: "Zanzibar quartz countertop",
    page_range: { from: 9, to: 9 },
    top_k: 3,
  });
  assert.deepEqual([...r.seed_image_ids].sort(), [...s.page9Images].sort());
  assert.ok(r.results.length > 0, JSON.stringify(r));
});
