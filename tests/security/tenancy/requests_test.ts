/**
 * Attacks by signed-in callers through the API surfaces: roles inside the victim workspace (members
 * and viewers reach no Pricing data through /rest/v1 or ai-gateway, no escalation of roles or
 * settings, no product moved out, created_by not forged); victim ids supplied by an outsider in
 * paths and bodies (ai-gateway, quotes-api, generate-quote-pdf, storage, agent-chat, the AI backend)
 * are 404s and cost nothing; forged, tampered, alg none, expired and foreign-role JWTs get nothing,
 * user metadata grants no role and admin endpoints refuse user tokens. See ./helpers.ts for the world.
 */
import assert from "node:assert/strict";
import { platformTest } from "../../helpers/platform.ts";
import { balance } from "../../helpers/team.ts";
import {
  answer,
  b64url,
  backend,
  decodePayload,
  fn,
  getWorld,
  gw,
  gwOk,
  headers,
  hs256,
  type Json,
  nothingDone,
  ok,
  PRICE_LIST,
  rest,
  rpc,
} from "./helpers.ts";

// ---------------------------------------------------------------------------------------------
// Roles inside the victim workspace

platformTest("members and viewers read no Pricing data through /rest/v1; owners and admins do", async (p) => {
  const w = await getWorld(p);
  const ws = w.t.ws;
  const reads = [
    `kb_categories?select=id&slug=eq.pricing&workspace_id=eq.${ws}`,
    `kb_docs?select=id&category_id=eq.${w.pricingCat}`,
    `kb_docs?select=id&price_doc_type=not.is.null`,
    `kb_doc_chunks?select=id&category_id=eq.${w.pricingCat}`,
    `kb_doc_chunks?select=id&price_doc_type=not.is.null`,
    `price_entries?select=id&workspace_id=eq.${ws}`,
    `price_index_versions?select=version&workspace_id=eq.${ws}`,
    `product_prices?select=id&workspace_id=eq.${ws}`,
    `agent_tool_call_logs?select=id&workspace_id=eq.${ws}`,
    `product_merge_history?select=id&workspace_id=eq.${ws}`,
  ];
  for (const path of reads) {
    for (const who of [w.t.owner, w.t.admin]) {
      const r = await rest(p, who.accessToken, "GET", path);
      assert.ok(r.status === 200 && r.body.length > 0, `control: ${path} is empty for an owner/admin`);
    }
    for (const who of [w.t.member, w.t.viewer]) {
      const r = await rest(p, who.accessToken, "GET", path);
      assert.equal(r.status, 200, path);
      assert.deepEqual(r.body, [], `${path} leaked to a member/viewer`);
    }
  }
  for (const who of [w.t.member, w.t.viewer]) {
    const tok = who.accessToken;
    for (
      const [f, args] of [
        ["price_index_entries", { p_workspace_id: ws, p_parser_version: "1" }],
        ["price_index_state", { p_workspace_id: ws, p_parser_version: "1" }],
        ["price_index_version", { p_workspace_id: ws }],
        ["price_lookup_stats", { p_workspace_id: ws }],
        ["log_agent_tool_call", {
          p_workspace_id: ws,
          p_tool_name: "price_lookup",
          p_tool_args: {},
          p_result_summary: {},
          p_zero_result: false,
        }],
      ] as const
    ) {
      const r = await rpc(p, tok, f, args);
      assert.equal(r.status, 403, `${f}: ${JSON.stringify(r.body)}`);
    }
    // The pricing commit paths.
    const price = await rest(p, tok, "POST", "product_prices", {
      workspace_id: ws,
      product_id: w.products.e,
      list_price: 1,
    });
    assert.equal(price.status, 403, JSON.stringify(price.body));
    const commit = await rest(p, tok, "PATCH", `quote_items?id=eq.${w.item}`, {
      price_source: `kb:ai:${w.logId}`,
      price_lookup_call_id: w.logId,
    });
    assert.ok(nothingDone(commit), `commit by ${who.email}: ${commit.status}`);
    const cat = await rest(p, tok, "PATCH", `kb_categories?id=eq.${w.pricingCat}`, {
      access_level: "member",
    });
    assert.ok(nothingDone(cat), `pricing category opened: ${cat.status}`);
  }
  const row = await p.db.query<{ price_source: string | null }>(
    `select price_source from public.quote_items where id = $1`,
    [w.item],
  );
  assert.equal(row.rows[0].price_source, null);
});

