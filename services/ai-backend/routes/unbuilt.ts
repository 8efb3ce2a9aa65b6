/**
 * The gateway's backend groups that later parts of the platform build (RAG pipeline, images,
 * admin jobs, prompts, scraping, AI services, direct LLM, search suggestions, CLIP embeddings).
 * Every one of their paths exists, authenticates and authorises like a real route, and answers
 * 501 with the reason - never a made-up result.
 */
import { createRoute } from "@hono/zod-openapi";
import { type ActionGroup, GATEWAY_ACTIONS } from "@shared/gateway/actions.ts";
import { pathParams } from "@shared/gateway/request.ts";
import { z } from "zod";
import { requirePlatformRole } from "@shared/auth/context.ts";
import { errorResponses } from "@shared/http/openapi.ts";
import { router } from "../env.ts";

const WHY: Partial<Record<ActionGroup, string>> = {
  rag: "search, query and chat over processed documents are not built yet",
  admin: "admin system, data and maintenance actions are not built yet (the job API is)",
  admin_prompts: "prompt management is not built yet (it arrives with the AI services)",
  scraping: "scraping-session processing is not built yet",
  search: "search suggestions and analytics are not built yet",
};

/** Actions served for real by the other routers (their paths must not be shadowed here). */
export const BUILT_ACTIONS = new Set([
  ...Object.entries(GATEWAY_ACTIONS).filter(([, s]) =>
    s.group === "kb" || s.group === "monitoring" || s.group === "docs"
  )
    .map(([name]) => name),
  "rag_get_job",
  "rag_list_jobs",
  // Web scraping sessions (routes/scraping.ts).
  "process_scraping_session",
  "retry_scraping_session",
  "get_scraping_session_status",
  // The PDF processing pipeline (routes/pipeline.ts).
  "rag_upload",
  "rag_resume_job",
  "rag_restart_job",
  "rag_get_checkpoints",
  "rag_ai_tracking",
  "rag_ai_tracking_stage",
  "rag_ai_tracking_model",
  // Reads of the pipeline's output (routes/rag_documents.ts).
  "rag_get_chunks",
  "rag_get_images",
  "rag_get_products",
  "rag_get_embeddings",
  "rag_get_document_content",
  "rag_list_documents",
  "rag_health",
  "rag_stats",
  "rag_delete_document",
  // Retrieval and grounded answers (routes/rag_search.ts).
  "rag_search",
  "rag_search_mmr",
  "rag_search_advanced",
  "rag_query",
  "rag_chat",
  // Admin job API (routes/admin_jobs.ts).
  "admin_list_jobs",
  "admin_job_statistics",
  "admin_get_job",
  "admin_get_job_status",
  "admin_job_progress",
  "admin_active_progress",
  "admin_job_pages",
  "admin_job_stream",
  "admin_job_products",
  "admin_delete_job",
  "embeddings_health",
  // Search suggestions (routes/search.ts).
  "search_recommendations",
  "search_analytics",
  "autocomplete",
  "trending_searches",
  "typo_correction",
  "query_expansion",
  "track_suggestion_click",
  // Images, CLIP embeddings, AI services and direct LLM (routes/images.ts, clip.ts, ai_services.ts, llm.ts).
  ...Object.entries(GATEWAY_ACTIONS).filter(([, s]) =>
    s.group === "images" || s.group === "embeddings" || s.group === "ai_services" || s.group === "direct_llm"
  ).map(([name]) => name),
  // Admin system and data actions (routes/admin_system.ts).
  "admin_system_health",
  "admin_system_metrics",
  "admin_export_data",
  "admin_packages_status",
  "admin_cleanup_data",
  "admin_backup_data",
  "admin_test_product",
  "admin_process_ocr",
  "admin_generate_product_embeddings",
  // Admin prompts (routes/admin_prompts.ts).
  "admin_prompts_list",
  "admin_prompts_get",
  "admin_prompts_update",
  "admin_prompts_history",
  "admin_prompts_test",
]);

export function unbuiltRoutes() {
  const app = router();
  for (const [action, spec] of Object.entries(GATEWAY_ACTIONS)) {
    if (BUILT_ACTIONS.has(action)) continue;
    const why = WHY[spec.group] ?? "this part of the AI backend is not built yet";
    const params = pathParams(spec.path);
    app.openapi(
      createRoute({
        method: spec.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete",
        path: spec.path,
        tags: [`Not built yet: ${spec.group}`],
        summary: `${action}: answers 501 (${why})`,
        request: params.length
          ? { params: z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) }
          : {},
        responses: { 501: { description: why }, ...errorResponses },
      }),
      async (c) => {
        if (spec.access === "platform_admin") await requirePlatformRole(c, ["admin"]);
        return c.json({ error: `${action} is not available: ${why}.`, code: "not_implemented", action }, 501);
      },
    );
  }
  return app;
}
