/**
 * Knowledge-base benchmark: `deno run -A bench/kb.ts [documents] [batch size]` (defaults 1,000
 * and 100).
 *
 * Starts an ephemeral local platform, creates a workspace with the Pricing category, then:
 *   - ingest: writes `documents` price documents (price lists, discount rules, promotions) with
 *     4 concurrent writers through the AI backend, one POST /api/kb/documents each (chunk + local
 *     embeddings + one RPC each), and reports documents per second and chunks stored;
 *   - quick pick: search_knowledge_base with category_slug pricing (embed the query + hybrid SQL
 *     over HNSW and GIN), sequential, and reports p50/p99 latency; also through the ai-gateway
 *     edge function (auth, billing, proxy) to show the gateway's share;
 *   - batch ingest: the same documents into a second workspace through POST
 *     /api/kb/documents/batch, `batch size` documents per request, 2 concurrent writers (after the
 *     quick pick, so that it searches the same index as before this phase existed).
 * The embedding provider is the local one, so the figures measure this system, not a network.
 */
import { aiBackendOf } from "../stack/ai-backend/part.ts";
import { createUser, createWorkspace, startEphemeralPlatform } from "../fixtures/platform.ts";
import { sqlAs } from "../fixtures/sql.ts";
import { fmtLoad, load } from "./lib.ts";
import { priceDoc } from "../fixtures/price_docs.ts";

const DOCS = Math.min(Math.max(Number(Deno.args[0] ?? 1000) || 1000, 10), 20_000);
const BATCH = Math.min(Math.max(Number(Deno.args[1] ?? 100) || 100, 1), 100);
const platform = await startEphemeralPlatform();
try {
  const owner = await createUser(platform, "bench-kb");
  const ws = await createWorkspace(platform, owner.id);
  await sqlAs(platform, { role: "service_role" }, `select public.grant_credits($1, 1000000)`, [owner.id]);
  const backend = aiBackendOf(platform).url;
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
  const category =
    (await post("/api/kb/categories", { workspace_id: ws, name: "Pricing", slug: "pricing" })).category.id;

  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < DOCS) {
      const d = priceDoc(next++);
      await post("/api/kb/documents", {
        workspace_id: ws,
        title: d.title,
        category_id: category,
        price_doc_type: d.type,
        content: d.content,
      });
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const chunks =
    (await platform.db.query<{ n: number }>(`select count(*)::int as n from public.kb_doc_chunks`)).rows[0].n;
  console.log(
    `ingest ${DOCS} price documents (4 writers, cores ${navigator.hardwareConcurrency})`.padEnd(44) +
      ` ${seconds.toFixed(1)} s  ${(DOCS / seconds).toFixed(1)} docs/s  ${chunks} chunks`,
  );

  const queries = [
    "Mapei adhesive line 3",
    "Kerakoll grout price",
    "Marazzi tiles promotion",
    "Sika sealant discount",
  ];
  let q = 0;
  const direct = await load(async () => {
    const r = await post("/api/rag/search/knowledge-base", {
      workspace_id: ws,
      query: queries[q++ % queries.length],
      category_slug: "pricing",
      top_k: 8,
    });
    return r.chunks.length > 0;
  }, { requests: 300, concurrency: 1, warmup: 20 });
  console.log(fmtLoad("quick pick, AI backend (1 client)", direct));

  const viaGateway = await load(async () => {
    const res = await fetch(`${platform.url}/functions/v1/ai-gateway`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        action: "search_knowledge_base",
        payload: {
          workspace_id: ws,
          query: queries[q++ % queries.length],
          category_slug: "pricing",
          top_k: 8,
        },
      }),
    });
    const body = await res.json();
    return res.status === 200 && body.data.chunks.length > 0;
  }, { requests: 200, concurrency: 1, warmup: 20 });
  console.log(fmtLoad("quick pick, via ai-gateway + billing (1 client)", viaGateway));

  // Batch ingest: the same documents into a second workspace, BATCH per request.
  const ws2 = await createWorkspace(platform, owner.id);
  const category2 =
    (await post("/api/kb/categories", { workspace_id: ws2, name: "Pricing", slug: "pricing" })).category.id;
  let nextBatch = 0;
  const tb = performance.now();
  await Promise.all(Array.from({ length: 2 }, async () => {
    while (nextBatch < DOCS) {
      const from = nextBatch;
      nextBatch = Math.min(DOCS, nextBatch + BATCH);
      const documents = Array.from({ length: nextBatch - from }, (_, k) => {
        const d = priceDoc(from + k);
        return { title: d.title, category_id: category2, price_doc_type: d.type, content: d.content };
      });
      const r = await post("/api/kb/documents/batch", { workspace_id: ws2, documents });
      if (r.documents.length !== documents.length) throw new Error("batch: wrong number of results");
    }
  }));
  const batchSeconds = (performance.now() - tb) / 1000;
  const chunks2 = (await platform.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_doc_chunks where workspace_id = $1`,
    [ws2],
  )).rows[0].n;
  console.log(
    `batch ingest ${DOCS} documents (${BATCH} per request, 2 writers)`.padEnd(44) +
      ` ${batchSeconds.toFixed(1)} s  ${(DOCS / batchSeconds).toFixed(1)} docs/s  ${chunks2} chunks` +
      `  (${(seconds / batchSeconds).toFixed(2)}x one-by-one)`,
  );
} finally {
  await platform.stop();
}