platformTest("members and viewers reach no Pricing data through ai-gateway", async (p) => {
  const w = await getWorld(p);
  const ws = w.t.ws;
  const quick = {
    workspace_id: ws,
    query: "Keraflex MP-100 price",
    search_types: ["kb_docs"],
    category_slug: "pricing",
  };
  // Control: the owner's quick pick finds the price list.
  const control = await gwOk(p, w.t.owner.accessToken, "search_knowledge_base", quick);
  assert.ok(control.chunks.some((r: Json) => r.id === w.priceDoc), JSON.stringify(control));

  for (const who of [w.t.member, w.t.viewer]) {
    const tok = who.accessToken;
    const refused: [string, Record<string, unknown>][] = [
      ["search_knowledge_base", quick],
      ["search_knowledge_base", { ...quick, category_slug: undefined, category_id: w.pricingCat }],
      ["search_knowledge_base", { ...quick, category_slug: undefined, price_doc_type: "price_list" }],
      ["kb_search", { workspace_id: ws, query: "Keraflex", category_id: w.pricingCat }],
      ["kb_search", { workspace_id: ws, query: "Keraflex", category_slug: "pricing" }],
      ["kb_search", { workspace_id: ws, query: "Keraflex", allowed_access_levels: ["admin"] }],
      ["kb_get_document", { doc_id: w.priceDoc }],
      ["kb_update_document", { doc_id: w.priceDoc, title: "renamed" }],
      ["kb_delete_document", { doc_id: w.priceDoc }],
      ["kb_create_document", {
        workspace_id: ws,
        title: "Planted price list",
        category_id: w.pricingCat,
        price_doc_type: "price_list",
        content: PRICE_LIST,
      }],
      ["kb_create_category", {
        workspace_id: ws,
        name: "Pricing 2",
        slug: "pricing-2",
        access_level: "member",
      }],
    ];
    for (const [action, payload] of refused) {
      const r = await gw(p, tok, action, payload);
      assert.equal(
        r.status,
        403,
        `${who.email} ${action} ${JSON.stringify(payload)}: ${JSON.stringify(r.body)}`,
      );
    }
    // Claiming to be an admin caller only widens what RLS already allows: no pricing chunk.
    const wide = await gwOk(p, tok, "search_knowledge_base", {
      workspace_id: ws,
      query: "Keraflex MP-100 price 12,50",
      search_types: ["kb_docs"],
      caller: "admin",
      similarity_threshold: -1,
    });
    assert.ok(
      !wide.chunks.some((r: Json) =>
        r.id === w.priceDoc || r.doc_id === w.priceDoc || /12,50/.test(r.content)
      ),
      `pricing chunk reached a ${who.email}: ${JSON.stringify(wide.chunks)}`,
    );
    const cats = await gwOk(p, tok, "kb_list_categories", { workspace_id: ws });
    assert.ok(!cats.categories.some((c: Json) => c.slug === "pricing"), "the Pricing category is listed");
  }
  const doc = await p.db.query<{ title: string }>(`select title from public.kb_docs where id = $1`, [
    w.priceDoc,
  ]);
  assert.equal(doc.rows[0].title, "Mapei price list 2026");
});

