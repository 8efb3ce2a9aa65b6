/**
 * AI services (gateway group AI services). Billable POSTs cost the `default` price (1 credit;
 * ai_process_pdf_enhanced the document_processing price, 2), refunded on any non-2xx; the GETs
 * are free. Inputs and outputs are zod schemas (see /docs); model answers are forced tool calls,
 * zod-validated and retried once when malformed, then a 502 `model_bad_output`; a provider failure
 * is `model_unavailable` (502; 503 when no model is configured). The work is
 * packages/shared/ai_services (actions.ts over tasks.ts and models.ts; schemas.ts) and, for
 * process-pdf-enhanced, pipeline/pdf_enhanced.ts.
 *
 *   POST classify-document   {content | document_id, workspace_id?, ai_config?}
 *   POST classify-batch      {documents: [{id?, content}] (1-20)}: all or nothing
 *   POST detect-boundaries   {pages: [{page_number, text}] | pdf_base64}
 *   POST group-by-product    {items: [{id, page_number?, text?}], products?: [{name, page_start, page_end}]}
 *   POST validate-product    {product | product_id}
 *   POST consensus-validate  {task_type, content, question?, models?, agreement_threshold?}
 *   POST process-pdf-enhanced {pdf_base64, filename?, mode: classify (default) | full, ...}
 *        classify: reads the PDF and runs the pipeline's classification path without storing
 *        anything: document type, product boundaries, and the two-stage classification of every
 *        embedded image (up to 50). full: the real pipeline, exactly as POST
 *        /api/rag/documents/upload (stored, all six stages, the finished job; 422 if it fails).
 *   GET  consensus/is-critical/{task_type}   the documented CRITICAL_TASKS table (tasks.ts)
 *   GET  escalation/stats?workspace_id&days  from public.ai_service_calls (own calls, or a workspace's)
 *   GET  health
 *
 * Tenancy: document_id and product_id are read as the caller (RLS: the uploader or members of the
 * document's / product's workspace), so others' records are 404; a workspace_id must be one of
 * the caller's (404 otherwise).
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { requireUser } from "@shared/auth/context.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import {
  aiServicesHealth,
  classifyBatch,
  classifyDocumentAction,
  consensusAction,
  detectBoundariesAction,
  escalationStats,
  groupAction,
  validateProductAction,
} from "@shared/ai_services/actions.ts";
import {
  boundariesBody,
  classifyBatchBody,
  classifyBody,
  consensusBody,
  groupBody,
  statsQuery,
  validateBody,
} from "@shared/ai_services/schemas.ts";
import { criticalTask, pagesOf, taskTypeSchema } from "@shared/ai_services/tasks.ts";
import { router } from "../env.ts";
import { aiDeps } from "../deps.ts";
import { decodeBase64 } from "@shared/kb/pdf.ts";
import { pipelineOptionsSchema } from "../pipeline/config.ts";
import { parsePdf } from "../pipeline/document.ts";
import { pipelineDeps } from "../pipeline/jobs.ts";
import { processPdfEnhanced } from "../pipeline/pdf_enhanced.ts";

const tags = ["AI services"];
/** The largest PDF of detect-boundaries and process-pdf-enhanced when the config sets none. */
const DEFAULT_MAX_PDF_BYTES = 50 * 1024 * 1024;

const processBody = pipelineOptionsSchema.partial().extend({
  pdf_base64: z.string().min(1),
  filename: z.string().trim().min(1).max(255).default("document.pdf"),
  mode: z.enum(["classify", "full"]).default("classify"),
  workspace_id: z.uuid().optional(),
}).strict().meta({ id: "ProcessPdfEnhancedRequest" });

