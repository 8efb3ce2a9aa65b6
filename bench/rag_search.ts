/**
 * RAG retrieval benchmark: `deno run -A bench/rag_search.ts [chunks] [price documents]`
 * (defaults 100,000 and 1,000).
 *
 * 1. Hybrid search over `chunks` processed-document chunks (100 documents of one workspace plus
 *    a second workspace's 10, each chunk a synthetic catalogue passage embedded by the local
 *    provider, HNSW and GIN built after the load as a bulk load would): p50/p95/p99 of
 *    rag_search_chunks alone (SQL, as the user) and of POST /api/rag/search (hybrid) end to end.
 * 2. Quick pick (search_knowledge_base, category_slug pricing) over `price documents` ingested
 *    through the KB's own path, end to end through the AI backend and through ai-gateway, and
 *    the breakdown of one request: JWT + caller, billing debit, access look-up, embedding, SQL.
 */
import { aiBackendOf } from "../stack/ai-backend/part.ts";
import { createUser, createWorkspace, startEphemeralPlatform } from "../fixtures/platform.ts";
import { sqlAs } from "../fixtures/sql.ts";
import { hashEmbed } from "../packages/shared/embeddings/local.ts";
import { embeddingSketch } from "../packages/shared/embeddings/simhash.ts";
import { fmtLoad, load, percentile } from "./lib.ts";

/** 0 skips the chunk part (quick pick only). */
const CHUNKS = Deno.args[0] === "0"
  ? 0
  : Math.min(Math.max(Number(Deno.args[0] ?? 100_000) || 100_000, 1000), 500_000);
const PRICE_DOCS = Math.min(Math.max(Number(Deno.args[1] ?? 1000) || 1000, 10), 20_000);

const MAKERS = [
  "Mapei",
  "Kerakoll",
  "Marazzi",
  "Porcelanosa",
  "Ardex",
  "Schluter",
  "Sika",
  "Weber",
  "Kahrs",
  "Tarkett",
];
const PRODUCTS = [
  "adhesive",
  "grout",
  "primer",
  "tiles",
  "membrane",
  "profile",
  "sealant",
  "screed",
  "plank",
  "slate",
];
const ATTRS = [
  "frost resistant for outdoor terraces",
  "slip rating R11 for wet areas",
  "open time 30 minutes",
  "coverage 3.5 kg per m2",
  "rectified edges 1200 x 600 mm",
  "suitable over underfloor heating",
  "fire rating Cfl-s1",
  "water absorption under 0.5 percent",
  "pot life 8 hours once mixed",
  "colour anthracite grey",
  "matt lacquer finish",
  "class 33 commercial use",
];

function passage(i: number): string {
  const m = MAKERS[i % MAKERS.length];
  const p = PRODUCTS[Math.floor(i / 10) % PRODUCTS.length];
  const a = ATTRS[(i * 7) % ATTRS.length], b = ATTRS[(i * 11 + 3) % ATTRS.length];
  return `${m} ${p} line ${i % 97}: ${a}; ${b}. SKU ${m.slice(0, 3).toUpperCase()}-${i}. ` +
    `Install according to the ${m} technical sheet, section ${i % 13}.`;
}

function ms(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `p50=${percentile(s, 50).toFixed(2)}ms p95=${percentile(s, 95).toFixed(2)}ms p99=${
    percentile(s, 99).toFixed(2)
  }ms`;
}

async function timed(n: number, fn: (i: number) => Promise<unknown>, warmup = 10): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

