/**
 * The Admin group's system and data actions (platform admins and the service role; anyone else
 * 403). Domain code: one module per concern in @shared/admin/ (health, metrics, export, packages,
 * cleanup, backup, test_product, ocr, product_embeddings). The spec shows no shapes; these are ours:
 *
 *   GET    /api/admin/system/health      -> {status: healthy|degraded|unhealthy, checks: {database,
 *          storage, llm, embeddings, job_queue}, timestamp}; 503 when the database is unreachable
 *   GET    /api/admin/system/metrics     -> {jobs {total, by_status}, throughput {...24 h},
 *          error_rates {...24 h}, credits {debited, refunded, net_used, granted, by_action},
 *          tables [{table, rows, total_bytes}], database_bytes, generated_at}
 *   GET    /api/admin/data/export?workspace_id=|job_id=&limit=  (limit per table, 1..2000,
 *          default 500) -> {scope, exported_at, limit_per_table, truncated, counts, jobs,
 *          documents, products, images, chunks, relationships, checkpoints, model_calls}
 *   GET    /api/admin/packages/status    -> {runtime, packages [{alias, name, requested, version,
 *          source}], lock, providers}
 *   DELETE /api/admin/data/cleanup  {dry_run (default true), older_than_days (default 30),
 *          orphan_grace_minutes (default 60), limit (default 500)} as JSON body or query
 *          -> {dry_run, rules, failed_jobs, orphan_uploads, orphan_images, old_prompt_tests,
 *          errors} with matched/deleted counts
 *   POST   /api/admin/data/backup   {workspace_id, tables?} -> {backup_id, bucket, path,
 *          size_bytes, tables, row_counts, total_rows, created_at}
 *   POST   /api/admin/test-product-creation {workspace_id} -> {success, product_id, steps
 *          [{step, ok, duration_ms, detail?, error?}]}; the caller must be owner or admin of the
 *          workspace (the product is written with the caller's own rights)
 *   POST   /api/admin/images/{image_id}/process-ocr {model?} -> {image_id, document_id,
 *          ocr_text, model, input_tokens, output_tokens, latency_ms, ocr_at}; a model failure is
 *          502, no model provider 503, both `model_unavailable` (the model layer's code)
 *   POST   /api/admin/generate-product-embeddings {workspace_id, limit? (1..500, default 100)}
 *          -> {workspace_id, embedded, product_ids, remaining, total_products, model, provider,
 *          dimensions}
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import {
  caller,
  db,
  platformRoles,
  PRICING_ROLES,
  requireWorkspaceRole,
  serviceDb,
} from "@shared/auth/context.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponse, errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { validate } from "@shared/http/validate.ts";
import { BACKUP_TABLES, backupWorkspace } from "@shared/admin/backup.ts";
import { cleanupData, type CleanupRules } from "@shared/admin/cleanup.ts";
import { exportPipelineData } from "@shared/admin/export.ts";
import { systemHealth } from "@shared/admin/health.ts";
import { systemMetrics } from "@shared/admin/metrics.ts";
import { processOcr } from "@shared/admin/ocr.ts";
import { packagesStatus } from "@shared/admin/packages.ts";
import { generateProductEmbeddings } from "@shared/admin/product_embeddings.ts";
import { testProductCreation } from "@shared/admin/test_product.ts";
import { backendLlm, settings } from "../deps.ts";
import { type Ctx, router } from "../env.ts";
import { STAGE_LIMITS } from "../pipeline/config.ts";
import { DEFAULT_AI_CONFIG } from "@shared/ai_services/config.ts";
import { promptReader } from "../pipeline/prompts.ts";

const tags = ["Admin system"];

/** The body as JSON, or undefined when it is empty; a body that is not JSON is 400. */
async function optionalJson(c: Ctx): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw HttpError.badRequest("The body must be valid JSON");
  }
}

const cleanupSchema = z.object({
  dry_run: z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]).default(true),
  older_than_days: z.coerce.number().int().min(1).max(3650).default(30),
  orphan_grace_minutes: z.coerce.number().int().min(0).max(525_600).default(60),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
}).strict();

/** The cleanup rules of the query merged with a JSON body; 400 `bad_request` naming the first problem. */
function cleanupRules(input: unknown): CleanupRules {
  const parsed = cleanupSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const i = parsed.error.issues[0];
  throw HttpError.badRequest(`${i?.path.join(".") || "body"}: ${i?.message}`, parsed.error.issues);
}

const workspaceBody = z.object({ workspace_id: z.uuid() }).strict();
const ocrBody = z.strictObject({ model: z.string().trim().min(1).max(200).optional() });

