/**
 * The ai-gateway action map, as data: every action of the spec's gateway table with its AI
 * backend method and path template, who may call it, and - for billable (B) actions - which
 * price (a cost key of public.gateway_action_costs, owned by the credit ledger: credits/ledger.ts)
 * it debits. This is the routing contract ai-gateway and the AI backend both read; billing
 * itself is credits/ledger.ts.
 *
 * Path templates name their parameters with the spec's names ({doc_id}, {job_id} ...); the
 * gateway takes each from the payload by name and URL-encodes it. `unwrap` names the member an
 * object sits in when the backend answers it one level down; the gateway answers the object
 * itself as data (spec: {success: true, data: object}; clients read data.id).
 */
import type { CostKey } from "../credits/ledger.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** `user`: any signed-in user (or the service role); `platform_admin`: platform admins and the service role. */
export type ActionAccess = "user" | "platform_admin";

export type ActionGroup =
  | "kb"
  | "rag"
  | "admin"
  | "admin_prompts"
  | "scraping"
  | "images"
  | "embeddings"
  | "ai_services"
  | "direct_llm"
  | "search"
  | "monitoring"
  | "docs";

type Payload = Record<string, unknown>;

export interface ActionSpec {
  group: ActionGroup;
  method: HttpMethod;
  path: string;
  access: ActionAccess;
  /** Price of a billable action: a cost key, or one chosen from the payload. */
  cost?: CostKey | ((payload: Payload) => CostKey);
  /** Units billed (e.g. images in a batch); 1 when absent. */
  quantity?: (payload: Payload) => number;
  /** How a payload-dependent price or quantity is chosen, in words (the API docs quote it). */
  billingNote?: string;
  /**
   * The member of the backend's answer that holds the one object the action is about
   * ({document: {...}, re_embedded}): the gateway answers that object as `data` (answer.ts).
   */
  unwrap?: string;
}

const a = (
  group: ActionGroup,
  method: HttpMethod,
  path: string,
  extra: Partial<Pick<ActionSpec, "access" | "cost" | "quantity" | "unwrap" | "billingNote">> = {},
): ActionSpec => ({ group, method, path, access: extra.access ?? "user", ...extra });

const admin = { access: "platform_admin" as const };

/**
 * rag_search is a visual search (1 credit) when it searches the image spaces (strategy visual or
 * multi_vector, or an image given), else a text search (0.5).
 */
function ragSearchCost(p: Payload): CostKey {
  const strategy = typeof p.strategy === "string" ? p.strategy.toLowerCase() : "";
  return strategy === "visual" || strategy === "image" || strategy === "multi_vector" ||
      p.image_url != null ||
      p.image_base64 != null || p.image_id != null || p.image_embedding != null
    ? "visual_search"
    : "rag_text_search";
}

/** A batch is billed per image. */
function imageCount(p: Payload): number {
  for (const key of ["images", "image_urls", "image_ids"]) {
    const v = p[key];
    if (Array.isArray(v) && v.length > 0) return v.length;
  }
  return 1;
}

