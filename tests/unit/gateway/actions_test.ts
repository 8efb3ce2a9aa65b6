/**
 * The ai-gateway action map against the spec's gateway table: every action, its method, whether
 * it is billable, its cost key, and the backend path it resolves to with path parameters taken
 * from the payload by name (URL-encoded); GET payloads become the query, others the body.
 */
import assert from "node:assert/strict";
import {
  buildBackendRequest,
  costKeyOf,
  GATEWAY_ACTIONS,
  isBillable,
  pathParams,
  PayloadError,
  quantityOf,
} from "../../../packages/shared/gateway/mod.ts";
import { COST_KEYS } from "../../../packages/shared/credits/ledger.ts";

const ID = "11111111-2222-4333-8444-555555555555";
const P = {
  doc_id: ID,
  product_id: ID,
  job_id: ID,
  document_id: ID,
  image_id: ID,
  session_id: ID,
  prompt_id: ID,
};

// [action, method, billable, cost key, resolved path] - method and B flag transcribed from the
// spec's table; paths are the backend's routes.
const TABLE: [string, string, boolean, string | null, string][] = [
  ["kb_create_document", "POST", true, "document_processing", "/api/kb/documents"],
  ["kb_get_document", "GET", false, null, `/api/kb/documents/${ID}`],
  ["kb_update_document", "PATCH", true, "document_processing", `/api/kb/documents/${ID}`],
  ["kb_delete_document", "DELETE", false, null, `/api/kb/documents/${ID}`],
  ["kb_create_from_pdf", "POST", true, "document_processing", "/api/kb/documents/from-pdf"],
  ["kb_search", "POST", true, "rag_text_search", "/api/kb/search"],
  ["search_knowledge_base", "POST", true, "rag_text_search", "/api/rag/search/knowledge-base"],
  ["kb_create_category", "POST", false, null, "/api/kb/categories"],
  ["kb_list_categories", "GET", false, null, "/api/kb/categories"],
  ["kb_create_attachment", "POST", false, null, "/api/kb/attachments"],
  ["kb_get_doc_attachments", "GET", false, null, `/api/kb/documents/${ID}/attachments`],
  ["kb_get_product_docs", "GET", false, null, `/api/kb/products/${ID}/documents`],
  ["kb_health", "GET", false, null, "/api/kb/health"],
  ["rag_upload", "POST", true, "document_processing", "/api/rag/documents/upload"],
  ["rag_search", "POST", true, "rag_text_search", "/api/rag/search"],
  ["rag_query", "POST", true, "default", "/api/rag/query"],
  ["rag_chat", "POST", true, "default", "/api/rag/chat"],
  ["rag_search_mmr", "POST", true, "rag_text_search", "/api/rag/search/mmr"],
  ["rag_search_advanced", "POST", true, "rag_text_search", "/api/rag/search/advanced"],
  ["rag_get_job", "GET", false, null, `/api/rag/documents/job/${ID}`],
  ["rag_list_jobs", "GET", false, null, "/api/rag/documents/jobs"],
  ["rag_get_checkpoints", "GET", false, null, `/api/rag/jobs/${ID}/checkpoints`],
  ["rag_get_chunks", "GET", false, null, "/api/rag/chunks"],
  ["rag_get_images", "GET", false, null, "/api/rag/images"],
  ["rag_get_products", "GET", false, null, "/api/rag/products"],
  ["rag_get_embeddings", "GET", false, null, "/api/rag/embeddings"],
  ["rag_get_document_content", "GET", false, null, `/api/rag/documents/${ID}/content`],
  ["rag_list_documents", "GET", false, null, "/api/rag/documents"],
  ["rag_health", "GET", false, null, "/api/rag/health"],
  ["rag_stats", "GET", false, null, "/api/rag/stats"],
  ["rag_ai_tracking", "GET", false, null, `/api/rag/jobs/${ID}/ai-tracking`],
  ["rag_ai_tracking_stage", "GET", false, null, `/api/rag/jobs/${ID}/ai-tracking/stage/chunking`],
  ["rag_ai_tracking_model", "GET", false, null, `/api/rag/jobs/${ID}/ai-tracking/model/vendor-haiku-4-5`],
  ["rag_restart_job", "POST", false, null, `/api/rag/jobs/${ID}/restart`],
  ["rag_resume_job", "POST", false, null, `/api/rag/jobs/${ID}/resume`],
  ["rag_delete_document", "DELETE", false, null, `/api/rag/documents/${ID}`],
  ["admin_list_jobs", "GET", false, null, "/api/admin/jobs"],
  ["admin_job_statistics", "GET", false, null, "/api/admin/jobs/statistics"],
  ["admin_get_job", "GET", false, null, `/api/admin/jobs/${ID}`],
  ["admin_get_job_status", "GET", false, null, `/api/admin/jobs/${ID}/status`],
  ["admin_system_health", "GET", false, null, "/api/admin/system/health"],
  ["admin_system_metrics", "GET", false, null, "/api/admin/system/metrics"],
  ["admin_export_data", "GET", false, null, "/api/admin/data/export"],
  ["admin_packages_status", "GET", false, null, "/api/admin/packages/status"],
  ["admin_job_progress", "GET", false, null, `/api/admin/jobs/${ID}/progress`],
  ["admin_active_progress", "GET", false, null, "/api/admin/progress/active"],
  ["admin_job_pages", "GET", false, null, `/api/admin/jobs/${ID}/progress/pages`],
  ["admin_job_stream", "GET", false, null, `/api/admin/jobs/${ID}/progress/stream`],
  ["admin_job_products", "GET", false, null, `/api/admin/jobs/${ID}/products`],
  ["admin_delete_job", "DELETE", false, null, `/api/admin/jobs/${ID}`],
  ["admin_cleanup_data", "DELETE", false, null, "/api/admin/data/cleanup"],
  ["admin_backup_data", "POST", false, null, "/api/admin/data/backup"],
  ["admin_test_product", "POST", false, null, "/api/admin/test-product-creation"],
  ["admin_process_ocr", "POST", false, null, `/api/admin/images/${ID}/process-ocr`],
  ["admin_generate_product_embeddings", "POST", false, null, "/api/admin/generate-product-embeddings"],
  ["admin_prompts_list", "GET", false, null, "/api/admin/prompts"],
  ["admin_prompts_get", "GET", false, null, "/api/admin/prompts/chunking/tiles"],
  ["admin_prompts_update", "PUT", false, null, "/api/admin/prompts/chunking/tiles"],
  ["admin_prompts_history", "GET", false, null, `/api/admin/prompt-history/${ID}`],
  ["admin_prompts_test", "POST", false, null, "/api/admin/prompt-tests"],
  ["process_scraping_session", "POST", false, null, `/api/scraping/sessions/${ID}/process`],
  ["retry_scraping_session", "POST", false, null, `/api/scraping/sessions/${ID}/retry`],
  ["get_scraping_session_status", "GET", false, null, `/api/scraping/sessions/${ID}/status`],
  ["images_analyze", "POST", true, "image_analysis", "/api/images/analyze"],
  ["images_analyze_batch", "POST", true, "image_analysis", "/api/images/analyze/batch"],
  ["images_search", "POST", true, "visual_search", "/api/images/search"],
  ["images_upload_analyze", "POST", true, "image_analysis", "/api/images/upload-and-analyze"],
  ["images_reclassify", "POST", true, "image_analysis", `/api/images/${ID}/reclassify`],
  ["images_health", "GET", false, null, "/api/images/health"],
  ["embeddings_clip_image", "POST", true, "clip_embedding", "/api/embeddings/clip-image"],
  ["embeddings_clip_text", "POST", true, "clip_embedding", "/api/embeddings/clip-text"],
  ["embeddings_health", "GET", false, null, "/api/embeddings/health"],
  ["ai_classify_document", "POST", true, "default", "/api/ai-services/classify-document"],
  ["ai_classify_batch", "POST", true, "default", "/api/ai-services/classify-batch"],
  ["ai_detect_boundaries", "POST", true, "default", "/api/ai-services/detect-boundaries"],
  ["ai_group_by_product", "POST", true, "default", "/api/ai-services/group-by-product"],
  ["ai_validate_product", "POST", true, "default", "/api/ai-services/validate-product"],
  ["ai_consensus_validate", "POST", true, "default", "/api/ai-services/consensus-validate"],
  ["ai_process_pdf_enhanced", "POST", true, "document_processing", "/api/ai-services/process-pdf-enhanced"],
  ["ai_is_critical", "GET", false, null, "/api/ai-services/consensus/is-critical/pricing"],
  ["ai_escalation_stats", "GET", false, null, "/api/ai-services/escalation/stats"],
  ["ai_services_health", "GET", false, null, "/api/ai-services/health"],
  ["anthropic_validate_image", "POST", true, "default", "/api/llm/images/validate"],
  ["anthropic_enrich_product", "POST", true, "default", "/api/llm/products/enrich"],
  ["anthropic_test", "POST", true, "default", "/api/llm/test"],
  ["search_recommendations", "GET", false, null, "/api/search/recommendations"],
  ["search_analytics", "POST", false, null, "/api/search/analytics"],
  ["autocomplete", "POST", false, null, "/api/search/autocomplete"],
  ["trending_searches", "GET", false, null, "/api/search/trending"],
  ["typo_correction", "POST", false, null, "/api/search/typo-correction"],
  ["query_expansion", "POST", false, null, "/api/search/query-expansion"],
  ["track_suggestion_click", "POST", false, null, "/api/search/track-click"],
  ["monitoring_supabase_status", "GET", false, null, "/api/monitoring/supabase-status"],
  ["monitoring_health", "GET", false, null, "/api/monitoring/health"],
  ["monitoring_storage_estimate", "GET", false, null, "/api/monitoring/storage-estimate"],
  ["docs", "GET", false, null, "/docs"],
  ["redoc", "GET", false, null, "/redoc"],
  ["openapi_json", "GET", false, null, "/openapi.json"],
];