export function aiServiceRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ai-services/classify-document",
      tags,
      summary: "Classify a document (type, confidence, language, summary)",
      request: jsonBody(classifyBody),
      responses: { ...okJson("{document_type, confidence, language, summary, model}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await classifyDocumentAction(await aiDeps(c, body.workspace_id), body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ai-services/classify-batch",
      tags,
      summary: "Classify 1-20 documents (all or nothing)",
      request: jsonBody(classifyBatchBody),
      responses: { ...okJson("{results: [{index, id, document_type, ...}], count}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await classifyBatch(await aiDeps(c, body.workspace_id), body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ai-services/detect-boundaries",
      tags,
      summary: "Find product boundaries (name, page range, confidence) over pages or a PDF",
      request: jsonBody(boundariesBody),
      responses: {
        ...okJson("{products: [{name, page_start, page_end, confidence}], index_pages}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const deps = await aiDeps(c, body.workspace_id);
      const maxBytes = c.get("cfg").maxUploadBytes ?? DEFAULT_MAX_PDF_BYTES;
      const pages = async () =>
        body.pages ?? pagesOf((await parsePdf(decodeBase64(body.pdf_base64!, maxBytes))).pages);
      return c.json(await detectBoundariesAction(deps, body, pages), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ai-services/group-by-product",
      tags,
      summary: "Group items (chunks, images) by product: by page ranges when given, else by the model",
      request: jsonBody(groupBody),
      responses: { ...okJson("{method, groups: [{product_name, item_ids}], ungrouped}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await groupAction(await aiDeps(c, body.workspace_id), body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ai-services/validate-product",
      tags,
      summary: "Review a product record (given, or a product of the caller's workspaces by id)",
      request: jsonBody(validateBody),
      responses: {
        ...okJson("{is_valid, quality_score, confidence, issues, suggestions, model, escalated}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await validateProductAction(await aiDeps(c, body.workspace_id), body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ai-services/consensus-validate",
      tags,
      summary: "Ask several models the same question and measure their agreement (critical tasks escalate)",
      request: jsonBody(consensusBody),
      responses: {
        ...okJson("{verdict, agreement, consensus_reached, answers, escalated, ...}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await consensusAction(await aiDeps(c, body.workspace_id), body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ai-services/process-pdf-enhanced",
      tags,
      summary:
        "Classify a PDF (document type, product boundaries, image classification) or run the full pipeline",
      request: jsonBody(processBody),
      responses: {
        ...okJson("mode classify: {document, products, images}; mode full: the completed job"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const who = requireUser(c);
      const { pdf_base64, filename, mode, workspace_id, ...options } = c.req.valid("json");
      const deps = await aiDeps(c, workspace_id);
      const cfg = c.get("cfg");
      const bytes = decodeBase64(pdf_base64, cfg.maxUploadBytes ?? DEFAULT_MAX_PDF_BYTES);
      const req = { bytes, filename, mode, workspaceId: workspace_id ?? null, options };
      return c.json(await processPdfEnhanced(deps, pipelineDeps(cfg, deps.service), who.userId, req), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/ai-services/consensus/is-critical/{task_type}",
      tags,
      summary: "Whether a task type is critical (the documented table), with its consensus rule",
      request: { params: z.object({ task_type: taskTypeSchema }) },
      responses: {
        ...okJson("{task_type, known, critical, is_critical, min_models, agreement_threshold, reason}"),
        ...errorResponses,
      },
    }),
    (c) => {
      const t = criticalTask(c.req.valid("param").task_type);
      return c.json({ ...t, is_critical: t.critical }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/ai-services/escalation/stats",
      tags,
      summary: "Model calls, retries and escalations of the AI services (own calls, or a workspace's)",
      request: { query: statsQuery },
      responses: {
        ...okJson("{total_calls, escalations, escalation_rate, by_task_type, by_model, ...}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const deps = await aiDeps(c, q.workspace_id);
      return c.json(await escalationStats(deps.db, deps.userId, q), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/ai-services/health",
      tags,
      summary: "The AI services' model configuration and database state",
      responses: { ...okJson("Health report"), ...errorResponses },
    }),
    async (c) => c.json(await aiServicesHealth(await aiDeps(c)), 200),
  );

  return app;
}