export const GATEWAY_ACTIONS: Readonly<Record<string, ActionSpec>> = {
  // Knowledge base
  kb_create_document: a("kb", "POST", "/api/kb/documents", {
    cost: "document_processing",
    unwrap: "document",
  }),
  kb_get_document: a("kb", "GET", "/api/kb/documents/{doc_id}", { unwrap: "document" }),
  kb_update_document: a("kb", "PATCH", "/api/kb/documents/{doc_id}", {
    cost: "document_processing",
    unwrap: "document",
  }),
  kb_delete_document: a("kb", "DELETE", "/api/kb/documents/{doc_id}"),
  kb_create_from_pdf: a("kb", "POST", "/api/kb/documents/from-pdf", {
    cost: "document_processing",
    unwrap: "document",
  }),
  kb_search: a("kb", "POST", "/api/kb/search", { cost: "rag_text_search" }),
  search_knowledge_base: a("kb", "POST", "/api/rag/search/knowledge-base", { cost: "rag_text_search" }),
  kb_create_category: a("kb", "POST", "/api/kb/categories", { unwrap: "category" }),
  kb_list_categories: a("kb", "GET", "/api/kb/categories"),
  kb_create_attachment: a("kb", "POST", "/api/kb/attachments", { unwrap: "attachment" }),
  kb_get_doc_attachments: a("kb", "GET", "/api/kb/documents/{doc_id}/attachments"),
  kb_get_product_docs: a("kb", "GET", "/api/kb/products/{product_id}/documents"),
  kb_health: a("kb", "GET", "/api/kb/health"),

  // RAG
  rag_upload: a("rag", "POST", "/api/rag/documents/upload", { cost: "document_processing" }),
  rag_search: a("rag", "POST", "/api/rag/search", {
    cost: ragSearchCost,
    billingNote: "visual_search when strategy is visual, image or multi_vector or an image is given, " +
      "else rag_text_search",
  }),
  rag_query: a("rag", "POST", "/api/rag/query", { cost: "default" }),
  rag_chat: a("rag", "POST", "/api/rag/chat", { cost: "default" }),
  rag_search_mmr: a("rag", "POST", "/api/rag/search/mmr", { cost: "rag_text_search" }),
  rag_search_advanced: a("rag", "POST", "/api/rag/search/advanced", { cost: "rag_text_search" }),
  rag_get_job: a("rag", "GET", "/api/rag/documents/job/{job_id}"),
  rag_list_jobs: a("rag", "GET", "/api/rag/documents/jobs"),
  rag_get_checkpoints: a("rag", "GET", "/api/rag/jobs/{job_id}/checkpoints"),
  rag_get_chunks: a("rag", "GET", "/api/rag/chunks"),
  rag_get_images: a("rag", "GET", "/api/rag/images"),
  rag_get_products: a("rag", "GET", "/api/rag/products"),
  rag_get_embeddings: a("rag", "GET", "/api/rag/embeddings"),
  rag_get_document_content: a("rag", "GET", "/api/rag/documents/{document_id}/content"),
  rag_list_documents: a("rag", "GET", "/api/rag/documents"),
  rag_health: a("rag", "GET", "/api/rag/health"),
  rag_stats: a("rag", "GET", "/api/rag/stats"),
  rag_ai_tracking: a("rag", "GET", "/api/rag/jobs/{job_id}/ai-tracking"),
  rag_ai_tracking_stage: a("rag", "GET", "/api/rag/jobs/{job_id}/ai-tracking/stage/{stage}"),
  rag_ai_tracking_model: a("rag", "GET", "/api/rag/jobs/{job_id}/ai-tracking/model/{model_name}"),
  rag_restart_job: a("rag", "POST", "/api/rag/jobs/{job_id}/restart"),
  rag_resume_job: a("rag", "POST", "/api/rag/jobs/{job_id}/resume"),
  rag_delete_document: a("rag", "DELETE", "/api/rag/documents/{document_id}"),

  // Admin (platform admins)
  admin_list_jobs: a("admin", "GET", "/api/admin/jobs", admin),
  admin_job_statistics: a("admin", "GET", "/api/admin/jobs/statistics", admin),
  admin_get_job: a("admin", "GET", "/api/admin/jobs/{job_id}", admin),
  admin_get_job_status: a("admin", "GET", "/api/admin/jobs/{job_id}/status", admin),
  admin_system_health: a("admin", "GET", "/api/admin/system/health", admin),
  admin_system_metrics: a("admin", "GET", "/api/admin/system/metrics", admin),
  admin_export_data: a("admin", "GET", "/api/admin/data/export", admin),
  admin_packages_status: a("admin", "GET", "/api/admin/packages/status", admin),
  admin_job_progress: a("admin", "GET", "/api/admin/jobs/{job_id}/progress", admin),
  admin_active_progress: a("admin", "GET", "/api/admin/progress/active", admin),
  admin_job_pages: a("admin", "GET", "/api/admin/jobs/{job_id}/progress/pages", admin),
  admin_job_stream: a("admin", "GET", "/api/admin/jobs/{job_id}/progress/stream", admin),
  admin_job_products: a("admin", "GET", "/api/admin/jobs/{job_id}/products", admin),
  admin_delete_job: a("admin", "DELETE", "/api/admin/jobs/{job_id}", admin),
  admin_cleanup_data: a("admin", "DELETE", "/api/admin/data/cleanup", admin),
  admin_backup_data: a("admin", "POST", "/api/admin/data/backup", admin),
  admin_test_product: a("admin", "POST", "/api/admin/test-product-creation", admin),
  admin_process_ocr: a("admin", "POST", "/api/admin/images/{image_id}/process-ocr", admin),
  admin_generate_product_embeddings: a("admin", "POST", "/api/admin/generate-product-embeddings", admin),

  // Admin prompts
  admin_prompts_list: a("admin_prompts", "GET", "/api/admin/prompts", admin),
  admin_prompts_get: a("admin_prompts", "GET", "/api/admin/prompts/{stage}/{category}", {
    ...admin,
    unwrap: "prompt",
  }),
  admin_prompts_update: a("admin_prompts", "PUT", "/api/admin/prompts/{stage}/{category}", {
    ...admin,
    unwrap: "prompt",
  }),
  admin_prompts_history: a("admin_prompts", "GET", "/api/admin/prompt-history/{prompt_id}", admin),
  admin_prompts_test: a("admin_prompts", "POST", "/api/admin/prompt-tests", admin),

  // Web scraping
  process_scraping_session: a("scraping", "POST", "/api/scraping/sessions/{session_id}/process"),
  retry_scraping_session: a("scraping", "POST", "/api/scraping/sessions/{session_id}/retry"),
  get_scraping_session_status: a("scraping", "GET", "/api/scraping/sessions/{session_id}/status"),

  // Images (billable except health)
  images_analyze: a("images", "POST", "/api/images/analyze", { cost: "image_analysis" }),
  images_analyze_batch: a("images", "POST", "/api/images/analyze/batch", {
    cost: "image_analysis",
    quantity: imageCount,
    billingNote: "per image (images or image_urls)",
  }),
  images_search: a("images", "POST", "/api/images/search", { cost: "visual_search" }),
  images_upload_analyze: a("images", "POST", "/api/images/upload-and-analyze", {
    cost: "image_analysis",
    unwrap: "image",
  }),
  images_reclassify: a("images", "POST", "/api/images/{image_id}/reclassify", { cost: "image_analysis" }),
  images_health: a("images", "GET", "/api/images/health"),

  // Embeddings
  embeddings_clip_image: a("embeddings", "POST", "/api/embeddings/clip-image", { cost: "clip_embedding" }),
  embeddings_clip_text: a("embeddings", "POST", "/api/embeddings/clip-text", { cost: "clip_embedding" }),
  embeddings_health: a("embeddings", "GET", "/api/embeddings/health"),

  // AI services
  ai_classify_document: a("ai_services", "POST", "/api/ai-services/classify-document", { cost: "default" }),
  ai_classify_batch: a("ai_services", "POST", "/api/ai-services/classify-batch", { cost: "default" }),
  ai_detect_boundaries: a("ai_services", "POST", "/api/ai-services/detect-boundaries", { cost: "default" }),
  ai_group_by_product: a("ai_services", "POST", "/api/ai-services/group-by-product", { cost: "default" }),
  ai_validate_product: a("ai_services", "POST", "/api/ai-services/validate-product", { cost: "default" }),
  ai_consensus_validate: a("ai_services", "POST", "/api/ai-services/consensus-validate", { cost: "default" }),
  ai_process_pdf_enhanced: a("ai_services", "POST", "/api/ai-services/process-pdf-enhanced", {
    cost: "document_processing",
  }),
  ai_is_critical: a("ai_services", "GET", "/api/ai-services/consensus/is-critical/{task_type}"),
  ai_escalation_stats: a("ai_services", "GET", "/api/ai-services/escalation/stats"),
  ai_services_health: a("ai_services", "GET", "/api/ai-services/health"),

  // Direct LLM (action names keep the spec's vendor word)
  anthropic_validate_image: a("direct_llm", "POST", "/api/llm/images/validate", { cost: "default" }),
  anthropic_enrich_product: a("direct_llm", "POST", "/api/llm/products/enrich", { cost: "default" }),
  anthropic_test: a("direct_llm", "POST", "/api/llm/test", { cost: "default" }),

  // Search suggestions
  search_recommendations: a("search", "GET", "/api/search/recommendations"),
  search_analytics: a("search", "POST", "/api/search/analytics"),
  autocomplete: a("search", "POST", "/api/search/autocomplete"),
  trending_searches: a("search", "GET", "/api/search/trending"),
  typo_correction: a("search", "POST", "/api/search/typo-correction"),
  query_expansion: a("search", "POST", "/api/search/query-expansion"),
  track_suggestion_click: a("search", "POST", "/api/search/track-click"),

  // Monitoring (platform-wide figures: platform admins; health: any user)
  monitoring_supabase_status: a("monitoring", "GET", "/api/monitoring/supabase-status", admin),
  monitoring_health: a("monitoring", "GET", "/api/monitoring/health"),
  monitoring_storage_estimate: a("monitoring", "GET", "/api/monitoring/storage-estimate", admin),

  // Docs
  docs: a("docs", "GET", "/docs"),
  redoc: a("docs", "GET", "/redoc"),
  openapi_json: a("docs", "GET", "/openapi.json"),
};

/** Where a multipart/form-data request to the gateway goes, and what it costs. */
export const UPLOAD_ASYNC = {
  action: "rag_upload_async",
  method: "POST" as const,
  path: "/api/rag/documents/upload-async",
  cost: "document_processing" as CostKey,
};

/** GET /functions/v1/ai-gateway/job-status/{job_id} reads the job through this backend path. */
export const JOB_STATUS_PATH = "/api/rag/documents/job/{job_id}";

export function isBillable(spec: ActionSpec): boolean {
  return spec.cost !== undefined;
}

export function costKeyOf(spec: ActionSpec, payload: Payload): CostKey | null {
  if (spec.cost === undefined) return null;
  return typeof spec.cost === "function" ? spec.cost(payload) : spec.cost;
}

export function quantityOf(spec: ActionSpec, payload: Payload): number {
  const q = spec.quantity ? spec.quantity(payload) : 1;
  return Number.isInteger(q) && q >= 1 ? q : 1;
}