const SAMPLE: Record<string, string> = {
  ...P,
  stage: "chunking",
  category: "tiles",
  model_name: "vendor-haiku-4-5",
  task_type: "pricing",
};

Deno.test("the map has exactly the spec's actions", () => {
  assert.deepEqual(Object.keys(GATEWAY_ACTIONS).sort(), TABLE.map((r) => r[0]).sort());
});

for (const [action, method, billable, costKey, path] of TABLE) {
  Deno.test(`${action} -> ${method} ${path}${billable ? " (B)" : ""}`, () => {
    const spec = GATEWAY_ACTIONS[action];
    assert.equal(spec.method, method);
    assert.equal(isBillable(spec), billable);
    assert.equal(costKeyOf(spec, {}), costKey);
    const params = Object.fromEntries(pathParams(spec.path).map((n) => [n, SAMPLE[n]]));
    const req = buildBackendRequest(spec, params);
    assert.equal(req.method, method);
    assert.equal(req.path, path);
    if (method === "GET") assert.equal(req.body, null);
    else assert.deepEqual(req.body, {});
  });
}

Deno.test("every cost key is a known one", () => {
  for (const spec of Object.values(GATEWAY_ACTIONS)) {
    const key = costKeyOf(spec, {});
    if (key) assert.ok((COST_KEYS as readonly string[]).includes(key), key);
  }
});

