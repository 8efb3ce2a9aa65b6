/**
 * AI services (gateway group AI services). Billable POSTs cost the `default` price (1 credit;
 * ai_process_pdf_enhanced the document_processing price, 2), refunded on any non-2xx; the GETs
 * are free. Inputs and outputs are zod schemas (see /docs); model answers are forced tool calls,
 * zod-validated and retried once when malformed, then a 502 `model_bad_output`; a provider failure
 * is `model_unavailable` (502; 503 when no model is configured). ai/models.ts, packages/shared/llm.
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
 *   GET  consensus/is-critical/{task_type}   the documented CRITICAL_TASKS table (ai/services.ts)
 *   GET  escalation/stats?workspace_id&days  from public.ai_service_calls (own calls, or a workspace's)
 *   GET  health
 *
 * Tenancy: document_id and product_id are read as the caller (RLS: the uploader or members of the
 * document's / product's workspace), so others' records are 404; a workspace_id must be one of
 * the caller's (404 otherwise).
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { caller, db, requireUser, requireWorkspaceRole, serviceDb } from "@shared/auth/context.ts";
import { DomainError } from "@shared/errors.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { rows } from "@shared/supabase/postgrest.ts";
import { type Ctx, router } from "../env.ts";
import { decodeBase64 } from "../kb/pdf.ts";
import { aiConfigInput, pipelineOptionsSchema } from "../pipeline/config.ts";
import { parsePdf } from "../pipeline/document.ts";
import { encodePng } from "../pipeline/png.ts";
import { createUploadJob, jobView, pipelineDeps } from "../pipeline/jobs.ts";
import { runJob } from "../pipeline/run.ts";
import { classifyTwoStage } from "../ai/images.ts";
import { aiConfigOf, backendLlm, ModelRun } from "../ai/models.ts";
import {
  checkUniqueIds,
  CLASSIFY_CHARS,
  classifyDocument,
  consensusValidate,
  CRITICAL_TASKS,
  criticalTask,
  detectBoundaries,
  groupByProduct,
  pagesOf,
  productInput,
  taskTypeSchema,
  validateProduct,
} from "../ai/services.ts";

const tags = ["AI services"];
const MAX_PDF_IMAGES = 50;
const workspaceId = z.uuid().optional();
const aiConfig = aiConfigInput.optional();

const exactlyOne = (a: string, b: string) => (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
  if ((v[a] === undefined) === (v[b] === undefined)) {
    ctx.addIssue({ code: "custom", message: `exactly one of ${a} or ${b} is required` });
  }
};

const classifyBody = z.strictObject({
  content: z.string().trim().min(1).max(500_000).optional(),
  document_id: z.uuid().optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).superRefine(exactlyOne("content", "document_id")).meta({ id: "ClassifyDocumentRequest" });

const batchBody = z.strictObject({
  documents: z.array(z.strictObject({
    id: z.string().trim().min(1).max(200).optional(),
    content: z.string().trim().min(1).max(500_000),
  })).min(1).max(20),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).meta({ id: "ClassifyBatchRequest" });

const pageSchema = z.strictObject({
  page_number: z.number().int().min(1).max(100_000),
  text: z.string().max(200_000),
});
const boundariesBody = z.strictObject({
  pages: z.array(pageSchema).min(1).max(2000)
    .refine((p) => new Set(p.map((x) => x.page_number)).size === p.length, "page numbers must not repeat")
    .optional(),
  pdf_base64: z.string().min(1).optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).superRefine(exactlyOne("pages", "pdf_base64")).meta({ id: "DetectBoundariesRequest" });

const groupBody = z.strictObject({
  items: z.array(z.strictObject({
    id: z.string().trim().min(1).max(200),
    page_number: z.number().int().min(1).optional(),
    text: z.string().max(20_000).optional(),
  })).min(1).max(1000),
  products: z.array(
    z.strictObject({
      name: z.string().trim().min(1).max(300),
      page_start: z.number().int().min(1),
      page_end: z.number().int().min(1),
    }).refine((p) => p.page_end >= p.page_start, "page_end must not be before page_start"),
  ).max(1000).optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).meta({ id: "GroupByProductRequest" });

const validateBody = z.strictObject({
  product: productInput.optional(),
  product_id: z.uuid().optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).superRefine(exactlyOne("product", "product_id")).meta({ id: "ValidateProductRequest" });

const consensusBody = z.strictObject({
  task_type: taskTypeSchema,
  content: z.string().trim().min(1).max(100_000),
  question: z.string().trim().min(1).max(2000).optional(),
  models: z.array(z.string().trim().min(1).max(100)).min(2).max(5).optional(),
  agreement_threshold: z.number().min(0).max(1).optional(),
  workspace_id: workspaceId,
  ai_config: aiConfig,
}).meta({ id: "ConsensusValidateRequest" });

const processBody = pipelineOptionsSchema.partial().extend({
  pdf_base64: z.string().min(1),
  filename: z.string().trim().min(1).max(255).default("document.pdf"),
  mode: z.enum(["classify", "full"]).default("classify"),
  workspace_id: workspaceId,
}).strict().meta({ id: "ProcessPdfEnhancedRequest" });

const statsQuery = z.object({
  workspace_id: z.uuid().optional(),
  days: z.coerce.number().int().min(1).max(365).default(30),
});

async function checkWorkspace(c: Ctx, ws: string | undefined) {
  if (ws) await requireWorkspaceRole(c, ws, null);
}

/** The text of a pipeline document the caller may read (its chunks, in order), or 404. */
async function documentText(
  c: Ctx,
  documentId: string,
): Promise<{ text: string; workspace_id: string | null }> {
  const doc = rows(
    await db(c).from("pipeline_documents").select("id, workspace_id").eq("id", documentId).maybeSingle(),
    "Document",
  ) as { workspace_id: string | null } | null;
  if (!doc) throw HttpError.notFound("Document not found");
  const chunks = rows(
    await db(c).from("document_chunks").select("content").eq("document_id", documentId).order("chunk_index")
      .limit(200),
    "Document chunks",
  ) as { content: string }[];
  let text = "";
  for (const ch of chunks) {
    if (text.length >= CLASSIFY_CHARS) break;
    text += (text ? "\n\n" : "") + ch.content;
  }
  if (!text.trim()) throw DomainError.invalid("The document has no text to classify", undefined, "no_text");
  return { text, workspace_id: doc.workspace_id };
}