platformTest(
  "in-workspace escalation: roles, workspace settings and deletes stay with their owners",
  async (p) => {
    const w = await getWorld(p);
    const { t } = w;
    const before = await p.db.query(
      `select user_id, role from public.workspace_members where workspace_id = $1
    order by user_id`,
      [t.ws],
    );
    const attempts: [string, string, string, unknown][] = [
      [t.member.accessToken, "PATCH", `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.member.id}`, {
        role: "owner",
      }],
      [t.admin.accessToken, "PATCH", `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.member.id}`, {
        role: "admin",
      }],
      [t.admin.accessToken, "PATCH", `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.admin.id}`, {
        role: "owner",
      }],
      [
        t.admin.accessToken,
        "DELETE",
        `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.owner.id}`,
        undefined,
      ],
      [
        t.owner.accessToken,
        "DELETE",
        `workspace_members?workspace_id=eq.${t.ws}&user_id=eq.${t.owner.id}`,
        undefined,
      ],
      [t.viewer.accessToken, "POST", "workspace_members", {
        workspace_id: t.ws,
        user_id: t.outsider.id,
        role: "viewer",
      }],
      [t.admin.accessToken, "POST", "workspace_members", {
        workspace_id: t.ws,
        user_id: t.outsider.id,
        role: "admin",
      }],
      [t.member.accessToken, "PATCH", `workspaces?id=eq.${t.ws}`, { name: "Renamed by a member" }],
      [t.admin.accessToken, "DELETE", `workspaces?id=eq.${t.ws}`, undefined],
      [t.member.accessToken, "DELETE", `products?id=eq.${w.products.e}`, undefined],
      [t.viewer.accessToken, "POST", "products", { workspace_id: t.ws, name: "Viewer product" }],
      [t.viewer.accessToken, "PATCH", `products?id=eq.${w.products.e}`, { name: "Viewer rename" }],
      [t.member.accessToken, "DELETE", `quotes?id=eq.${w.quote}`, undefined],
      [t.member.accessToken, "DELETE", `duplicate_detection_cache?id=eq.${w.cacheId}`, undefined],
      [t.member.accessToken, "PATCH", `user_profiles?user_id=eq.${t.member.id}`, {
        subscription_tier: "enterprise",
      }],
    ];
    for (const [tok, method, path, body] of attempts) {
      const r = await rest(p, tok, method, path, body);
      assert.ok(nothingDone(r), `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const after = await p.db.query(
      `select user_id, role from public.workspace_members where workspace_id = $1
    order by user_id`,
      [t.ws],
    );
    assert.deepEqual(after.rows, before.rows);
    const left = await p.db.query<{ n: number }>(
      `select (select count(*) from public.products where id = $1)::int +
            (select count(*) from public.quotes where id = $2)::int as n`,
      [w.products.e, w.quote],
    );
    assert.equal(left.rows[0].n, 2);
  },
);

platformTest("a member cannot move a workspace product into a workspace of their own", async (p) => {
  // products_edit checks the writer role on both sides of an UPDATE, and workspace_id is
  // updatable: a member who owns a private workspace could take products out of the team's
  // catalogue, which a member may not even delete.
  const w = await getWorld(p);
  const { t } = w;
  const own = ok(
    await rest(p, t.member.accessToken, "POST", "workspaces?select=id", {
      name: "Member's private shop",
      owner_id: t.member.id,
    }),
    "member's workspace",
  )[0].id as string;
  const victim = ok(
    await rest(p, t.owner.accessToken, "POST", "products?select=id", {
      workspace_id: t.ws,
      name: "Movable tile",
    }),
    "product",
  )[0].id as string;
  const r = await rest(p, t.member.accessToken, "PATCH", `products?id=eq.${victim}`, { workspace_id: own });
  const row = await p.db.query<{ workspace_id: string }>(
    `select workspace_id from public.products where id = $1`,
    [
      victim,
    ],
  );
  assert.equal(
    row.rows[0].workspace_id,
    t.ws,
    `PATCH /rest/v1/products?id=eq.${victim} {workspace_id: <member's own ws>} answered ${r.status} ` +
      `${JSON.stringify(r.body)} and moved the product out of the team workspace`,
  );
});

platformTest("products.created_by cannot be forged on insert or update", async (p) => {
  // created_by is the audit trail of the catalogue ("who added this"); quotes pin it with a
  // policy and kb_docs leave it out of the grants, products do neither.
  const w = await getWorld(p);
  const { t } = w;
  const problems: string[] = [];
  const ins = await rest(p, t.member.accessToken, "POST", "products?select=id,created_by", {
    workspace_id: t.ws,
    name: "Blame the owner",
    created_by: t.owner.id,
  });
  if (ins.status < 400 && ins.body?.[0]?.created_by !== t.member.id) {
    problems.push(
      `POST /rest/v1/products {created_by: <owner>} as a member: ${ins.status} ${JSON.stringify(ins.body)}`,
    );
  }
  const own = ok(
    await rest(p, t.owner.accessToken, "POST", "products?select=id", {
      workspace_id: t.ws,
      name: "Owner's tile",
    }),
    "product",
  )[0].id as string;
  const upd = await rest(p, t.member.accessToken, "PATCH", `products?id=eq.${own}&select=id,created_by`, {
    created_by: t.viewer.id,
  });
  const row = await p.db.query<{ created_by: string }>(
    `select created_by from public.products where id = $1`,
    [own],
  );
  if (row.rows[0].created_by !== t.owner.id) {
    problems.push(
      `PATCH /rest/v1/products?id=eq.<owner's product> {created_by: <viewer>} as a member: ${upd.status} ` +
        JSON.stringify(upd.body),
    );
  }
  assert.deepEqual(problems, []);
});

// ---------------------------------------------------------------------------------------------
// Body-supplied ids through the functions and the AI backend

platformTest("ai-gateway: an outsider's victim ids in the payload are 404s, and cost nothing", async (p) => {
  const w = await getWorld(p);
  const tok = w.t.outsider.accessToken;
  const ws = w.t.ws;
  const credits = await balance(p, w.t.outsider.id);
  const docs = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_docs where workspace_id = $1`,
    [
      ws,
    ],
  );
  const cases: [string, Record<string, unknown>][] = [
    ["kb_create_document", { workspace_id: ws, title: "Planted", content: "planted" }],
    ["kb_create_document", {
      workspace_id: ws,
      title: "Planted",
      category_id: w.guideCat,
      content: "planted",
    }],
    // Own workspace, the victim's category: the category must belong to the workspace.
    ["kb_create_document", {
      workspace_id: w.t.otherWs,
      title: "Planted",
      category_id: w.guideCat,
      content: "x",
    }],
    ["kb_create_category", { workspace_id: ws, name: "Planted", slug: "planted" }],
    ["kb_list_categories", { workspace_id: ws }],
    ["kb_get_document", { doc_id: w.guideDoc }],
    ["kb_get_document", { doc_id: w.priceDoc }],
    ["kb_update_document", { doc_id: w.guideDoc, title: "pwned" }],
    ["kb_delete_document", { doc_id: w.guideDoc }],
    ["kb_get_doc_attachments", { doc_id: w.guideDoc }],
    ["kb_get_product_docs", { product_id: w.products.a }],
    ["kb_create_attachment", { doc_id: w.guideDoc, product_id: w.outsiderProduct }],
    ["search_knowledge_base", { workspace_id: ws, query: "Keraflex", search_types: ["kb_docs"] }],
    ["search_knowledge_base", {
      workspace_id: ws,
      query: "Keraflex",
      search_types: ["kb_docs"],
      category_slug: "pricing",
    }],
    ["kb_search", { workspace_id: ws, query: "Keraflex" }],
  ];
  const wrong: string[] = [];
  for (const [action, payload] of cases) {
    const r = await gw(p, tok, action, payload);
    if (r.status !== 404) {
      wrong.push(`${action} ${JSON.stringify(payload)}: ${r.status} ${JSON.stringify(r.body)}`);
    }
  }
  assert.deepEqual(wrong, []);
  // kb_health counts only what the caller can see.
  const health = await gwOk(p, tok, "kb_health", { workspace_id: ws });
  assert.deepEqual(
    [health.counts.categories, health.counts.documents, health.counts.chunks],
    [0, 0, 0],
    JSON.stringify(health),
  );
  const job = await fn(p, tok, "ai-gateway", "GET", `/job-status/${w.jobId}`);
  assert.equal(job.status, 404, JSON.stringify(job.body));
  // Platform-admin actions.
  for (const action of ["admin_list_jobs", "monitoring_supabase_status", "monitoring_storage_estimate"]) {
    const r = await gw(p, tok, action, {});
    assert.equal(r.status, 403, `${action}: ${JSON.stringify(r.body)}`);
  }
  assert.equal(await balance(p, w.t.outsider.id), credits, "refused calls must be refunded");
  const after = await p.db.query<{ n: number }>(
    `select count(*)::int as n from public.kb_docs where workspace_id = $1`,
    [
      ws,
    ],
  );
  assert.equal(after.rows[0].n, docs.rows[0].n);
});

platformTest("quotes-api and generate-quote-pdf: victim ids in paths and bodies are 404s", async (p) => {
  const w = await getWorld(p);
  const { t } = w;
  const out = t.outsider.accessToken;
  const cases: [string, string, string, unknown, number][] = [
    [out, "POST", "/quote-requests", { quote_id: w.quote, workspace_id: t.ws }, 404],
    [out, "POST", "/quote-requests", { quote_id: w.quote, workspace_id: t.otherWs }, 404],
    [out, "GET", `/quote-requests/${w.request}`, undefined, 404],
    [out, "PATCH", `/quote-requests/${w.request}`, { status: "approved" }, 404],
    [out, "GET", `/proposals/${w.proposal}`, undefined, 404],
    [out, "PATCH", `/proposals/${w.proposal}`, { status: "accepted" }, 404],
    [out, "GET", `/quotes/${w.quote}`, undefined, 404],
    [out, "PATCH", `/quote-items/${w.item}`, { unit_price: 0 }, 404],
    // Inside the workspace: only the requester answers a proposal, even for the owner.
    [t.owner.accessToken, "PATCH", `/proposals/${w.proposal}`, { status: "accepted" }, 404],
    [t.viewer.accessToken, "PATCH", `/proposals/${w.proposal}`, { status: "accepted" }, 404],
    [t.viewer.accessToken, "GET", `/quote-requests/${w.request}`, undefined, 404],
    [t.viewer.accessToken, "PATCH", `/quote-items/${w.item}`, { unit_price: 0 }, 403],
  ];
  for (const [tok, method, path, body, status] of cases) {
    const r = await fn(p, tok, "quotes-api", method, path, body);
    assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
  }
  const list = ok(await fn(p, out, "quotes-api", "GET", "/quote-requests"), "list").data;
  assert.deepEqual(list, []);
  const proposals = ok(await fn(p, out, "quotes-api", "GET", "/proposals"), "list").data;
  assert.deepEqual(proposals, []);
  const pdf = await fn(p, out, "generate-quote-pdf", "POST", "", { quote_id: w.quote, regenerate: true });
  assert.equal(pdf.status, 404, JSON.stringify(pdf.body));

  const state = await p.db.query<{ r: string; pr: string; price: string }>(
    `select (select status from public.quote_requests where id = $1) as r,
            (select status from public.proposals where id = $2) as pr,
            (select unit_price::text from public.quote_items where id = $3) as price`,
    [w.request, w.proposal, w.item],
  );
  assert.deepEqual(state.rows[0], { r: "pending", pr: "pending", price: "12.5000" });
});

platformTest("storage: the victim's quote PDF is out of an outsider's reach", async (p) => {
  const w = await getWorld(p);
  const out = w.t.outsider.client.storage.from("quote-pdfs");
  const dl = await out.download(w.pdfPath);
  assert.ok(dl.error, "outsider downloaded the victim's PDF");
  const listed = await out.list(w.t.ws);
  assert.deepEqual(listed.data ?? [], []);
  const signed = await out.createSignedUrl(w.pdfPath, 60);
  assert.ok(signed.error, "outsider signed a URL to the victim's PDF");
  const up = await out.upload(`${w.t.ws}/planted.pdf`, new Blob(["%PDF-1.4"], { type: "application/pdf" }));
  assert.ok(up.error, "outsider uploaded into the victim's folder");
  const over = await out.upload(w.pdfPath, new Blob(["%PDF-1.4"], { type: "application/pdf" }), {
    upsert: true,
  });
  assert.ok(over.error, "outsider overwrote the victim's PDF");
  // Control: a member of the workspace can read it.
  const mine = await w.t.viewer.client.storage.from("quote-pdfs").download(w.pdfPath);
  assert.equal(mine.error, null);
});

platformTest(
  "agent-chat: context.workspace_id and conversation_id of the victim are refused, unbilled",
  async (p) => {
    const w = await getWorld(p);
    const tok = w.t.outsider.accessToken;
    const credits = await balance(p, w.t.outsider.id);
    const msg = [{ role: "user", content: "What does MP-100 cost?" }];
    const ctx = await fn(p, tok, "agent-chat", "POST", "", {
      messages: msg,
      context: { workspace_id: w.t.ws },
    });
    assert.equal(ctx.status, 403, JSON.stringify(ctx.body));
    const conv = await fn(p, tok, "agent-chat", "POST", "", {
      messages: msg,
      conversation_id: w.conversationId,
      context: { workspace_id: w.t.otherWs },
    });
    assert.equal(conv.status, 404, JSON.stringify(conv.body));
    const anon = await fn(p, null, "agent-chat", "POST", "", { messages: msg });
    assert.equal(anon.status, 401);
    assert.equal(await balance(p, w.t.outsider.id), credits);
    const msgs = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.agent_chat_messages where conversation_id = $1`,
      [w.conversationId],
    );
    assert.equal(msgs.rows[0].n, 1);
  },
);

platformTest(
  "AI backend duplicates: victim workspace, products, detections and merges are out of reach",
  async (p) => {
    const w = await getWorld(p);
    const { t } = w;
    const out = t.outsider.accessToken;
    const products = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.products where workspace_id = $1`,
      [t.ws],
    );
    const cases: [string, string, string, unknown, number][] = [
      [out, "POST", "/api/duplicates/detect", { product_id: w.products.a, workspace_id: t.ws }, 404],
      [out, "POST", "/api/duplicates/detect", { product_id: w.products.a, workspace_id: t.otherWs }, 404],
      [out, "POST", "/api/duplicates/batch-detect", { workspace_id: t.ws }, 404],
      [out, "GET", `/api/duplicates/cached?workspace_id=${t.ws}`, undefined, 404],
      [out, "POST", "/api/duplicates/update-status", { cache_id: w.cacheId, status: "dismissed" }, 404],
      [out, "POST", "/api/duplicates/merge", {
        target_product_id: w.products.a,
        source_product_ids: [w.products.e],
        workspace_id: t.ws,
      }, 404],
      // The attacker's own workspace and target, the victim's products as sources.
      [out, "POST", "/api/duplicates/merge", {
        target_product_id: w.outsiderProduct,
        source_product_ids: [w.products.c, w.products.d],
        workspace_id: t.otherWs,
      }, 404],
      [out, "POST", "/api/duplicates/undo-merge", { history_id: w.historyId }, 404],
      [out, "GET", `/api/duplicates/merge-history?workspace_id=${t.ws}`, undefined, 404],
      // A member may detect but not merge; nobody acts in another user's name.
      [t.member.accessToken, "POST", "/api/duplicates/merge", {
        target_product_id: w.products.c,
        source_product_ids: [w.products.d],
        workspace_id: t.ws,
      }, 403],
      [t.member.accessToken, "POST", "/api/duplicates/undo-merge", { history_id: w.historyId }, 403],
      [t.member.accessToken, "GET", `/api/duplicates/merge-history?workspace_id=${t.ws}`, undefined, 403],
      [t.viewer.accessToken, "POST", "/api/duplicates/update-status", {
        cache_id: w.cacheId,
        status: "dismissed",
      }, 403],
      [t.owner.accessToken, "POST", "/api/duplicates/merge", {
        target_product_id: w.products.c,
        source_product_ids: [w.products.d],
        workspace_id: t.ws,
        user_id: t.admin.id,
      }, 403],
    ];
    for (const [tok, method, path, body, status] of cases) {
      const r = await backend(p, tok, method, path, body);
      assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }
    const after = await p.db.query<{ n: number; undone: boolean; st: string }>(
      `select (select count(*) from public.products where workspace_id = $1)::int as n,
            (select is_undone from public.product_merge_history where id = $2) as undone,
            (select status from public.duplicate_detection_cache where id = $3) as st`,
      [t.ws, w.historyId, w.cacheId],
    );
    assert.deepEqual(after.rows[0], { n: products.rows[0].n, undone: false, st: "pending" });
  },
);

// ---------------------------------------------------------------------------------------------
// Tokens

platformTest(
  "JWT tricks: forged, tampered, alg none, expired and foreign-role tokens get nothing",
  async (p) => {
    const w = await getWorld(p);
    const now = Math.floor(Date.now() / 1000);
    const secret = p.config.jwtSecret;
    const victim = { sub: w.t.owner.id, aud: "authenticated", email: w.t.owner.email };
    const real = decodePayload(w.t.outsider.accessToken);
    const [h, , s] = w.t.outsider.accessToken.split(".");
    const none = `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${
      b64url(JSON.stringify({ ...victim, role: "service_role", exp: now + 600 }))
    }.`;
    const tokens: Record<string, string> = {
      "service_role signed with a near-miss of the well-known local secret": await hs256(
        { ...victim, role: "service_role", exp: now + 600 },
        "super-secret-jwt-token-with-at-least-32-characters-long!",
      ),
      "own token, payload rewritten to the victim as service_role": `${h}.${
        b64url(JSON.stringify({ ...real, ...victim, role: "service_role" }))
      }.${s}`,
      "own token, payload rewritten to the victim's sub": `${h}.${
        b64url(JSON.stringify({ ...real, sub: victim.sub }))
      }.${s}`,
      "alg none": none,
      "expired (project secret)": await hs256({ ...victim, role: "authenticated", exp: now - 30 }, secret),
    };
    const pdfUrl = `${p.url}/storage/v1/object/quote-pdfs/${w.pdfPath}`;
    for (const [label, token] of Object.entries(tokens)) {
      const r = await rest(p, token, "GET", `products?select=id&workspace_id=eq.${w.t.ws}`);
      assert.equal(r.status, 401, `/rest/v1 ${label}: ${JSON.stringify(r.body)}`);
      const st = await answer(await fetch(pdfUrl, { headers: { authorization: `Bearer ${token}` } }));
      assert.equal(st.status, 400, `/storage/v1 ${label}`);
      assert.equal(st.body.statusCode, "403", `/storage/v1 ${label}: ${JSON.stringify(st.body)}`);
      const q = await fn(p, token, "quotes-api", "GET", `/quote-requests/${w.request}`);
      assert.equal(q.status, 401, `quotes-api ${label}: ${JSON.stringify(q.body)}`);
      const g = await gw(p, token, "kb_get_document", { doc_id: w.guideDoc });
      assert.equal(g.status, 401, `ai-gateway ${label}: ${JSON.stringify(g.body)}`);
    }

    // Correctly signed but naming a database role PostgREST may not switch to.
    const pg = await hs256({ ...victim, role: "postgres", exp: now + 600 }, secret);
    assert.equal((await rest(p, pg, "GET", "products?select=id")).status, 403);
    const pgStorage = await answer(await fetch(pdfUrl, { headers: { authorization: `Bearer ${pg}` } }));
    assert.equal(pgStorage.body.statusCode, "403");
    const pgQuotes = await fn(p, pg, "quotes-api", "GET", `/quote-requests/${w.request}`);
    assert.equal(pgQuotes.status, 401, "a postgres-role token is no user");

    // A service-role token that names a user is the service, never that user: quotes-api, which
    // acts for users, does not take it as the owner.
    const svcAsUser = await hs256({ ...victim, role: "service_role", exp: now + 600 }, secret);
    const asOwner = await fn(p, svcAsUser, "quotes-api", "GET", "/quote-requests");
    assert.equal(asOwner.status, 401, JSON.stringify(asOwner.body));
  },
);

platformTest("auth: metadata never grants roles, and admin endpoints refuse user tokens", async (p) => {
  const w = await getWorld(p);
  const out = w.t.outsider;
  const meta = await fetch(`${p.url}/auth/v1/user`, {
    method: "PUT",
    headers: headers(p, out.accessToken),
    body: JSON.stringify({ data: { role: "admin", platform_role: "admin", workspace_role: "owner" } }),
  });
  assert.equal(meta.status, 200);
  await meta.body?.cancel();
  // A fresh token carrying the new metadata.
  const login = await fetch(`${p.url}/auth/v1/token?grant_type=password`, {
    method: "POST",
    headers: headers(p, null),
    body: JSON.stringify({ email: out.email, password: out.password }),
  });
  const session = await login.json();
  const token = session.access_token as string;
  assert.equal(decodePayload(token).role, "authenticated");

  const users = await fn(p, token, "crm-users-api", "GET", "");
  assert.equal(users.status, 403, JSON.stringify(users.body));
  const promote = await rest(p, token, "PATCH", `user_profiles?user_id=eq.${out.id}`, {
    role_id:
      (await p.db.query<{ id: string }>(`select id from public.roles where name = 'admin'`)).rows[0].id,
  });
  assert.ok(nothingDone(promote), JSON.stringify(promote.body));
  const role = await rpc(p, token, "current_platform_role", {});
  assert.equal(role.body, "user");
  const admin = await answer(
    await fetch(`${p.url}/auth/v1/admin/users`, { headers: headers(p, token) }),
  );
  assert.equal(admin.status, 403, JSON.stringify(admin.body));
  const sql = await answer(
    await fetch(`${p.url}/pg/query`, {
      method: "POST",
      headers: headers(p, token),
      body: JSON.stringify({ query: "select 1" }),
    }),
  );
  assert.equal(sql.status, 403, JSON.stringify(sql.body));
  const search = await gw(p, token, "search_knowledge_base", {
    workspace_id: w.t.ws,
    query: "Keraflex",
    search_types: ["kb_docs"],
    category_slug: "pricing",
  });
  assert.equal(search.status, 404);
});
