/**
 * The gateway as the origin product's web client reads it (issue 31, "the frontend contract"):
 * search_knowledge_base answers data.chunks (spec: "Response: chunks as in Resources"), the KB
 * writes and reads answer the object itself as data (data.id, data.title), and a key the gateway
 * or the action does not know is a 400 naming it, with nothing done or charged.
 */
import assert from "node:assert/strict";
import { platformTest } from "../helpers/platform.ts";
import { QUICK_PICK_FIELDS } from "../../packages/shared/kb/search.ts";
import { balance, createTeam, gateway, ok, pricingCategory } from "./helpers.ts";

const PRICE_LIST = `# Mapei price list 2026

| SKU | Product | Unit | Price EUR |
|---|---|---|---|
| MP-100 | Keraflex Maxi S1 grey 25 kg | bag | 18,50 |
`;

platformTest("KB actions answer the object as data; search_knowledge_base answers data.chunks", async (p) => {
  const t = await createTeam(p);
  const category = await ok(p, t.owner.accessToken, "kb_create_category", {
    workspace_id: t.ws,
    name: "Pricing",
    slug: "pricing",
    access_level: "admin",
    trigger_keyword: "price",
  });
  assert.match(category.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(
    [category.workspace_id, category.name, category.slug, category.access_level, category.trigger_keyword],
    [t.ws, "Pricing", "pricing", "admin", "price"],
  );
  assert.equal("category" in category, false, "no extra level");

  const created = await ok(p, t.owner.accessToken, "kb_create_document", {
    workspace_id: t.ws,
    title: "Mapei price list 2026",
    category_id: category.id,
    status: "published",
    price_doc_type: "price_list",
    content: PRICE_LIST,
  });
  assert.equal("document" in created, false, "no extra level");
  assert.match(created.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(
    [created.title, created.workspace_id, created.category_id, created.status, created.price_doc_type],
    ["Mapei price list 2026", t.ws, category.id, "published", "price_list"],
  );
  assert.equal(created.content, PRICE_LIST);
  // What the write did sits beside the document's fields.
  assert.deepEqual([created.created, created.re_embedded, created.warnings], [true, true, []]);

  const got = await ok(p, t.owner.accessToken, "kb_get_document", { doc_id: created.id });
  assert.deepEqual([got.id, got.title, got.content], [created.id, "Mapei price list 2026", PRICE_LIST]);
  assert.equal("document" in got, false);
  const updated = await ok(p, t.owner.accessToken, "kb_update_document", {
    doc_id: created.id,
    title: "Mapei prices 2026",
  });
  assert.deepEqual([updated.id, updated.title, updated.re_embedded], [
    created.id,
    "Mapei prices 2026",
    false,
  ]);

  const product = (await p.db.query<{ id: string }>(
    `insert into public.products (workspace_id, name, sku) values ($1, 'Keraflex Maxi S1', 'MP-100') returning id`,
    [t.ws],
  )).rows[0].id;
  const attachment = await ok(p, t.owner.accessToken, "kb_create_attachment", {
    doc_id: created.id,
    product_id: product,
  });
  assert.deepEqual([attachment.doc_id, attachment.product_id, attachment.workspace_id], [
    created.id,
    product,
    t.ws,
  ]);

  // Quick pick: data.chunks, each with exactly the spec's seven fields.
  const quick = await ok(p, t.owner.accessToken, "search_knowledge_base", {
    workspace_id: t.ws,
    query: "Keraflex MP-100",
    category_slug: "pricing",
  });
  assert.equal("results" in quick, false);
  assert.ok(quick.chunks.length > 0, JSON.stringify(quick));
  for (const chunk of quick.chunks) {
    assert.deepEqual(Object.keys(chunk).sort(), [...QUICK_PICK_FIELDS].sort());
    assert.deepEqual(
      [chunk.id, chunk.document_title, chunk.category_slug, chunk.category_name, chunk.price_doc_type],
      [created.id, "Mapei prices 2026", "pricing", "Pricing", "price_list"],
    );
    assert.equal(typeof chunk.content, "string");
    assert.equal(typeof chunk.relevance_score, "number");
  }
  assert.ok(quick.chunks[0].content.includes("MP-100"));
  // The hybrid mode names them the same.
  const hybrid = await ok(p, t.owner.accessToken, "search_knowledge_base", {
    workspace_id: t.ws,
    query: "Keraflex",
    search_types: ["kb_docs"],
    caller: "admin",
  });
  assert.equal("results" in hybrid, false);
  assert.ok(hybrid.chunks.some((c: { id: string }) => c.id === created.id), JSON.stringify(hybrid));
});

platformTest("the gateway refuses unknown keys naming them, charging nothing", async (p) => {
  const t = await createTeam(p);
  const cat = await pricingCategory(p, t);
  const before = await balance(p, t.owner.id);
  const send = (body: unknown) =>
    fetch(`${p.url}/functions/v1/ai-gateway`, {
      method: "POST",
      headers: {
        apikey: p.config.anonKey,
        authorization: `Bearer ${t.owner.accessToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  // Beside action and payload (the workspace goes in the payload as workspace_id).
  const top = await send({
    action: "search_knowledge_base",
    payload: { query: "Keraflex" },
    workspace_id: t.ws,
  });
  assert.equal(top.status, 400, JSON.stringify(top.body));
  assert.equal(top.body.success, false);
  assert.equal(top.body.code, "validation_failed");
  assert.match(top.body.error, /unknown field "workspace_id"/);

  // Inside the payload: misspelled or made-up parameters of the spec's KB actions.
  const cases: [string, Record<string, unknown>, string][] = [
    ["search_knowledge_base", {
      workspace_id: t.ws,
      query: "Keraflex",
      category_slug: "pricing",
      topK: 3,
    }, 'unknown field "topK"'],
    ["search_knowledge_base", { workspaceId: t.ws, query: "Keraflex" }, 'unknown field "workspaceId"'],
    ["kb_search", { workspace_id: t.ws, query: "Keraflex", threshold: 0.5 }, 'unknown field "threshold"'],
    ["kb_create_document", {
      workspace_id: t.ws,
      title: "Typo",
      category_id: cat,
      price_doc_type: "price_list",
      content: PRICE_LIST,
      doc_type: "price_list",
    }, 'unknown field "doc_type"'],
    [
      "kb_create_category",
      { workspace_id: t.ws, name: "Guides", accessLevel: "admin" },
      'unknown field "accessLevel"',
    ],
    ["kb_list_categories", { workspace_id: t.ws, include_admin: true }, 'unknown field "include_admin"'],
  ];
  for (const [action, payload, named] of cases) {
    const r = await gateway(p, t.owner.accessToken, action, payload);
    assert.equal(r.status, 400, `${action}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.success, false);
    assert.equal(r.body.code, "validation_failed");
    assert.ok(r.body.error.includes(named), `${action}: ${r.body.error}`);
  }
  assert.equal(await balance(p, t.owner.id), before, "a refused request costs nothing");
  const docs = await p.db.query(`select 1 from public.kb_docs where workspace_id = $1`, [t.ws]);
  assert.equal(docs.rows.length, 0, "nothing was written");
  const cats = await p.db.query(
    `select 1 from public.kb_categories where workspace_id = $1 and slug = 'guides'`,
    [t.ws],
  );
  assert.equal(cats.rows.length, 0);
});
