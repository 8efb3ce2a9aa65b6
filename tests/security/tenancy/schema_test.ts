/**
 * Tenancy attacks swept over the whole public schema: no table or view returns a row of the victim
 * workspace to an outsider or the anon key; filtered PATCH/DELETE and POSTs into the victim workspace
 * are refused and change no table (a fingerprint of every public table before and after); and every
 * function a signed-in user may call through /rest/v1/rpc is listed in RPC_ATTACKS (the RPC test
 * compares the list with pg_proc, so a new user-callable function fails it until it is reviewed and
 * added) and acts on no other workspace. The victim world and the HTTP helpers are in ./helpers.ts.
 */
import { sketchBits } from "../../../packages/shared/embeddings/simhash.ts";
import assert from "node:assert/strict";
import { platformTest } from "../../helpers/platform.ts";
import { balance } from "../../helpers/team.ts";
import {
  getWorld,
  type Json,
  mentionsVictim,
  nothingDone,
  patchBody,
  relations,
  rest,
  rpc,
  snapshot,
  victimFilter,
  type World,
} from "./helpers.ts";

// ---------------------------------------------------------------------------------------------
// Reads across tenants

platformTest("outsider: no table or view in public returns a row of the victim workspace", async (p) => {
  const w = await getWorld(p);
  const rels = await relations(p);
  // Not vacuous: the superuser sees victim rows in every key table.
  const seeded: string[] = [];
  for (const rel of rels) {
    const r = await p.db.query<{ n: number }>(
      `select count(*)::int as n from public.${rel.name} t where ${
        w.victimIds.map((_, i) => `t::text like '%' || $${i + 1} || '%'`).join(" or ")
      }`,
      w.victimIds,
    );
    if (r.rows[0].n > 0) seeded.push(rel.name);
  }
  for (
    const key of [
      "products",
      "kb_docs",
      "kb_categories",
      "kb_doc_chunks",
      "kb_doc_attachments",
      "quotes",
      "quote_items",
      "quote_requests",
      "proposals",
      "agent_tool_call_logs",
      "product_prices",
      "price_entries",
      "price_index_versions",
      "duplicate_detection_cache",
      "product_merge_history",
      "credit_transactions",
      "user_credits",
      "ai_usage_logs",
      "notifications",
      "agent_chat_conversations",
      "ai_jobs",
      "workspaces",
      "workspace_members",
      "user_profiles",
      "quote_totals",
      "crm_user_records",
    ]
  ) assert.ok(seeded.includes(key), `seed left no victim row in ${key}`);

  const leaks: string[] = [];
  for (const rel of rels) {
    const r = await rest(p, w.t.outsider.accessToken, "GET", `${rel.name}?select=*`);
    // A relation users have no grant on (service-only tables) cannot leak: PostgREST's 42501.
    if (r.status === 403 && (r.body as { code?: string }).code === "42501") continue;
    assert.equal(r.status, 200, `${rel.name}: ${JSON.stringify(r.body)}`);
    const bad = (r.body as unknown[]).filter((row) => mentionsVictim(row, w.victimIds));
    if (bad.length) leaks.push(`${rel.name}: ${bad.length} row(s)`);
  }
  assert.deepEqual(leaks, [], "outsider read victim rows");
});

