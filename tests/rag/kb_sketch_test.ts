/**
 * The KB vector index over SimHash sketches (migration 20260218000100_kb_embedding_sketch.sql):
 * the SQL sketch equals the TypeScript one bit for bit, the trigger sketches chunks written
 * without one, kb_hybrid_search's HNSW branch (more than 500 candidate chunks) finds the exact
 * nearest neighbours through the sketches (recall@10 against an exact scan), computes the query's
 * sketch itself when a SQL caller passes none, and refuses a sketch of the wrong length.
 */
import assert from "node:assert/strict";
import { anonClient, platformTest } from "../helpers/platform.ts";
import { createTeam } from "../helpers/team.ts";
import { embeddingSketch, SKETCH_BITS, sketchBits } from "../../packages/shared/embeddings/simhash.ts";
import { hashEmbed, toPgVector } from "../../packages/shared/embeddings/mod.ts";
import { embedDocuments } from "../../packages/shared/kb/store.ts";
import { LocalHashEmbeddings } from "../../packages/shared/embeddings/local.ts";
import { contentHash } from "../../packages/shared/content_hash.ts";
import type { Platform } from "../../stack/platform.ts";
import { MANUFACTURERS, PRODUCTS } from "../../fixtures/price_docs.ts";

const bitsOf = (v: readonly number[]) => Array.from(sketchBits(v)).join("");

async function sqlSketch(p: Platform, v: readonly number[]): Promise<string> {
  const r = await p.db.query<{ b: string }>(
    `select public.kb_embedding_bits($1::extensions.vector)::text as b`,
    [
      toPgVector([...v]),
    ],
  );
  return r.rows[0].b;
}

platformTest("the SQL sketch equals the TypeScript sketch, bit for bit", async (p) => {
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
  const table: [string, number[]][] = [
    ["local provider, short text", hashEmbed("Mapei adhesive line 3")],
    ["local provider, one word", hashEmbed("x")],
    ["local provider, price row", hashEmbed("| MA-1-2 | Mapei grout line 2 | piece | 17.00 |")],
    ["dense random", Array.from({ length: SKETCH_BITS }, random)],
    [
      "dense random as writers send it (7 digits)",
      Array.from({ length: SKETCH_BITS }, () => +random().toPrecision(7)),
    ],
    ["one component", Array.from({ length: SKETCH_BITS }, (_, i) => (i === 517 ? 1 : 0))],
    ["negative constant", new Array(SKETCH_BITS).fill(-0.03125)],
    ["zero vector", new Array(SKETCH_BITS).fill(0)],
  ];
  for (const [name, v] of table) {
    assert.equal(await sqlSketch(p, v), bitsOf(v), name);
  }
  const wrong = await p.db.query(`select public.kb_embedding_bits($1::extensions.vector)`, [
    toPgVector([1, 0, 0]),
  ])
    .then(() => null, (err) => err as { code?: string; message: string });
  assert.equal(wrong?.code, "22023", "a vector of another dimension is refused");
  // Signed-in callers only: anon has no use for it (and it costs ~17 ms a call).
  const anon = await anonClient(p).rpc("kb_embedding_bits", { p_embedding: toPgVector(hashEmbed("x")) });
  assert.equal(anon.error?.code, "42501", JSON.stringify(anon));
});

platformTest("a chunk written without a sketch gets it from the trigger, and keeps it in step", async (p) => {
  const t = await createTeam(p, { prefix: "sketch-trg" });
  const doc = await p.db.query<{ id: string }>(
    `insert into public.kb_docs (workspace_id, title, content, content_hash) values ($1, 'Trigger doc', 'x', $2)
     returning id`,
    [t.ws, await contentHash("x")],
  );
  const docId = doc.rows[0].id;
  const a = hashEmbed("Ardex primer coverage");
  const b = hashEmbed("Schlüter profile finish");
  const sketch = async (id: string) =>
    (await p.db.query<{ s: string | null }>(
      `select embedding_sketch::text as s from public.kb_doc_chunks where id = $1`,
      [id],
    )).rows[0].s;
  const ins = await p.db.query<{ id: string }>(
    `insert into public.kb_doc_chunks (doc_id, chunk_index, content, char_start, char_end, embedding)
     values ($1, 0, 'c', 0, 1, $2::extensions.vector)
     returning id`,
    [docId, toPgVector(a)],
  );
  const id = ins.rows[0].id;
  assert.equal(await sketch(id), bitsOf(a), "insert without a sketch");
  await p.db.query(`update public.kb_doc_chunks set embedding = $2::extensions.vector where id = $1`, [
    id,
    toPgVector(b),
  ]);
  assert.equal(await sketch(id), bitsOf(b), "a new embedding without a new sketch is sketched again");
  await p.db.query(
    `update public.kb_doc_chunks set embedding = $2::extensions.vector, embedding_sketch = $3::bit(1024) where id = $1`,
    [id, toPgVector(a), embeddingSketch(a)],
  );
  assert.equal(await sketch(id), bitsOf(a), "a sketch given with the embedding is kept");
  await p.db.query(`update public.kb_doc_chunks set content = 'c2' where id = $1`, [id]);
  assert.equal(await sketch(id), bitsOf(a), "other updates leave it alone");
});

