/**
 * Knowledge-base documents, categories and attachments through the gateway: upsert by
 * (workspace, title, category), get/update/delete, search filters, PDFs, health, and the role
 * rules for writers.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { createTeam, gateway, makePdf, ok, toBase64 } from "./helpers.ts";

platformTest("documents: upsert by key, get, update, delete; chunks follow the content", async (p) => {
  const t = await createTeam(p);
  const manuals = await ok(p, t.owner.accessToken, "kb_create_category", {
    workspace_id: t.ws,
    name: "Installation manuals",
  });
  assert.equal(manuals.slug, "installation-manuals");
  assert.equal(manuals.access_level, "member");

  const base = { workspace_id: t.ws, title: "Laying large tiles", category_id: manuals.id };
  const first = await ok(p, t.member.accessToken, "kb_create_document", {
    ...base,
    content: "# Laying\n\nUse a notched trowel.",
  });
  assert.equal(first.created, true);
  assert.equal(first.status, "published");
  assert.equal(first.chunk_count, 1);

  const same = await ok(p, t.member.accessToken, "kb_create_document", {
    ...base,
    content: "# Laying\n\nUse a notched trowel.",
  });
  assert.deepEqual([same.created, same.re_embedded, same.id], [false, false, first.id]);
  const changed = await ok(p, t.member.accessToken, "kb_create_document", {
    ...base,
    content: "# Laying\n\nUse a 12 mm notched trowel and back-butter tiles over 60 cm.",
  });
  assert.deepEqual([changed.created, changed.re_embedded, changed.id], [
    false,
    true,
    first.id,
  ]);
  const chunks = await p.db.query<{ content: string }>(
    `select content from public.kb_doc_chunks where doc_id = $1`,
    [
      first.id,
    ],
  );
  assert.deepEqual(chunks.rows.map((r) => r.content), [
    "# Laying\n\nUse a 12 mm notched trowel and back-butter tiles over 60 cm.",
  ]);

  const got = await ok(p, t.viewer.accessToken, "kb_get_document", { doc_id: first.id });
  assert.equal(got.title, "Laying large tiles");

  const renamed = await ok(p, t.member.accessToken, "kb_update_document", {
    doc_id: first.id,
    title: "Large tiles",
    status: "draft",
  });
  assert.equal(renamed.re_embedded, false);
  assert.equal(renamed.title, "Large tiles");
  const status = await p.db.query<{ status: string }>(
    `select distinct status from public.kb_doc_chunks where doc_id = $1`,
    [
      first.id,
    ],
  );
  assert.deepEqual(status.rows, [{ status: "draft" }], "chunks follow the document's status");

  const emptyPatch = await gateway(p, t.member.accessToken, "kb_update_document", {
    doc_id: first.id,
  });
  assert.equal(emptyPatch.status, 400);

  assert.equal(
    (await gateway(p, t.viewer.accessToken, "kb_update_document", { doc_id: first.id, title: "x" }))
      .status,
    403,
  );
  assert.equal(
    (await gateway(p, t.viewer.accessToken, "kb_delete_document", { doc_id: first.id })).status,
    403,
  );
  assert.equal(
    (await gateway(p, t.outsider.accessToken, "kb_delete_document", { doc_id: first.id })).status,
    404,
  );
  const del = await ok(p, t.member.accessToken, "kb_delete_document", { doc_id: first.id });
  assert.deepEqual(del, { deleted: true, id: first.id });
  assert.equal(
    (await gateway(p, t.member.accessToken, "kb_get_document", { doc_id: first.id })).status,
    404,
  );
  const left = await p.db.query(`select 1 from public.kb_doc_chunks where doc_id = $1`, [first.id]);
  assert.equal(left.rows.length, 0);

  const viewerWrite = await gateway(p, t.viewer.accessToken, "kb_create_document", { ...base, content: "x" });
  assert.equal(viewerWrite.status, 403);
  const memberCategory = await gateway(p, t.member.accessToken, "kb_create_category", {
    workspace_id: t.ws,
    name: "Mine",
  });
  assert.equal(memberCategory.status, 403);
});

platformTest("kb_search filters: category, published only, access levels, threshold", async (p) => {
  const t = await createTeam(p);
  const mk = async (name: string, access_level: string) =>
    await ok(p, t.owner.accessToken, "kb_create_category", { workspace_id: t.ws, name, access_level });
  const pub = await mk("Public FAQ", "public");
  const internal = await mk("Internal notes", "member");
  const board = await mk("Board", "admin");
  const write = (title: string, category_id: string, content: string, status = "published") =>
    ok(p, t.owner.accessToken, "kb_create_document", {
      workspace_id: t.ws,
      title,
      category_id,
      content,
      status,
    });
  await write("Grout colours", pub.id, "Grout colours available: anthracite, white, jasmine.");
  await write("Grout supplier notes", internal.id, "Our grout supplier ships anthracite grout on Mondays.");
  await write("Grout margins", board.id, "Margins on anthracite grout are confidential.");
  await write("Grout draft", internal.id, "Draft: anthracite grout restock plan.", "draft");

  const titles = async (token: string, extra: Record<string, unknown>) =>
    (await ok(p, token, "kb_search", { workspace_id: t.ws, query: "anthracite grout", ...extra })).results
      .map((h: { document_title: string }) => h.document_title).sort();

  assert.deepEqual(await titles(t.owner.accessToken, {}), [
    "Grout colours",
    "Grout draft",
    "Grout margins",
    "Grout supplier notes",
  ]);
  assert.deepEqual(await titles(t.member.accessToken, {}), [
    "Grout colours",
    "Grout draft",
    "Grout supplier notes",
  ]);
  assert.deepEqual(await titles(t.owner.accessToken, { require_published: true }), [
    "Grout colours",
    "Grout margins",
    "Grout supplier notes",
  ]);
  assert.deepEqual(await titles(t.owner.accessToken, { category_slug: "public-faq" }), ["Grout colours"]);
  assert.deepEqual(await titles(t.owner.accessToken, { category_id: internal.id }), [
    "Grout draft",
    "Grout supplier notes",
  ]);
  assert.deepEqual(await titles(t.owner.accessToken, { allowed_access_levels: ["public", "admin"] }), [
    "Grout colours",
    "Grout margins",
  ]);
  assert.deepEqual(await titles(t.owner.accessToken, { match_threshold: 0.99 }), []);
  const publicCaller = await ok(p, t.owner.accessToken, "search_knowledge_base", {
    workspace_id: t.ws,
    query: "anthracite grout",
    caller: "public",
  });
  assert.equal(publicCaller.mode, "hybrid");
  assert.deepEqual(publicCaller.chunks.map((h: { document_title: string }) => h.document_title), [
    "Grout colours",
  ]);
  const mixed = await ok(p, t.owner.accessToken, "search_knowledge_base", {
    workspace_id: t.ws,
    query: "grout",
    search_types: ["kb_docs", "products"],
  });
  // Every search type is served (tests/rag/search_test.ts covers products, entities and chunks).
  assert.equal(mixed.skipped_search_types, undefined);
  assert.deepEqual(mixed.search_types, ["kb_docs", "products"]);
  const entities = await gateway(p, t.owner.accessToken, "search_knowledge_base", {
    workspace_id: t.ws,
    query: "grout",
    search_types: ["entities"],
  });
  assert.equal(entities.status, 200);
  assert.deepEqual(entities.body.data.chunks, [], "no processed documents in this workspace");
});

platformTest("attachments link documents and products of one workspace", async (p) => {
  const t = await createTeam(p);
  const [product] = (await p.db.query<{ id: string }>(
    `insert into public.products (workspace_id, name, sku) values ($1, 'Keraflex Maxi S1', 'MP-100') returning id`,
    [t.ws],
  )).rows;
  const [foreign] = (await p.db.query<{ id: string }>(
    `insert into public.products (workspace_id, name) values ($1, 'Elsewhere') returning id`,
    [t.otherWs],
  )).rows;
  const doc = await ok(p, t.member.accessToken, "kb_create_document", {
    workspace_id: t.ws,
    title: "Keraflex data sheet",
    content: "Keraflex Maxi S1: C2TE S1 adhesive.",
  });
  const a = await ok(p, t.member.accessToken, "kb_create_attachment", {
    doc_id: doc.id,
    product_id: product.id,
    relationship_type: "specification",
  });
  assert.equal(a.workspace_id, t.ws);
  assert.equal(
    (await gateway(p, t.member.accessToken, "kb_create_attachment", {
      doc_id: doc.id,
      product_id: product.id,
    })).status,
    409,
  );
  assert.equal(
    (await gateway(p, t.member.accessToken, "kb_create_attachment", {
      doc_id: doc.id,
      product_id: foreign.id,
    })).status,
    404,
  );
  const att = await ok(p, t.viewer.accessToken, "kb_get_doc_attachments", { doc_id: doc.id });
  assert.equal(att.attachments.length, 1);
  assert.equal(att.attachments[0].product.sku, "MP-100");
  const docs = await ok(p, t.viewer.accessToken, "kb_get_product_docs", { product_id: product.id });
  assert.deepEqual(
    docs.documents.map((d: { title: string; relationship_type: string }) => [d.title, d.relationship_type]),
    [
      ["Keraflex data sheet", "specification"],
    ],
  );
  assert.equal(
    (await gateway(p, t.outsider.accessToken, "kb_get_product_docs", { product_id: product.id })).status,
    404,
  );
});

platformTest("kb_create_from_pdf extracts the text with a PDF library; bad files are 4xx", async (p) => {
  const t = await createTeam(p);
  const pdf = makePdf([
    ["Installation guide", "Spread Keraflex with a 10 mm notched trowel."],
    ["Curing", "Allow 24 hours before grouting."],
  ], "Keraflex installation guide");
  const r = await ok(p, t.member.accessToken, "kb_create_from_pdf", {
    workspace_id: t.ws,
    pdf_base64: toBase64(pdf),
  });
  assert.equal(r.pages, 2);
  assert.equal(r.title, "Keraflex installation guide");
  assert.equal(r.source, "pdf");
  assert.match(r.content, /notched trowel[\s\S]*Allow 24 hours/);
  const hits = await ok(p, t.member.accessToken, "kb_search", {
    workspace_id: t.ws,
    query: "grouting after curing",
  });
  assert.equal(hits.results[0].id, r.id);

  const notPdf = await gateway(p, t.member.accessToken, "kb_create_from_pdf", {
    workspace_id: t.ws,
    pdf_base64: btoa("hello"),
  });
  assert.equal(notPdf.status, 400);
  const badB64 = await gateway(p, t.member.accessToken, "kb_create_from_pdf", {
    workspace_id: t.ws,
    pdf_base64: "!!!",
  });
  assert.equal(badB64.status, 400);
  const blank = await gateway(p, t.member.accessToken, "kb_create_from_pdf", {
    workspace_id: t.ws,
    pdf_base64: toBase64(makePdf([[]])),
    filename: "scan.pdf",
  });
  assert.equal(blank.status, 422);
});

platformTest("kb_health and monitoring report real state", async (p) => {
  const t = await createTeam(p);
  await ok(p, t.member.accessToken, "kb_create_document", {
    workspace_id: t.ws,
    title: "One",
    content: "Hello tiles.",
  });
  const h = await ok(p, t.member.accessToken, "kb_health", { workspace_id: t.ws });
  assert.equal(h.status, "healthy");
  assert.equal(h.database.reachable, true);
  assert.deepEqual([h.counts.documents, h.counts.chunks], [1, 1]);
  assert.ok(h.counts.embedding_bytes > 4096);
  assert.deepEqual(h.embedding_provider, { name: "local", model: "local-hash-v1", dimensions: 1024 });
  const m = await ok(p, t.member.accessToken, "monitoring_health");
  assert.equal(m.database.reachable, true);
  assert.equal(m.embedding_provider.name, "local");
  const status = await ok(p, p.config.serviceRoleKey, "monitoring_supabase_status");
  assert.ok(status.counts.kb_docs >= 1);
  assert.ok(status.counts.workspaces >= 2);
  const e = await ok(p, t.member.accessToken, "embeddings_health");
  assert.equal(e.text_embeddings.dimensions, 1024);
});