platformTest("anon key alone: every relation reads empty or 401, and every write is refused", async (p) => {
  const w = await getWorld(p);
  const rels = await relations(p);
  const before = await snapshot(p, rels);
  for (const rel of rels) {
    const read = await rest(p, null, "GET", `${rel.name}?select=*`);
    assert.ok(
      read.status === 401 || (read.status === 200 && read.body.length === 0),
      `anon GET ${rel.name}: ${read.status} ${JSON.stringify(read.body).slice(0, 200)}`,
    );
    const ins = await rest(
      p,
      null,
      "POST",
      rel.name,
      rel.columns.has("workspace_id") ? { workspace_id: w.t.ws } : {},
    );
    // Tables: no grant (42501 -> 401). The views are not auto-updatable: Postgres refuses at
    // rewrite time, before any privilege check (55000, which PostgREST answers 500).
    const expected = rel.kind === "r" ? [401, "42501"] : [500, "55000"];
    assert.deepEqual(
      [ins.status, ins.body?.code],
      expected,
      `anon POST ${rel.name}: ${JSON.stringify(ins.body)}`,
    );
    const filter = victimFilter(rel, w);
    const body = patchBody(rel);
    if (filter && body) {
      const upd = await rest(p, null, "PATCH", `${rel.name}?${filter}`, body);
      assert.ok(nothingDone(upd), `anon PATCH ${rel.name}: ${upd.status} ${JSON.stringify(upd.body)}`);
    }
    if (filter) {
      const del = await rest(p, null, "DELETE", `${rel.name}?${filter}`);
      assert.ok(nothingDone(del), `anon DELETE ${rel.name}: ${del.status} ${JSON.stringify(del.body)}`);
    }
  }
  assert.deepEqual(await snapshot(p, rels), before, "an anonymous write changed a table");
});

// ---------------------------------------------------------------------------------------------
// Writes across tenants

platformTest("outsider: PATCH and DELETE filtered on the victim's rows change nothing", async (p) => {
  const w = await getWorld(p);
  const rels = await relations(p);
  const before = await snapshot(p, rels);
  const token = w.t.outsider.accessToken;
  for (const rel of rels) {
    const filter = victimFilter(rel, w);
    if (!filter) continue;
    const body = patchBody(rel);
    if (body) {
      const upd = await rest(p, token, "PATCH", `${rel.name}?${filter}`, body);
      assert.ok(nothingDone(upd), `PATCH ${rel.name}?${filter}: ${upd.status} ${JSON.stringify(upd.body)}`);
    }
    const del = await rest(p, token, "DELETE", `${rel.name}?${filter}`);
    assert.ok(nothingDone(del), `DELETE ${rel.name}?${filter}: ${del.status} ${JSON.stringify(del.body)}`);
  }
  // By primary key too, for the records the attacker learnt the ids of.
  for (
    const [table, id, body] of [
      ["products", w.products.a, { name: "pwned" }],
      ["kb_docs", w.guideDoc, { title: "pwned" }],
      ["kb_categories", w.pricingCat, { access_level: "member" }],
      ["quotes", w.quote, { title: "pwned" }],
      ["quote_items", w.item, { unit_price: 0 }],
      ["quote_requests", w.request, { status: "approved" }],
      ["proposals", w.proposal, { status: "accepted" }],
      ["duplicate_detection_cache", w.cacheId, { status: "dismissed" }],
      ["ai_jobs", w.jobId, { message: "pwned" }],
      ["agent_chat_conversations", w.conversationId, { title: "pwned" }],
    ] as const
  ) {
    const upd = await rest(p, token, "PATCH", `${table}?id=eq.${id}`, body);
    assert.ok(nothingDone(upd), `PATCH ${table} ${id}: ${upd.status} ${JSON.stringify(upd.body)}`);
  }
  assert.deepEqual(await snapshot(p, rels), before, "an outsider's write changed a table");
});