function pdfBytes(c: Ctx, b64: string): Uint8Array {
  return decodeBase64(b64, c.get("cfg").maxUploadBytes ?? 50 * 1024 * 1024);
}

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
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      const doc = body.document_id ? await documentText(c, body.document_id) : null;
      const run = new ModelRun(c, "ai_classify_document", body.workspace_id ?? doc?.workspace_id ?? null);
      const result = await classifyDocument(run, ai, doc?.text ?? body.content!);
      return c.json({
        ...(body.document_id ? { document_id: body.document_id } : {}),
        ...result,
        model: ai.classification_primary_model,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ai-services/classify-batch",
      tags,
      summary: "Classify 1-20 documents (all or nothing)",
      request: jsonBody(batchBody),
      responses: { ...okJson("{results: [{index, id, document_type, ...}], count}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      const run = new ModelRun(c, "ai_classify_batch", body.workspace_id ?? null);
      const results = [];
      for (const [index, d] of body.documents.entries()) {
        results.push({ index, id: d.id ?? null, ...await classifyDocument(run, ai, d.content) });
      }
      return c.json({ results, count: results.length, model: ai.classification_primary_model }, 200);
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
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      const pages = body.pages ?? pagesOf((await parsePdf(pdfBytes(c, body.pdf_base64!))).pages);
      const run = new ModelRun(c, "ai_detect_boundaries", body.workspace_id ?? null);
      return c.json({ ...await detectBoundaries(run, ai, pages), model: ai.discovery_model }, 200);
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
      await checkWorkspace(c, body.workspace_id);
      checkUniqueIds(body.items);
      const ai = aiConfigOf(body.ai_config);
      const run = new ModelRun(c, "ai_group_by_product", body.workspace_id ?? null);
      const result = await groupByProduct(run, ai, body.items, body.products);
      return c.json({ ...result, model: result.method === "model" ? ai.discovery_model : null }, 200);
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
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      let product = body.product;
      let ws = body.workspace_id ?? null;
      if (body.product_id) {
        const row = rows(
          await db(c).from("products").select("id, workspace_id, name, description, sku, category, metadata")
            .eq("id", body.product_id).maybeSingle(),
          "Product",
        ) as (z.infer<typeof productInput> & { workspace_id: string }) | null;
        if (!row) throw HttpError.notFound("Product not found");
        const { workspace_id, ...fields } = row;
        delete (fields as { id?: string }).id;
        product = fields;
        ws = workspace_id;
      }
      const run = new ModelRun(c, "ai_validate_product", ws);
      return c.json({
        ...(body.product_id ? { product_id: body.product_id } : {}),
        ...await validateProduct(run, ai, product!),
      }, 200);
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
      await checkWorkspace(c, body.workspace_id);
      const ai = aiConfigOf(body.ai_config);
      const run = new ModelRun(c, "ai_consensus_validate", body.workspace_id ?? null);
      return c.json(await consensusValidate(run, ai, body), 200);
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
      const started = performance.now();
      const who = requireUser(c);
      const { pdf_base64, filename, mode, workspace_id, ...options } = c.req.valid("json");
      await checkWorkspace(c, workspace_id);
      const bytes = pdfBytes(c, pdf_base64);
      if (mode === "full") {
        const jobId = await createUploadJob(db(c), who.userId, {
          bytes,
          filename,
          workspaceId: workspace_id ?? null,
          options,
        });
        const job = await runJob(pipelineDeps(c.get("cfg"), serviceDb(c)), jobId);
        if (job.status !== "completed") {
          return c.json({
            error: `The pipeline did not finish: ${(job as { error?: string }).error ?? job.status}`,
            code: "pipeline_failed",
            details: jobView(job),
          }, 422);
        }
        return c.json({
          mode,
          job: jobView(job),
          processing_time_ms: Math.round(performance.now() - started),
        }, 200);
      }
      const ai = aiConfigOf(options.ai_config);
      const pdf = await parsePdf(bytes);
      if (pdf.images.length > MAX_PDF_IMAGES) {
        throw DomainError.invalid(
          `The PDF has ${pdf.images.length} images; the classification path takes at most ${MAX_PDF_IMAGES} (use mode full)`,
          undefined,
          "too_many_images",
        );
      }
      const run = new ModelRun(c, "ai_process_pdf_enhanced", workspace_id ?? null);
      const text = pdf.pages.join("\n\n");
      const document = text.trim() ? await classifyDocument(run, ai, text) : null;
      const boundaries = text.trim() ? await detectBoundaries(run, ai, pagesOf(pdf.pages)) : null;
      const images = [];
      for (const im of pdf.images) {
        const png = await encodePng(im);
        const r = await classifyTwoStage(run, serviceDb(c), ai, {
          bytes: png,
          mediaType: "image/png",
          source: im.filename,
        }, `${im.filename} from page ${im.page_number}`);
        images.push({
          filename: im.filename,
          page_number: im.page_number,
          width: im.width,
          height: im.height,
          ...r,
        });
      }
      return c.json({
        mode,
        filename,
        page_count: pdf.pages.length,
        document,
        products: boundaries?.products ?? [],
        index_pages: boundaries?.index_pages ?? [],
        images,
        material_images: images.filter((i) => i.is_material).length,
        model_calls: run.calls.length,
        escalations: run.calls.filter((x) => x.escalated).length,
        processing_time_ms: Math.round(performance.now() - started),
      }, 200);
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
      if (q.workspace_id) await requireWorkspaceRole(c, q.workspace_id, null);
      const who = caller(c);
      const since = new Date(Date.now() - q.days * 86_400_000).toISOString();
      const all: CallRow[] = [];
      for (let from = 0;; from += 1000) {
        let query = db(c).from("ai_service_calls")
          .select("task_type, model, ok, attempt, escalated, escalation_reason")
          .gte("created_at", since).order("created_at").order("id").range(from, from + 999);
        if (q.workspace_id) query = query.eq("workspace_id", q.workspace_id);
        else if (who.kind === "user") query = query.eq("user_id", who.userId!);
        const page = rows(await query, "Model calls") as CallRow[];
        all.push(...page);
        if (page.length < 1000 || all.length >= 50_000) break;
      }
      return c.json({
        scope: q.workspace_id
          ? { workspace_id: q.workspace_id }
          : who.kind === "user"
          ? { user_id: who.userId }
          : "all",
        period_days: q.days,
        since,
        ...summarise(all),
        by_task_type: groupBy(all, "task_type"),
        by_model: groupBy(all, "model"),
      }, 200);
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
    async (c) => {
      const ai = aiConfigOf(undefined);
      const llm = backendLlm(c);
      const configured = llm.configured;
      const t0 = performance.now();
      const { error } = await serviceDb(c).from("ai_service_calls").select("id", {
        head: true,
        count: "exact",
      })
        .limit(1);
      return c.json({
        status: configured && !error ? "healthy" : "degraded",
        llm: {
          provider: llm.provider,
          configured,
          primary_model: ai.classification_primary_model,
          validation_model: ai.classification_validation_model,
          discovery_model: ai.discovery_model,
          confidence_threshold: ai.classification_confidence_threshold,
        },
        database: error
          ? { reachable: false, error: error.message }
          : { reachable: true, latency_ms: Math.round(performance.now() - t0) },
        critical_task_types: Object.keys(CRITICAL_TASKS).filter((k) => CRITICAL_TASKS[k].critical),
      }, 200);
    },
  );

  return app;
}

interface CallRow {
  task_type: string;
  model: string;
  ok: boolean;
  attempt: number;
  escalated: boolean;
  escalation_reason: string | null;
}

function summarise(list: CallRow[]) {
  const escalations = list.filter((x) => x.escalated).length;
  return {
    total_calls: list.length,
    failed_calls: list.filter((x) => !x.ok).length,
    retried_calls: list.filter((x) => x.attempt > 1).length,
    escalations,
    escalation_rate: list.length ? Math.round((escalations / list.length) * 10_000) / 10_000 : 0,
    by_reason: {
      low_confidence: list.filter((x) => x.escalation_reason === "low_confidence").length,
      disagreement: list.filter((x) => x.escalation_reason === "disagreement").length,
    },
  };
}

function groupBy(list: CallRow[], key: "task_type" | "model") {
  return Object.fromEntries(
    [...new Set(list.map((x) => x[key]))].sort().map((k) => [k, summarise(list.filter((x) => x[key] === k))]),
  );
}