const platform = await startEphemeralPlatform();
try {
  const owner = await createUser(platform, "bench-rag");
  const other = await createUser(platform, "bench-rag-other");
  const ws = await createWorkspace(platform, owner.id);
  const otherWs = await createWorkspace(platform, other.id);
  await sqlAs(platform, { role: "service_role" }, `select public.grant_credits($1, 1000000)`, [owner.id]);
  const backend = aiBackendOf(platform).url;
  const db = platform.db;

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${backend}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const chunkPart = async () => {
    // ---- 1. load the chunks ----
    const t0 = performance.now();
    await db.exec(
      `drop index public.document_chunks_embedding_idx; drop index public.document_chunks_fts_idx;`,
    );
    const docs: string[] = [];
    for (let d = 0; d < 110; d++) {
      const [user, w] = d < 100 ? [owner.id, ws] : [other.id, otherWs];
      const job = (await db.query<{ id: string }>(
        `insert into public.ai_jobs (user_id, workspace_id, job_type, status, progress)
       values ($1, $2, 'document_upload', 'completed', 100) returning id`,
        [user, w],
      )).rows[0].id;
      const id = crypto.randomUUID();
      await db.query(
        `insert into public.pipeline_documents (id, job_id, user_id, workspace_id, filename, page_count)
       values ($1, $2, $3, $4, $5, 500)`,
        [id, job, user, w, `catalogue-${d}.pdf`],
      );
      docs.push(id);
    }
    const perDoc = Math.ceil(CHUNKS / docs.length);
    const BATCH = 500;
    for (let start = 0; start < CHUNKS; start += BATCH) {
      const n = Math.min(BATCH, CHUNKS - start);
      const ids: string[] = [],
        idx: number[] = [],
        texts: string[] = [],
        pages: number[] = [],
        vecs: string[] = [];
      for (let j = 0; j < n; j++) {
        const i = start + j;
        const text = passage(i);
        ids.push(docs[Math.floor(i / perDoc)]);
        idx.push(i % perDoc);
        texts.push(text);
        pages.push(1 + Math.floor((i % perDoc) / 4));
        vecs.push(`[${hashEmbed(text).map((x) => x.toFixed(5)).join(",")}]`);
      }
      await db.query(
        `insert into public.document_chunks (document_id, chunk_index, content, page_start, page_end, embedding, embedding_model)
       select d, i, c, pg, pg, v::extensions.vector, 'local-hash-v1'
         from unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[]) as t(d, i, c, pg, v)`,
        [ids, idx, texts, pages, vecs],
      );
    }
    const loaded = performance.now();
    await db.exec(`set maintenance_work_mem = '1GB'`);
    await db.exec(`create index document_chunks_fts_idx on public.document_chunks using gin (fts)`);
    const gin = performance.now();
    await db.exec(
      `create index document_chunks_embedding_idx on public.document_chunks using hnsw (embedding extensions.vector_cosine_ops)`,
    );
    await db.exec(`analyze public.document_chunks; analyze public.pipeline_documents`);
    const built = performance.now();
    console.log(
      `load ${CHUNKS} chunks`.padEnd(44) +
        ` ${((loaded - t0) / 1000).toFixed(1)} s; GIN ${((gin - loaded) / 1000).toFixed(1)} s; HNSW ${
          ((built - gin) / 1000).toFixed(1)
        } s`,
    );

    const queries = [
      "Mapei adhesive open time",
      "frost resistant slate for outdoor terraces",
      "Kerakoll grout colour anthracite grey",
      "SKU SIK-4242",
      "plank suitable over underfloor heating",
      "slip rating R11 tiles wet areas",
      "Weber screed pot life",
      "Porcelanosa tiles rectified edges",
    ];
    const vectors = queries.map((q) => `[${hashEmbed(q).join(",")}]`);
    for (const mode of ["semantic", "keyword", "hybrid"]) {
      const lat = await timed(200, (i) =>
        sqlAs(
          platform,
          { role: "authenticated", userId: owner.id },
          `select chunk_id from public.rag_search_chunks($1, $2::extensions.vector, $3, 10, $4)`,
          [queries[i % queries.length], vectors[i % queries.length], mode, ws],
        ));
      console.log(`rag_search_chunks ${mode} (SQL, ${CHUNKS} chunks)`.padEnd(44) + ` n=200 ${ms(lat)}`);
    }
    let q = 0;
    const hybridLat: number[] = [];
    const hybrid = await load(async () => {
      const s = performance.now();
      const r = await post("/api/rag/search", {
        query: queries[q++ % queries.length],
        strategy: "hybrid",
        top_k: 10,
      });
      hybridLat.push(performance.now() - s);
      return r.results.length > 0;
    }, { requests: 300, concurrency: 1, warmup: 20 });
    console.log(fmtLoad(`rag_search hybrid, AI backend (${CHUNKS} chunks)`, hybrid));
    console.log(`rag_search hybrid, AI backend`.padEnd(44) + ` ${ms(hybridLat.slice(20))}`);
  };

  const quickPickPart = async () => {
    // ---- 2. quick pick ----
    const category =
      (await post("/api/kb/categories", { workspace_id: ws, name: "Pricing", slug: "pricing" })).category.id;
    let next = 0;
    const t1 = performance.now();
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (next < PRICE_DOCS) {
        const i = next++;
        const m = MAKERS[i % 8];
        const rows = Array.from(
          { length: 12 },
          (_, r) =>
            `| ${m.slice(0, 2).toUpperCase()}-${i}-${r} | ${m} ${PRODUCTS[(i + r) % 8]} line ${r} | piece | ${
              (10 + ((i * 7 + r) % 90)).toFixed(2)
            } |`,
        );
        await post("/api/kb/documents", {
          workspace_id: ws,
          title: `${m} price list ${i}`,
          category_id: category,
          price_doc_type: "price_list",
          content:
            `# ${m} price list ${i}\nManufacturer: ${m}\nAll prices in EUR, valid from 2026-01-01\n\n` +
            `| SKU | Product | Unit | Price |\n|---|---|---|---|\n${rows.join("\n")}\n`,
        });
      }
    }));
    console.log(
      `ingest ${PRICE_DOCS} price documents`.padEnd(44) +
        ` ${((performance.now() - t1) / 1000).toFixed(1)} s`,
    );

    const pq = [
      "Mapei adhesive line 3",
      "Kerakoll grout price",
      "Marazzi tiles promotion",
      "Sika sealant discount",
    ];
    const quickBody = (i: number) => ({
      workspace_id: ws,
      query: pq[i % pq.length],
      category_slug: "pricing",
      top_k: 8,
    });
    const direct = await timed(300, (i) => post("/api/rag/search/knowledge-base", quickBody(i)), 20);
    console.log(`quick pick, AI backend (1 client)`.padEnd(44) + ` n=300 ${ms(direct)}`);
    const viaGateway = await timed(200, async (i) => {
      const res = await fetch(`${platform.url}/functions/v1/ai-gateway`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ action: "search_knowledge_base", payload: quickBody(i) }),
      });
      await res.json();
    }, 20);
    console.log(`quick pick, via ai-gateway (1 client)`.padEnd(44) + ` n=200 ${ms(viaGateway)}`);

    // Breakdown: each piece of one quick-pick request on its own.
    const rest = (fn: string, args: unknown, token: string) =>
      fetch(`${platform.url}/rest/v1/rpc/${fn}`, {
        method: "POST",
        headers: {
          apikey: platform.config.anonKey,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(args),
      }).then((r) => r.json());
    const parts: [string, () => Promise<unknown>][] = [
      ["embed the query (local provider)", () => Promise.resolve(hashEmbed(pq[0]))],
      ["caller: GET /health (HTTP floor, no auth)", () => fetch(`${backend}/health`).then((r) => r.json())],
      ["access: rpc get_my_access (REST)", () => rest("get_my_access", {}, owner.accessToken)],
      [
        "billing: rpc bill_gateway_action (REST)",
        () =>
          rest("bill_gateway_action", {
            p_user_id: owner.id,
            p_action: "search_knowledge_base",
            p_cost_key: "rag_text_search",
            p_quantity: 1,
            p_workspace_id: ws,
            p_reference_id: "bench",
            p_metadata: {},
          }, platform.config.serviceRoleKey),
      ],
      [
        "search: rpc kb_hybrid_search (REST)",
        () =>
          rest("kb_hybrid_search", {
            p_workspace_id: ws,
            p_query_text: pq[1],
            p_query_embedding: `[${hashEmbed(pq[1]).join(",")}]`,
            p_query_sketch: embeddingSketch(hashEmbed(pq[1])),
            p_match_count: 8,
            p_match_threshold: 0.15,
            p_category_slug: "pricing",
          }, owner.accessToken),
      ],
      [
        "search: kb_hybrid_search (SQL only)",
        () =>
          sqlAs(
            platform,
            { role: "authenticated", userId: owner.id },
            `select * from public.kb_hybrid_search($1, $2, $3::extensions.vector, 8, 0.15, null, 'pricing',
              p_query_sketch => $4::bit varying)`,
            [ws, pq[1], `[${hashEmbed(pq[1]).join(",")}]`, embeddingSketch(hashEmbed(pq[1]))],
          ),
      ],
    ];
    for (const [name, fn] of parts) {
      console.log(`  ${name}`.padEnd(44) + ` n=200 ${ms(await timed(200, fn))}`);
    }
  };
  if (CHUNKS > 0) await chunkPart();
  await quickPickPart();
} finally {
  await platform.stop();
}