platformTest("outsider: POSTing rows into the victim workspace is refused with 403", async (p) => {
  const w = await getWorld(p);
  const rels = await relations(p);
  const before = await snapshot(p, rels);
  const ws = w.t.ws;
  const vec = `[${Array(1024).fill(0.01).join(",")}]`;
  const [p1, p2] = [w.products.a, w.products.e].sort();
  const cases: [string, Record<string, unknown>][] = [
    ["products", { workspace_id: ws, name: "Planted product" }],
    ["kb_categories", { workspace_id: ws, name: "Planted", slug: "planted" }],
    ["kb_docs", { workspace_id: ws, title: "Planted", content: "x", content_hash: "0".repeat(64) }],
    ["kb_doc_chunks", {
      doc_id: w.guideDoc,
      chunk_index: 99,
      content: "planted",
      char_start: 0,
      char_end: 7,
      embedding: vec,
    }],
    ["kb_doc_attachments", { workspace_id: ws, doc_id: w.guideDoc, product_id: w.products.e }],
    ["quotes", { workspace_id: ws, title: "Planted quote" }],
    ["quote_items", { quote_id: w.quote, description: "planted line", unit_price: 1 }],
    ["quote_requests", { quote_id: w.quote, workspace_id: ws, notes: "planted" }],
    ["proposals", { quote_request_id: w.request, workspace_id: ws, amount: 1 }],
    ["product_prices", { workspace_id: ws, product_id: w.products.e, list_price: 1 }],
    ["price_entries", {
      workspace_id: ws,
      kb_doc_id: w.priceDoc,
      price_doc_type: "price_list",
      content_hash: "0".repeat(64),
      parser_version: "x",
      entries: [],
    }],
    ["duplicate_detection_cache", {
      workspace_id: ws,
      product_id_1: p1,
      product_id_2: p2,
      overall_similarity_score: 1,
      name_similarity: 1,
      description_similarity: 1,
      metadata_similarity: 1,
      confidence_level: "high",
    }],
    ["ai_jobs", { workspace_id: ws, job_type: "document_upload" }],
    ["agent_chat_conversations", { workspace_id: ws, agent_id: "main" }],
    ["agent_chat_messages", { conversation_id: w.conversationId, role: "user", content: "planted" }],
    ["workspace_members", { workspace_id: ws, user_id: w.t.outsider.id, role: "owner" }],
    ["workspaces", { name: "Owned by the victim", owner_id: w.t.owner.id }],
    ["agent_tool_call_logs", { workspace_id: ws, tool_name: "price_lookup" }],
    ["product_merge_history", {
      workspace_id: ws,
      source_product_ids: [w.products.e],
      source_product_names: ["x"],
      target_product_id: w.products.a,
      target_product_name: "x",
      source_products_snapshot: [],
      target_product_before_merge: {},
      target_product_after_merge: {},
    }],
    ["notifications", { user_id: w.t.owner.id, workspace_id: ws, title: "Phish" }],
    ["credit_transactions", {
      user_id: w.t.outsider.id,
      amount: 1000,
      balance_after: 1000,
      kind: "grant",
      action: "x",
    }],
    ["user_credits", { user_id: w.t.outsider.id, balance: 1000 }],
    ["ai_usage_logs", { user_id: w.t.owner.id, workspace_id: ws, action: "x" }],
    ["price_index_versions", { workspace_id: ws }],
    ["user_profiles", { user_id: w.t.outsider.id }],
  ];
  const wrong: string[] = [];
  for (const [table, body] of cases) {
    const r = await rest(p, w.t.outsider.accessToken, "POST", table, body);
    if (r.status !== 403) wrong.push(`POST ${table}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  assert.deepEqual(wrong, []);
  assert.deepEqual(await snapshot(p, rels), before, "a refused insert still wrote");
});

// ---------------------------------------------------------------------------------------------
// RPCs

/** Every function a signed-in user may call through /rest/v1/rpc, with its attack. */
const RPC_ATTACKS: Record<
  string,
  (w: World) => { args: Record<string, unknown>; status: number; check?: Json }
> = {
  // SECURITY DEFINER
  crm_delete_user_records: (w) => ({ args: { p_user_id: w.t.owner.id }, status: 403 }),
  // Workspace invitations: an outsider neither invites into nor answers for the victim workspace.
  invite_to_workspace: (w) => ({
    args: { p_workspace_id: w.t.ws, p_invitee: w.t.outsider.email, p_role: "admin" },
    status: 404,
  }),
  accept_workspace_invitation: () => ({ args: { p_invitation_id: crypto.randomUUID() }, status: 404 }),
  decline_workspace_invitation: () => ({ args: { p_invitation_id: crypto.randomUUID() }, status: 404 }),
  is_invitee: (w) => ({
    args: { p_email: w.t.owner.email, p_user_id: w.t.owner.id },
    status: 200,
    check: false,
  }),
  crm_may_look_up_accounts: () => ({ args: {}, status: 200, check: false }),
  is_safe_object_path: () => ({ args: { p: "x/../y" }, status: 200, check: false }),
  current_platform_role: () => ({ args: {}, status: 200, check: "user" }),
  get_my_access: () => ({ args: {}, status: 200 }),
  has_platform_role: () => ({ args: { role_names: ["admin"] }, status: 200, check: false }),
  has_workspace_role: (w) => ({
    args: { ws: w.t.ws, roles: ["owner", "admin", "member", "viewer"] },
    status: 200,
    check: false,
  }),
  is_workspace_admin: (w) => ({ args: { ws: w.t.ws }, status: 200, check: false }),
  is_workspace_member: (w) => ({ args: { ws: w.t.ws }, status: 200, check: false }),
  kb_readable_category_ids: () => ({ args: {}, status: 200 }),
  kb_workspace_ids: () => ({ args: { p_roles: null }, status: 200 }),
  log_agent_tool_call: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_tool_name: "product_search",
      p_tool_args: {},
      p_result_summary: {},
      p_zero_result: false,
    },
    status: 403,
  }),
  merge_products: (w) => ({ args: { p_target: w.products.c, p_sources: [w.products.d] }, status: 404 }),
  owns_quote_request: (w) => ({ args: { p_request_id: w.request }, status: 200, check: false }),
  undo_merge: (w) => ({ args: { p_history_id: w.historyId }, status: 404 }),
  // RAG search (SECURITY DEFINER with the pipeline_documents visibility rule; tests/rag/ seeds
  // victim documents and checks results in depth): nothing of the victim's workspace.
  rag_search_chunks: (w) => ({
    args: {
      p_query_text: "Keraflex",
      p_query_embedding: `[${Array(1024).fill(0.01).join(",")}]`,
      p_workspace_id: w.t.ws,
    },
    status: 200,
    check: [],
  }),
  rag_search_images: (w) => ({
    args: { p_visual: `[${Array(768).fill(0.01).join(",")}]`, p_workspace_id: w.t.ws },
    status: 200,
    check: [],
  }),
  rag_search_records: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_query_text: "Keraflex",
      p_types: ["products", "entities"],
      p_threshold: 0,
    },
    status: 200,
    check: [],
  }),
  rag_tsquery: () => ({ args: { p_text: "oak floor" }, status: 200 }),
  rag_tsquery_most: () => ({ args: { p_text: "oak floor plank" }, status: 200 }),
  rag_stop_words: () => ({ args: {}, status: 200 }),
  // SECURITY INVOKER (RLS decides)
  crm_row_visible: (w) => ({ args: { owner: w.t.owner.id }, status: 200, check: false }),
  kb_hybrid_search: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_query_text: "Keraflex",
      p_query_embedding: `[${Array(1024).fill(0.01).join(",")}]`,
      p_match_threshold: -1,
    },
    status: 200,
    check: [],
  }),
  kb_text_candidates: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_category_ids: [w.pricingCat, w.guideCat],
      p_uncategorised: true,
      p_price_doc_types: null,
      p_require_published: false,
      p_match: "keraflex",
      p_exclude: null,
      p_limit: 250,
    },
    status: 200,
    check: [],
  }),
  kb_replace_chunks: (w) => ({
    args: { p_doc_id: w.guideDoc, p_chunks: [], p_embedding_model: "x" },
    status: 200,
    check: 0,
  }),
  kb_stats: (w) => ({
    args: { p_workspace_id: w.t.ws },
    status: 200,
    check: { categories: 0, documents: 0, chunks: 0, content_bytes: 0, embedding_bytes: 0 },
  }),
  kb_update_document: (w) => ({
    args: { p_doc_id: w.guideDoc, p_patch: { title: "pwned" } },
    status: 200,
    check: null,
  }),
  kb_upsert_document: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_title: "Planted",
      p_category_id: null,
      p_content: "x",
      p_content_hash: "0".repeat(64),
      p_chunks: [],
    },
    status: 403,
  }),
  // The batch form writes through kb_upsert_document as the caller: RLS refuses the first entry.
  kb_upsert_documents: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_documents: [{
        title: "Planted",
        category_id: null,
        content: "x",
        content_hash: "0".repeat(64),
        chunks: [],
      }],
    },
    status: 403,
  }),
  // A pure function of its argument (the vector index's sketch): nothing of any workspace.
  kb_embedding_bits: () => ({
    args: { p_embedding: `[${Array(1024).fill(0.01).join(",")}]` },
    status: 200,
    check: Array.from(sketchBits(Array(1024).fill(0.01))).join(""),
  }),
  // Runs as the caller: RLS leaves an outsider none of the victim workspace's logs to count.
  // The outsider is neither the requester nor a handler of the workspace: no status is theirs to set.
  may_set_quote_request_status: (w) => ({
    args: { p_workspace_id: w.t.ws, p_requester: w.t.owner.id, p_status: "approved" },
    status: 200,
    check: false,
  }),
  // Invoker: RLS hides the victim's bulk, so the outsider counts nothing.
  messaging_bulk_progress: (w) => ({ args: { p_bulk_id: w.bulkId }, status: 200, check: [] }),
  messaging_analytics: (w) => ({
    args: { ws: w.t.ws, start_at: "2000-01-01T00:00:00Z", end_at: "2100-01-01T00:00:00Z", only_type: null },
    status: 200,
    check: {
      totalSent: 0,
      totalDelivered: 0,
      totalRead: 0,
      totalFailed: 0,
      totalCost: 0,
      deliveryRate: 0,
      readRate: 0,
      failureRate: 0,
      dailyData: [],
      total: 0,
      byStatus: {},
      byChannel: {},
    },
  }),
  price_index_entries: (w) => ({ args: { p_workspace_id: w.t.ws, p_parser_version: "1" }, status: 403 }),
  price_index_state: (w) => ({ args: { p_workspace_id: w.t.ws, p_parser_version: "1" }, status: 403 }),
  price_index_version: (w) => ({ args: { p_workspace_id: w.t.ws }, status: 403 }),
  price_lookup_stats: (w) => ({ args: { p_workspace_id: w.t.ws }, status: 403 }),
  quote_document: (w) => ({ args: { p_quote_id: w.quote }, status: 200, check: null }),
  quote_pdf_visible: (w) => ({ args: { name: w.pdfPath }, status: 200, check: false }),
  store_duplicate_detections: (w) => ({
    args: {
      p_workspace_id: w.t.ws,
      p_pairs: [{
        product_id_1: [w.products.a, w.products.e].sort()[0],
        product_id_2: [w.products.a, w.products.e].sort()[1],
        overall_similarity: 1,
        name_similarity: 1,
        description_similarity: 1,
        metadata_similarity: 1,
        confidence_level: "high",
      }],
    },
    status: 403,
  }),
  update_duplicate_status: (w) => ({ args: { p_cache_id: w.cacheId, p_status: "dismissed" }, status: 404 }),
  user_ai_usage_summary: (w) => ({ args: { p_user_id: w.t.owner.id }, status: 200 }),
  // SECURITY INVOKER: counts only the jobs RLS shows the caller (not the victim's pending job).
  ai_jobs_status_counts: () => ({ args: {}, status: 200, check: {} }),
};

/** Money moves and system bookkeeping: the service role's only. */
const SERVICE_ONLY: Record<string, (w: World) => Record<string, unknown>> = {
  debit_credits: (w) => ({ p_user_id: w.t.owner.id, p_amount: 50, p_action: "steal" }),
  grant_credits: (w) => ({ p_user_id: w.t.outsider.id, p_amount: 1_000_000 }),
  refund_credits: () => ({ p_debit_id: crypto.randomUUID() }),
  bill_gateway_action: (w) => ({
    p_user_id: w.t.owner.id,
    p_action: "x",
    p_cost_key: "default",
    p_quantity: 50,
  }),
  refund_gateway_action: () => ({ p_transaction_id: crypto.randomUUID(), p_reason: "x" }),
  bill_agent_chat: (w) => ({ p_user_id: w.t.owner.id, p_agent_id: "main", p_model: "x" }),
  settle_agent_chat: () => ({ p_usage_log_id: crypto.randomUUID(), p_input_tokens: 0, p_output_tokens: 0 }),
};

platformTest(
  "RPC: every function a user may call is reviewed here, and none acts on another workspace",
  async (p) => {
    const w = await getWorld(p);
    const callable = await p.db.query<{ proname: string }>(
      `select distinct p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.prorettype <> 'trigger'::regtype
        and has_function_privilege('authenticated', p.oid, 'execute') order by 1`,
    );
    assert.deepEqual(
      callable.rows.map((r) => r.proname),
      Object.keys(RPC_ATTACKS).sort(),
      "a function callable by users is missing from RPC_ATTACKS (review it and add its attack)",
    );
    const rels = await relations(p);
    const before = await snapshot(p, rels);
    const tok = w.t.outsider.accessToken;
    for (const [name, attack] of Object.entries(RPC_ATTACKS)) {
      const { args, status, check } = attack(w);
      const r = await rpc(p, tok, name, args);
      assert.equal(r.status, status, `rpc/${name}: ${JSON.stringify(r.body)}`);
      if (check !== undefined) assert.deepEqual(r.body, check, `rpc/${name}`);
      if (name === "user_ai_usage_summary") assert.equal(r.body.totals.total_calls, 0);
      if (name === "get_my_access") assert.ok(!mentionsVictim(r.body, w.victimIds));
      if (name === "kb_readable_category_ids" || name === "kb_workspace_ids") {
        assert.ok(
          !mentionsVictim(r.body, [w.t.ws, w.pricingCat, w.guideCat]),
          `${name}: ${JSON.stringify(r.body)}`,
        );
      }
    }
    // A member with a valid role in the workspace still cannot merge or undo.
    for (
      const [name, args] of [
        ["merge_products", { p_target: w.products.c, p_sources: [w.products.d] }],
        ["undo_merge", { p_history_id: w.historyId }],
      ] as const
    ) {
      const r = await rpc(p, w.t.member.accessToken, name, args);
      assert.equal(r.status, 403, `member rpc/${name}: ${JSON.stringify(r.body)}`);
    }
    // kb_text_candidates (SECURITY DEFINER) follows the chunk policy: the owner finds the Pricing
    // chunk, a member (Pricing is admin-level) gets nothing, as the outsider above.
    const candidates = (token: string) =>
      rpc(p, token, "kb_text_candidates", {
        p_workspace_id: w.t.ws,
        p_category_ids: [w.pricingCat],
        p_uncategorised: false,
        p_price_doc_types: null,
        p_require_published: false,
        p_match: "keraflex",
        p_exclude: null,
        p_limit: 250,
      });
    const ownerHits = await candidates(w.t.owner.accessToken);
    assert.equal(ownerHits.status, 200);
    assert.ok(Array.isArray(ownerHits.body) && ownerHits.body.length > 0, JSON.stringify(ownerHits.body));
    assert.deepEqual((await candidates(w.t.member.accessToken)).body, []);
    const callerBalance = await balance(p, w.t.outsider.id);
    const ownerBalance = await balance(p, w.t.owner.id);
    for (const [name, args] of Object.entries(SERVICE_ONLY)) {
      for (const token of [tok, w.t.owner.accessToken]) {
        const r = await rpc(p, token, name, args(w));
        assert.equal(r.status, 403, `rpc/${name}: ${JSON.stringify(r.body)}`);
      }
      const anon = await rpc(p, null, name, args(w));
      assert.equal(anon.status, 401, `anon rpc/${name}: ${JSON.stringify(anon.body)}`);
    }
    assert.equal(await balance(p, w.t.outsider.id), callerBalance);
    assert.equal(await balance(p, w.t.owner.id), ownerBalance);
    assert.deepEqual(await snapshot(p, rels), before, "an RPC changed a table");
  },
);
