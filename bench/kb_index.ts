/**
 * The KB vector index, before and after the sketch change (migration
 * 20260218000100_kb_embedding_sketch.sql): `deno run -A bench/kb_index.ts [documents]` (default
 * 1,000 = 2,400 chunks of the bench corpus, fixtures/price_docs.ts, local embeddings).
 *
 * In one PGlite instance, three copies of the chunk vectors are written document by document
 * (one statement per document, as kb_upsert_document does):
 *   - `none`:   no vector index (the floor: table, TOAST-free rows, commit);
 *   - `vector`: HNSW over vector(1024) with cosine, m 16, ef_construction 64 (the index before);
 *   - `sketch`: HNSW over the 1024-bit SimHash sketch with Hamming distance (the index now).
 * It prints the write cost per document of each, and for 100 queries recall@10 against the exact
 * nearest neighbours (a full scan) and the query time: `vector` at hnsw.ef_search 100 (what
 * kb_hybrid_search set), `sketch` with a pool of 160 candidates re-ranked by exact cosine (what kb_hybrid_search takes for top 8).
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { LocalHashEmbeddings } from "../packages/shared/embeddings/local.ts";
import { embeddingSketch } from "../packages/shared/embeddings/simhash.ts";
import { toPgVector } from "../packages/shared/embeddings/provider.ts";
import { embedDocuments } from "../packages/shared/kb/store.ts";
import { MANUFACTURERS, priceDoc, PRODUCTS } from "../fixtures/price_docs.ts";
import { percentile } from "./lib.ts";

const DOCS = Math.min(Math.max(Number(Deno.args[0] ?? 1000) || 1000, 10), 10_000);
const POOL = 160;

const embeddings = new LocalHashEmbeddings();
const docs = await embedDocuments(embeddings, Array.from({ length: DOCS }, (_, i) => priceDoc(i).content));
const queries = [
  "Mapei adhesive line 3",
  "Kerakoll grout price",
  "Marazzi tiles promotion",
  "Sika sealant discount",
];
for (let i = 0; queries.length < 100; i++) {
  queries.push(`${MANUFACTURERS[i % 8]} ${PRODUCTS[(i * 3) % 8]} line ${i % 12}`);
}
const queryVectors = await embeddings.embed(queries, "query");

const db = await PGlite.create({ extensions: { vector } });
await db.exec(`
  create extension vector;
  create table none (id serial primary key, e vector(1024) not null);
  create table vec (id serial primary key, e vector(1024) not null);
  create table sketch (id serial primary key, e vector(1024) not null, s bit(1024) not null);
  alter table none alter column e set storage plain;
  alter table vec alter column e set storage plain;
  alter table sketch alter column e set storage plain;
  create index on vec using hnsw (e vector_cosine_ops);
  create index on sketch using hnsw (s bit_hamming_ops);
`);

const writeMs: Record<string, number> = {};
for (const table of ["none", "vec", "sketch"]) {
  const t0 = performance.now();
  for (const chunks of docs) {
    const e = chunks.map((c) => toPgVector(c.embedding));
    if (table === "sketch") {
      await db.query(
        `insert into sketch (e, s) select x::vector, y::bit(1024) from unnest($1::text[], $2::text[]) as u(x, y)`,
        [
          e,
          chunks.map((c) => c.embedding_sketch),
        ],
      );
    } else {
      await db.query(`insert into ${table} (e) select x::vector from unnest($1::text[]) as u(x)`, [e]);
    }
  }
  writeMs[table] = (performance.now() - t0) / DOCS;
}

const search = {
  vec: async (q: string) => {
    await db.exec("set hnsw.ef_search = 100");
    return (await db.query<{ id: number }>(`select id from vec order by e <=> $1::vector limit 10`, [q]))
      .rows;
  },
  sketch: async (q: string, s: string) => {
    await db.exec(`set hnsw.ef_search = ${POOL}`);
    return (await db.query<{ id: number }>(
      `select id from (select id, e from sketch order by s <~> $2::bit(1024) limit ${POOL}) c
        order by e <=> $1::vector limit 10`,
      [q, s],
    )).rows;
  },
};
const recall: Record<string, number> = { vec: 0, sketch: 0 };
const times: Record<string, number[]> = { vec: [], sketch: [] };
for (const v of queryVectors) {
  const q = toPgVector(v);
  const exact = new Set(
    (await db.query<{ id: number }>(`select id from none order by e <=> $1::vector limit 10`, [q])).rows.map((
      r,
    ) => r.id),
  );
  for (const name of ["vec", "sketch"] as const) {
    const t = performance.now();
    const got = await search[name](q, embeddingSketch(v));
    times[name].push(performance.now() - t);
    recall[name] += got.filter((r) => exact.has(r.id)).length / exact.size / queryVectors.length;
  }
}
await db.close();

const chunkCount = docs.reduce((n, d) => n + d.length, 0);
console.log(`KB vector index, ${DOCS} documents (${chunkCount} chunks), one statement per document`);
const p50 = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50).toFixed(2);
console.log(`  no index                      write ${writeMs.none.toFixed(2)} ms/doc`);
console.log(
  `  HNSW vector(1024), cosine     write ${writeMs.vec.toFixed(2)} ms/doc  recall@10 ${
    recall.vec.toFixed(3)
  }` +
    `  query p50 ${p50(times.vec)} ms (ef_search 100)`,
);
console.log(
  `  HNSW sketch bit(1024), exact  write ${writeMs.sketch.toFixed(2)} ms/doc  recall@10 ${
    recall.sketch.toFixed(3)
  }` +
    `  query p50 ${p50(times.sketch)} ms (pool ${POOL}, re-ranked)`,
);
console.log(
  `  index maintenance per document: ${(writeMs.vec - writeMs.none).toFixed(2)} -> ` +
    `${(writeMs.sketch - writeMs.none).toFixed(2)} ms (${
      ((writeMs.vec - writeMs.none) / (writeMs.sketch - writeMs.none)).toFixed(1)
    }x less)`,
);