export function adminSystemRoutes() {
  const app = router();
  for (
    const path of [
      "/api/admin/system/*",
      "/api/admin/data/*",
      "/api/admin/packages/*",
      "/api/admin/test-product-creation",
      "/api/admin/images/*",
      "/api/admin/generate-product-embeddings",
    ]
  ) app.use(path, platformRoles(["admin"]));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/system/health",
      tags,
      summary: "Database, storage, language model and embedding provider reachability; job queue state",
      responses: {
        ...okJson("{status, checks, timestamp}"),
        ...okJson("Database unreachable", 503),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = await systemHealth({
        db: serviceDb(c),
        embeddings: c.get("cfg").embeddings,
        llm: backendLlm(c),
        llmModel: DEFAULT_AI_CONFIG.discovery_model,
        staleAfterMs: 3 * STAGE_LIMITS.heartbeatMs,
      });
      return body.status === "unhealthy" ? c.json(body, 503) : c.json(body, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/system/metrics",
      tags,
      summary: "Job counts, throughput, error rates, credit use and table sizes (from the database)",
      responses: {
        ...okJson("{jobs, throughput, error_rates, credits, tables, database_bytes}"),
        ...errorResponses,
      },
    }),
    async (c) => c.json(await systemMetrics(serviceDb(c)), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/data/export",
      tags,
      summary: "A workspace's or a job's pipeline data as JSON (bounded per table)",
      request: {
        query: z.object({
          workspace_id: z.uuid().optional(),
          job_id: z.uuid().optional(),
          limit: z.coerce.number().int().min(1).max(2000).default(500),
        }).refine((q) => !q.workspace_id !== !q.job_id, {
          message: "give workspace_id or job_id (one of them)",
        }),
      },
      responses: { ...okJson("{scope, counts, truncated, jobs, documents, ...}"), ...errorResponses },
    }),
    async (c) => {
      const { workspace_id, job_id, limit } = c.req.valid("query");
      return c.json(await exportPipelineData(serviceDb(c), { workspace_id, job_id }, limit), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/packages/status",
      tags,
      summary: "The npm packages and versions the backend runs with, the runtime, configured providers",
      responses: { ...okJson("{runtime, packages, lock, providers}"), ...errorResponses },
    }),
    async (c) => c.json(await packagesStatus(c.get("cfg").embeddings, settings(c)), 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/admin/data/cleanup",
      tags,
      summary: "Delete old failed jobs, orphan files and old prompt tests by stated rules (dry_run first)",
      request: {
        body: { content: { "application/json": { schema: cleanupSchema } }, required: false },
      },
      responses: {
        ...okJson("{dry_run, rules, failed_jobs, orphan_uploads, orphan_images, ...}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const json = (c.req.header("content-type") ?? "").includes("json") ? await optionalJson(c) : undefined;
      const input = json === undefined
        ? c.req.query()
        : { ...c.req.query(), ...json as Record<string, unknown> };
      return c.json(await cleanupData(serviceDb(c), cleanupRules(input)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/data/backup",
      tags,
      summary: "Write a JSON snapshot of a workspace's tables to the admin-backups bucket",
      request: jsonBody(
        z.object({
          workspace_id: z.uuid(),
          tables: z.array(z.enum(BACKUP_TABLES)).min(1).optional(),
        }).strict(),
      ),
      responses: {
        ...okJson("{backup_id, bucket, path, size_bytes, row_counts, ...}"),
        ...errorResponses,
        413: errorResponse("A table has more rows than a JSON backup holds"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const tables = [...new Set(body.tables ?? BACKUP_TABLES)];
      return c.json(await backupWorkspace(serviceDb(c), body.workspace_id, tables, caller(c).userId), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/test-product-creation",
      tags,
      summary: "Create a test product through the real product path and remove it, step by step",
      request: jsonBody(workspaceBody),
      responses: { ...okJson("{success, product_id, steps}"), ...errorResponses },
    }),
    async (c) => {
      const { workspace_id } = c.req.valid("json");
      await requireWorkspaceRole(c, workspace_id, PRICING_ROLES, "Creating and removing a test product");
      return c.json(
        await testProductCreation(db(c), serviceDb(c), c.get("cfg").embeddings, workspace_id),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/images/{image_id}/process-ocr",
      tags,
      summary: "Read a document image's text with the vision model and store it on the row",
      request: {
        params: idParam("image_id"),
        body: {
          content: {
            "application/json": { schema: ocrBody },
          },
          required: false,
        },
      },
      responses: {
        ...okJson("{image_id, ocr_text, model, input_tokens, output_tokens, latency_ms}"),
        ...errorResponses,
        502: errorResponse("The vision model failed: {error, code: model_unavailable}"),
        503: errorResponse("No language model is configured: {error, code: model_unavailable}"),
      },
    }),
    async (c) => {
      const { image_id } = c.req.valid("param");
      const body = await optionalJson(c);
      const model = (body === undefined ? undefined : validate(ocrBody, body).model) ??
        DEFAULT_AI_CONFIG.classification_primary_model;
      const service = serviceDb(c);
      const deps = { db: service, llm: backendLlm(c), prompt: promptReader(service) };
      return c.json(
        await processOcr(deps, image_id, model, DEFAULT_AI_CONFIG.metadata_max_tokens),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/admin/generate-product-embeddings",
      tags,
      summary: "Embed a workspace's products that have no (current) text embedding, one bounded batch",
      request: jsonBody(
        z.object({
          workspace_id: z.uuid(),
          limit: z.number().int().min(1).max(500).default(100),
        }).strict(),
      ),
      responses: { ...okJson("{workspace_id, embedded, product_ids, remaining, model}"), ...errorResponses },
    }),
    async (c) => {
      const { workspace_id, limit } = c.req.valid("json");
      return c.json(
        await generateProductEmbeddings(serviceDb(c), c.get("cfg").embeddings, workspace_id, limit),
        200,
      );
    },
  );

  return app;
}