const MAKERS = [...MANUFACTURERS, "Laticrete"];
const THINGS = [...PRODUCTS, "mortar"];
const COLOURS = ["white", "grey", "anthracite", "beige", "black", "sand", "terracotta"];

/** A one-chunk document of a varied vocabulary. */
function docText(i: number): string {
  const m = MAKERS[i % MAKERS.length];
  const t = THINGS[(i * 5) % THINGS.length];
  return `${m} ${t} ${COLOURS[(i * 3) % COLOURS.length]} line ${i % 13}, size ${i % 11} mm, ` +
    `pack ${(i * 7) % 17} kg, for ${i % 2 ? "indoor" : "outdoor"} use, batch ${i}`;
}

platformTest("the HNSW branch finds the exact nearest neighbours through the sketches", async (p) => {
  const t = await createTeam(p, { prefix: "sketch-recall" });
  const cat = await t.owner.client.from("kb_categories").insert({
    workspace_id: t.ws,
    name: "Guides",
    slug: "guides",
  })
    .select("id").single();
  assert.equal(cat.error, null);
  const categoryId = cat.data!.id as string;
  const embeddings = new LocalHashEmbeddings();
  const DOCS = 560; // more than 500 chunks: kb_hybrid_search walks the index
  for (let from = 0; from < DOCS; from += 100) {
    const texts = Array.from({ length: Math.min(100, DOCS - from) }, (_, k) => docText(from + k));
    const chunks = await embedDocuments(embeddings, texts);
    const documents = await Promise.all(texts.map(async (content, k) => ({
      title: `Guide ${from + k}`,
      category_id: categoryId,
      content,
      content_hash: await contentHash(content),
      chunks: chunks[k],
      embedding_model: embeddings.model,
    })));
    const r = await t.owner.client.rpc("kb_upsert_documents", {
      p_workspace_id: t.ws,
      p_documents: documents,
    });
    assert.equal(r.error, null, JSON.stringify(r.error));
  }
  const count = await p.db.query<{ n: number; sketched: number }>(
    `select count(*)::int as n, count(embedding_sketch)::int as sketched from public.kb_doc_chunks
      where workspace_id = $1`,
    [t.ws],
  );
  assert.deepEqual(count.rows[0], { n: DOCS, sketched: DOCS });

  let hits = 0;
  let total = 0;
  for (let q = 0; q < 20; q++) {
    const i = (q * 37) % DOCS;
    const query =
      `${MAKERS[i % MAKERS.length]} ${THINGS[(q * 2) % THINGS.length]} ${COLOURS[q % COLOURS.length]} ` +
      `line ${q % 13}`;
    const v = (await embeddings.embed([query], "query"))[0];
    const exact = await p.db.query<{ id: string }>(
      `select id from public.kb_doc_chunks where workspace_id = $1
        order by embedding operator(extensions.<=>) $2::extensions.vector, id limit 10`,
      [t.ws, toPgVector(v)],
    );
    const args = {
      p_workspace_id: t.ws,
      // Words in no chunk: the candidates are the vector branch's alone.
      p_query_text: "qqqzzzxx",
      p_query_embedding: toPgVector(v),
      p_match_count: 10,
      p_match_threshold: -1,
      p_vector_weight: 1,
      p_category_id: categoryId,
    };
    const viaSketch = await t.owner.client.rpc("kb_hybrid_search", {
      ...args,
      p_query_sketch: embeddingSketch(v),
    });
    assert.equal(viaSketch.error, null, JSON.stringify(viaSketch.error));
    const got = (viaSketch.data as { chunk_id: string }[]).map((r) => r.chunk_id);
    assert.equal(got.length, 10);
    const want = new Set(exact.rows.map((r) => r.id));
    hits += got.filter((id) => want.has(id)).length;
    total += want.size;
    if (q < 3) {
      // A SQL caller without a sketch gets the same one computed by the function.
      const computed = await t.owner.client.rpc("kb_hybrid_search", args);
      assert.deepEqual((computed.data as { chunk_id: string }[]).map((r) => r.chunk_id), got, query);
    }
  }
  const recall = hits / total;
  assert.ok(recall >= 0.9, `recall@10 ${recall.toFixed(3)} (bench corpus: 0.983)`);

  const short = await t.owner.client.rpc("kb_hybrid_search", {
    p_workspace_id: t.ws,
    p_query_text: "Mapei",
    p_query_embedding: toPgVector(hashEmbed("Mapei")),
    p_query_sketch: "x00ff",
    p_category_id: categoryId,
  });
  assert.equal(short.error?.code, "22023", JSON.stringify(short));
  assert.match(short.error!.message, /p_query_sketch must have 1024 bits, got 16/);
});
