/**
 * rag_search (six strategies), rag_search_mmr, rag_search_advanced and search_knowledge_base's
 * search types through ai-gateway, over the labelled corpus: the result fields, the filters,
 * tenancy (nothing of another workspace, ever), billing (exact balance after each action, refund
 * on a refused request) and retrieval quality (recall@5 per strategy above a floor).
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { encodePng } from "@shared/images/png.ts";
import { encodeBase64 } from "../../packages/shared/embeddings/decode.ts";
import { LABELLED_QUERIES, oakGrain } from "../../fixtures/rag.ts";
import { balance, gateway, type Json, ok, world } from "./helpers.ts";

const keys = (w: { corpus: { keyOf: Record<string, string> } }, results: Json[]) =>
  results.map((r) => w.corpus.keyOf[r.chunk_id] ?? r.chunk_id);

platformTest("every strategy answers the spec's result fields, billed exactly", async (p) => {
  const w = await world(p, "rag-s");
  const tok = w.t.member.accessToken;
  const uid = w.t.member.id;
  for (const strategy of ["semantic", "keyword", "hybrid", "mmr", "multi_vector"]) {
    const before = await balance(p, uid);
    const r = await gateway(p, tok, "rag_search", {
      query: "Nordic Oak Plank wear layer",
      strategy,
      top_k: 5,
    });
    assert.equal(r.status, 200, `${strategy}: ${JSON.stringify(r.body)}`);
    const cost = strategy === "multi_vector" ? 1 : 0.5;
    assert.equal(await balance(p, uid), before - cost, `${strategy} costs ${cost}`);
    assert.equal(r.headers.get("x-credits-charged"), String(cost));
    const d = r.body.data;
    assert.equal(d.strategy, strategy);
    assert.ok(d.results.length > 0 && d.results.length <= 5, strategy);
    for (const res of d.results) {
      for (
        const f of [
          "chunk_id",
          "document_id",
          "content",
          "page_start",
          "page_end",
          "products",
          "score",
          "components",
        ]
      ) {
        assert.ok(f in res, `${strategy} result lacks ${f}`);
      }
      assert.equal(typeof res.score, "number");
    }
    assert.equal(keys(w, d.results)[0], "A0", `${strategy}: ${keys(w, d.results)}`);
    assert.deepEqual(d.results[0].products, [{ id: w.corpus.ids.nop, name: "Nordic Oak Plank" }]);
    assert.equal(d.results[0].document_filename, "oak-flooring-2026.pdf");
    // Scores are in order.
    const scores = d.results.map((x: Json) => x.score);
    assert.deepEqual([...scores].sort((a, b) => b - a), scores, strategy);
  }
  // Component scores per strategy.
  const hybrid = await ok(p, tok, "rag_search", { query: "NOP-1419 engineered oak", strategy: "hybrid" });
  const top = hybrid.results[0];
  assert.ok(top.components.vector_rank >= 1 && top.components.text_rank >= 1);
  const rrf = (1 / (60 + top.components.vector_rank) + 1 / (60 + top.components.text_rank)) * 30.5;
  assert.ok(Math.abs(top.score - rrf) < 1e-5, `hybrid score is normalised RRF: ${top.score} vs ${rrf}`);
  const kw = await ok(p, tok, "rag_search", { query: "SOH-7049", strategy: "keyword" });
  assert.deepEqual(keys(w, kw.results), ["A3"], "keyword matches only chunks containing a query word");
  assert.equal(kw.results[0].score, kw.results[0].components.text_score);
  const sem = await ok(p, tok, "rag_search", { query: "herringbone", strategy: "semantic", top_k: 3 });
  assert.equal(sem.results[0].score, sem.results[0].components.vector_score);
});

platformTest("visual search: by example, by picture, by text (feedback); visual price", async (p) => {
  const w = await world(p, "rag-v");
  const tok = w.t.member.accessToken;
  const uid = w.t.member.id;
  const before = await balance(p, uid);
  const byExample = await gateway(p, tok, "rag_search", {
    strategy: "visual",
    image_id: w.corpus.ids.imgA1,
    top_k: 3,
  });
  assert.equal(byExample.status, 200, JSON.stringify(byExample.body));
  assert.equal(await balance(p, uid), before - 1, "visual search costs 1 credit");
  const hits = byExample.body.data.results;
  assert.ok(
    !hits.some((h: Json) => h.images[0].image_id === w.corpus.ids.imgA1),
    "the example itself is left out",
  );
  assert.equal(w.corpus.keyOf[hits[0].images[0].image_id], "imgA4", "the other oak picture is the nearest");
  assert.equal(w.corpus.keyOf[hits[0].chunk_id], "A3", "with its related chunk");
  assert.deepEqual(hits[0].products.map((x: Json) => x.id), [w.corpus.ids.soh]);
  assert.ok(hits[0].components.visual_score > hits.at(-1).components.visual_score);
  assert.ok(!hits.some((h: Json) => h.document_id === w.corpus.ids.X), "never the other workspace's image");

  const png = encodeBase64(await encodePng(oakGrain(0.9, 42)));
  const byPicture = await ok(p, tok, "rag_search", { strategy: "visual", image_base64: png, top_k: 2 });
  assert.deepEqual(
    byPicture.results.map((h: Json) => w.corpus.keyOf[h.images[0].image_id]).sort(),
    ["imgA1", "imgA4"],
    "an oak picture finds the oak images",
  );

  const byText = await ok(p, tok, "rag_search", {
    strategy: "visual",
    query: "Welsh Slate Tile blue-black",
    top_k: 2,
  });
  assert.ok(byText.seed_image_ids.includes(w.corpus.ids.imgB1), "seeded from the slate chunk's image");
  assert.deepEqual(
    byText.results.map((h: Json) => w.corpus.keyOf[h.images[0].image_id]).sort(),
    ["imgB1", "imgB2"],
  );

  const multi = await ok(p, tok, "rag_search", {
    strategy: "multi_vector",
    query: "oak floorboard",
    image_id: w.corpus.ids.imgA4,
    top_k: 4,
  });
  const m0 = multi.results[0];
  assert.equal(w.corpus.keyOf[m0.chunk_id], "A0", "text and the oak image agree on A0");
  for (
    const f of ["text_score", "visual_score", "color_score", "texture_score", "style_score", "material_score"]
  ) {
    assert.equal(typeof m0.components[f], "number", f);
  }
  const unknown = await gateway(p, tok, "rag_search", { strategy: "visual", image_id: crypto.randomUUID() });
  assert.equal(unknown.status, 404);
  const outsiderImage = await gateway(p, tok, "rag_search", {
    strategy: "visual",
    image_id: w.corpus.ids.imgX1,
  });
  assert.equal(outsiderImage.status, 404, "another workspace's image cannot be the example");
});

platformTest("MMR: lambda trades relevance for diversity; k and fetch_k", async (p) => {
  const w = await world(p, "rag-m");
  const tok = w.t.member.accessToken;
  const q = { query: "Nordic Oak Plank oak floor", k: 3, fetch_k: 12 };
  const relevance = await ok(p, tok, "rag_search_mmr", { ...q, lambda: 1 });
  assert.deepEqual([relevance.k, relevance.fetch_k, relevance.lambda], [3, 12, 1]);
  assert.equal(relevance.results.length, 3);
  const byRel = relevance.results.map((r: Json) => r.components.relevance);
  assert.deepEqual([...byRel].sort((a, b) => b - a), byRel, "lambda 1 is relevance order");
  const diverse = await ok(p, tok, "rag_search_mmr", { ...q, lambda: 0.3 });
  const docs = new Set(diverse.results.map((r: Json) => r.document_id));
  assert.ok(docs.size >= 2, `a low lambda spreads over documents: ${keys(w, diverse.results)}`);
  for (const r of diverse.results.slice(1)) assert.equal(typeof r.components.redundancy, "number");
  const bad = await gateway(p, tok, "rag_search_mmr", { query: "oak", k: 10, fetch_k: 5 });
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /fetch_k/);
});

platformTest("advanced filters: documents, products, pages, categories, dates, min score", async (p) => {
  const w = await world(p, "rag-a");
  const tok = w.t.member.accessToken;
  const q = (filters: Json, query = "oak slate porcelain adhesive tile", strategy = "hybrid") =>
    ok(p, tok, "rag_search_advanced", { query, strategy, top_k: 50, filters });
  const all = await q({});
  assert.ok(all.results.length >= 8);
  const onlyB = await q({ document_ids: [w.corpus.ids.B] });
  assert.ok(onlyB.results.every((r: Json) => r.document_id === w.corpus.ids.B) && onlyB.results.length > 0);
  const prod = await q({ product_ids: [w.corpus.ids.soh] });
  assert.ok(prod.results.length > 0);
  assert.ok(prod.results.every((r: Json) => r.products[0]?.id === w.corpus.ids.soh));
  const pages = await q({ document_ids: [w.corpus.ids.A], page_range: { from: 2, to: 3 } });
  assert.deepEqual(
    keys(w, pages.results).sort(),
    ["A1", "A2"].filter((k) => keys(w, pages.results).includes(k)),
  );
  assert.ok(pages.results.every((r: Json) => r.page_end >= 2 && r.page_start <= 3));
  const tiles = await q({ categories: ["tiles"] });
  assert.ok(tiles.results.length > 0 && tiles.results.every((r: Json) => r.document_id === w.corpus.ids.B));
  const oakMaterial = await q({ categories: ["Fumed Oak"] });
  assert.ok(oakMaterial.results.every((r: Json) => r.products[0]?.id === w.corpus.ids.soh));
  const dates = await q({ date_from: "2026-02-01", date_to: "2026-02-28" });
  assert.ok(dates.results.length > 0 && dates.results.every((r: Json) => r.document_id === w.corpus.ids.B));
  const strict = await q({ min_score: 0.3 }, "Nordic Oak Plank engineered oak floorboard", "semantic");
  assert.ok(strict.results.length > 0 && strict.results.every((r: Json) => r.score >= 0.3));
  const none = await q({ document_ids: [w.corpus.ids.X] });
  assert.deepEqual(none.results, [], "another workspace's document id finds nothing");

  const uid = w.t.member.id;
  const before = await balance(p, uid);
  const bad = await gateway(p, tok, "rag_search_advanced", {
    query: "oak",
    filters: { page_range: { from: 5, to: 2 } },
  });
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /from must not be after to/);
  assert.equal(await balance(p, uid), before, "a refused request is refunded");
  assert.equal(bad.body.billing?.refunded, 0.5);
  const unknownKey = await gateway(p, tok, "rag_search", { query: "oak", strategy: "bm25" });
  assert.equal(unknownKey.status, 400);
  const imageOnText = await gateway(p, tok, "rag_search", {
    query: "oak",
    strategy: "semantic",
    image_id: w.corpus.ids.imgA1,
  });
  assert.equal(imageOnText.status, 400);
});

platformTest("tenancy: outsiders see nothing of the workspace; workspace_id needs membership", async (p) => {
  const w = await world(p, "rag-t");
  const out = w.t.outsider.accessToken;
  const own = await ok(p, out, "rag_search", {
    query: "Nordic Oak Plank NOP-1419 oak wear layer",
    top_k: 20,
  });
  assert.ok(own.results.length > 0);
  assert.ok(own.results.every((r: Json) => r.document_id === w.corpus.ids.X), "only their own document");
  const member = await ok(p, w.t.member.accessToken, "rag_search", {
    query: "net price partner confidential",
    top_k: 20,
  });
  assert.ok(!member.results.some((r: Json) => r.document_id === w.corpus.ids.X), "never the other workspace");
  const into = await gateway(p, out, "rag_search", { query: "oak", workspace_id: w.t.ws });
  assert.equal(into.status, 404);
  const byDoc = await ok(p, out, "rag_search_advanced", {
    query: "oak",
    filters: { document_ids: [w.corpus.ids.A] },
  });
  assert.deepEqual(byDoc.results, []);
  const mmr = await ok(p, out, "rag_search_mmr", { query: "slate porcelain adhesive" });
  assert.ok(
    mmr.results.every((r: Json) => r.document_id === w.corpus.ids.X),
    "MMR candidates are tenancy-filtered too",
  );
  const scoped = await ok(p, w.t.viewer.accessToken, "rag_search", {
    query: "oak",
    workspace_id: w.t.ws,
    top_k: 20,
  });
  assert.ok(scoped.results.every((r: Json) => r.workspace_id === w.t.ws) && scoped.results.length > 0);
  // The service role searches everything and is not billed.
  const svc = await gateway(p, p.config.serviceRoleKey, "rag_search", {
    query: "NOP-1419",
    strategy: "keyword",
  });
  assert.equal(svc.status, 200);
  assert.equal(svc.headers.get("x-credits-charged"), null);
  assert.deepEqual(
    new Set(svc.body.data.results.map((r: Json) => r.document_id)),
    new Set([w.corpus.ids.A, w.corpus.ids.X]),
  );
});

platformTest(
  "search_knowledge_base: products, entities, chunks and kb_docs; admin, agent, public callers",
  async (p) => {
    const w = await world(p, "rag-k");
    const t = w.t;
    const cat = await ok(p, t.owner.accessToken, "kb_create_category", {
      workspace_id: t.ws,
      name: "Care guides",
      access_level: "public",
    });
    await ok(p, t.owner.accessToken, "kb_create_document", {
      workspace_id: t.ws,
      title: "Oiled oak care",
      category_id: cat.id,
      content: "Oiled oak floors: clean with a soap for oiled wood and re-oil worn areas.",
    });
    await p.db.query(
      `insert into public.products (workspace_id, name, sku, category, description, status) values
       ($1, 'Nordic Oak Plank', 'NOP-1419', 'Flooring', 'Engineered oak floorboard', 'active'),
       ($1, 'Oak Stair Nosing', 'OSN-20', 'Flooring', 'Draft accessory', 'draft'),
       ($2, 'Oak Outsider Board', 'OOB-1', 'Flooring', 'Not yours', 'active')`,
      [t.ws, t.otherWs],
    );
    const before = await balance(p, t.member.id);
    const all = await gateway(p, t.member.accessToken, "search_knowledge_base", {
      workspace_id: t.ws,
      query: "oak",
      search_types: ["products", "entities", "chunks", "kb_docs"],
      top_k: 5,
    });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(await balance(p, t.member.id), before - 0.5);
    const d = all.body.data;
    const types = new Set(d.chunks.map((r: Json) => r.type));
    assert.deepEqual([...types].sort(), ["chunk", "entity", "kb_doc", "product"]);
    for (const r of d.chunks) {
      for (
        const f of [
          "id",
          "document_title",
          "content",
          "category_slug",
          "category_name",
          "price_doc_type",
          "relevance_score",
        ]
      ) {
        assert.ok(f in r, `${r.type} lacks ${f}`);
      }
    }
    const scores = d.chunks.map((r: Json) => r.relevance_score);
    assert.deepEqual([...scores].sort((a, b) => b - a), scores);
    const names = d.chunks.filter((r: Json) => r.type === "product").map((r: Json) => r.document_title);
    assert.deepEqual(names, ["Nordic Oak Plank"], "the workspace's active products only");
    const entities = d.chunks.filter((r: Json) => r.type === "entity");
    assert.ok(entities.every((e: Json) => e.document_id !== w.corpus.ids.X));
    assert.ok(entities.some((e: Json) => e.id === w.corpus.ids.nop));
    const chunk = d.chunks.find((r: Json) => r.type === "chunk");
    assert.ok(chunk.page_start >= 1 && chunk.document_id);

    const pub = await ok(p, t.member.accessToken, "search_knowledge_base", {
      workspace_id: t.ws,
      query: "oak",
      search_types: ["products", "entities", "chunks", "kb_docs"],
      caller: "public",
    });
    assert.deepEqual(pub.skipped_search_types.sort(), ["chunks", "entities"]);
    assert.deepEqual(
      pub.chunks.filter((r: Json) => r.type === "product").map((r: Json) => r.document_title),
      ["Nordic Oak Plank"],
      "public callers see active products only",
    );
    assert.ok(pub.chunks.some((r: Json) => r.type === "kb_doc"));

    const admin = await ok(p, t.member.accessToken, "search_knowledge_base", {
      workspace_id: t.ws,
      query: "oak",
      search_types: ["entities", "products"],
      caller: "admin",
    });
    assert.deepEqual(
      admin.chunks.filter((r: Json) => r.type === "product").map((r: Json) => r.document_title).sort(),
      ["Nordic Oak Plank", "Oak Stair Nosing"],
      "the admin caller kind also sees drafts",
    );
    assert.ok(admin.chunks.some((r: Json) => r.type === "entity"));
    const outsider = await gateway(p, t.outsider.accessToken, "search_knowledge_base", {
      workspace_id: t.ws,
      query: "oak",
      search_types: ["chunks"],
    });
    assert.equal(outsider.status, 404);
    const filtered = await ok(p, t.member.accessToken, "search_knowledge_base", {
      workspace_id: t.ws,
      query: "oak",
      search_types: ["kb_docs", "chunks"],
      category_id: cat.id,
    });
    assert.deepEqual(filtered.skipped_search_types, ["chunks"], "KB category filters concern kb_docs only");
  },
);

platformTest("retrieval quality: recall@5 per strategy on the labelled set", async (p) => {
  const w = await world(p, "rag-q");
  const tok = w.t.member.accessToken;
  const floors: Record<string, number> = {
    semantic: 0.8,
    keyword: 0.8,
    hybrid: 0.9,
    mmr: 0.9,
    multi_vector: 0.8,
  };
  const recall: Record<string, number> = {};
  const report: Record<string, { recall_at_1: number; recall_at_5: number; mrr: number }> = {};
  for (const strategy of Object.keys(floors)) {
    let hit = 0, first = 0, rr = 0;
    const misses: string[] = [];
    for (const { query, expect } of LABELLED_QUERIES) {
      const r = await ok(p, tok, "rag_search", { query, strategy, top_k: 5, workspace_id: w.t.ws });
      const got = keys(w, r.results);
      const found = expect.filter((k) => got.includes(k)).length / expect.length;
      hit += found;
      if (expect.includes(got[0])) first++;
      const rank = got.findIndex((k) => expect.includes(k));
      rr += rank < 0 ? 0 : 1 / (rank + 1);
      if (found < 1) misses.push(`${query} -> ${got.join(",")}`);
    }
    const n = LABELLED_QUERIES.length;
    recall[strategy] = hit / n;
    report[strategy] = {
      recall_at_1: Math.round(first / n * 1000) / 1000,
      recall_at_5: Math.round(hit / n * 1000) / 1000,
      mrr: Math.round(rr / n * 1000) / 1000,
    };
    assert.ok(
      recall[strategy] >= floors[strategy],
      `${strategy} recall@5 ${recall[strategy]}: ${misses.join("; ")}`,
    );
  }
  console.log(
    `retrieval quality over ${LABELLED_QUERIES.length} labelled queries: ${JSON.stringify(report)}`,
  );
});