Deno.test("path parameters are URL-encoded: a value cannot add segments or a query", () => {
  const r = buildBackendRequest(GATEWAY_ACTIONS.kb_get_document, { doc_id: "../../admin/data?x=1#y" });
  assert.equal(r.path, "/api/kb/documents/..%2F..%2Fadmin%2Fdata%3Fx%3D1%23y");
  const f = buildBackendRequest(GATEWAY_ACTIONS.admin_prompts_get, { stage: "a b", category: "é/ü" });
  assert.equal(f.path, "/api/admin/prompts/a%20b/%C3%A9%2F%C3%BC");
});

Deno.test("GET: the rest of the payload is the query; others: the JSON body without path parameters", () => {
  const g = buildBackendRequest(GATEWAY_ACTIONS.kb_list_categories, {
    workspace_id: ID,
    tags: ["a", "b"],
    filter: { x: 1 },
    skip: null,
    flag: true,
  });
  const url = new URL(`http://x${g.path}`);
  assert.equal(url.pathname, "/api/kb/categories");
  assert.equal(url.searchParams.get("workspace_id"), ID);
  assert.deepEqual(url.searchParams.getAll("tags"), ["a", "b"]);
  assert.equal(url.searchParams.get("filter"), '{"x":1}');
  assert.equal(url.searchParams.has("skip"), false);
  assert.equal(url.searchParams.get("flag"), "true");
  const p = buildBackendRequest(GATEWAY_ACTIONS.kb_update_document, { doc_id: ID, title: "T", content: "c" });
  assert.equal(p.path, `/api/kb/documents/${ID}`);
  assert.deepEqual(p.body, { title: "T", content: "c" });
});

Deno.test("a missing or non-scalar path parameter names the field", () => {
  for (
    const [payload, message] of [
      [{}, "payload.doc_id is required"],
      [{ doc_id: "" }, "payload.doc_id is required"],
      [{ doc_id: { a: 1 } }, "payload.doc_id must be a string or a number"],
    ] as const
  ) {
    assert.throws(() => buildBackendRequest(GATEWAY_ACTIONS.kb_get_document, payload), (err: unknown) => {
      assert.ok(err instanceof PayloadError);
      assert.equal(err.field, "doc_id");
      assert.equal(err.message, message);
      return true;
    });
  }
});

Deno.test("rag_search by image is a visual search; batches bill per image", () => {
  const s = GATEWAY_ACTIONS.rag_search;
  for (
    const [payload, key] of [
      [{ query: "oak" }, "rag_text_search"],
      [{ strategy: "semantic" }, "rag_text_search"],
      [{ strategy: "visual" }, "visual_search"],
      [{ image_url: "https://x/y.png" }, "visual_search"],
      [{ image_base64: "AAAA" }, "visual_search"],
    ] as const
  ) assert.equal(costKeyOf(s, payload), key);
  const b = GATEWAY_ACTIONS.images_analyze_batch;
  assert.equal(quantityOf(b, { images: ["a", "b", "c"] }), 3);
  assert.equal(quantityOf(b, {}), 1);
  assert.equal(quantityOf(GATEWAY_ACTIONS.images_analyze, { images: ["a", "b"] }), 1);
});

Deno.test("admin actions need the platform admin role", () => {
  for (const [name, spec] of Object.entries(GATEWAY_ACTIONS)) {
    const adminOnly = spec.group === "admin" || spec.group === "admin_prompts" ||
      name === "monitoring_supabase_status" || name === "monitoring_storage_estimate";
    assert.equal(spec.access === "platform_admin", adminOnly, name);
  }
});
