/**
 * The Admin group's job API (platform admins and the service role): list, statistics, one job,
 * its status, its stage-by-stage progress (also as server-sent events), the active jobs, the
 * per-page view, its products, and deletion.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { platformRoles, serviceDb } from "@shared/auth/context.ts";
import { readPages, rows } from "@shared/supabase/postgrest.ts";
import { errorResponse, errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { router } from "../env.ts";
import { deleteJob, jobOr404, jobPages, jobProgress, jobStatistics, jobStatus } from "../pipeline/admin.ts";

const tags = ["Admin jobs"];
const STATUSES = ["pending", "processing", "completed", "failed", "cancelled"] as const;

export function adminJobRoutes() {
  const app = router();
  app.use("/api/admin/jobs", platformRoles(["admin"]));
  app.use("/api/admin/jobs/*", platformRoles(["admin"]));
  app.use("/api/admin/progress/*", platformRoles(["admin"]));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/jobs",
      tags,
      summary: "All jobs, newest first, optionally of one status",
      request: {
        query: z.object({
          status: z.enum(STATUSES).optional(),
          limit: z.coerce.number().int().min(1).max(500).default(50),
          offset: z.coerce.number().int().min(0).default(0),
        }),
      },
      responses: { ...okJson("{jobs, total, limit, offset}"), ...errorResponses },
    }),
    async (c) => {
      const { status, limit, offset } = c.req.valid("query");
      let q = serviceDb(c).from("ai_jobs").select("*", { count: "exact" }).order("created_at", {
        ascending: false,
      })
        .range(offset, offset + limit - 1);
      if (status) q = q.eq("status", status);
      const res = await q;
      const jobs = rows(res, "Job");
      return c.json({ jobs, total: res.count ?? jobs.length, limit, offset }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/jobs/statistics",
      tags,
      summary: "Jobs by status, failures by stage, success rate, average duration",
      responses: {
        ...okJson("{total_jobs, by_status, failed_by_stage, success_rate, ...}"),
        ...errorResponses,
      },
    }),
    async (c) => c.json(await jobStatistics(serviceDb(c)), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/progress/active",
      tags,
      summary: "Jobs processing now, with their stage and progress",
      responses: { ...okJson("{jobs: [{job_id, status, progress, current_stage, ...}]}"), ...errorResponses },
    }),
    async (c) => {
      const jobs = rows(
        await serviceDb(c).from("ai_jobs").select("*").eq("status", "processing").order("started_at"),
        "Job",
      ) as Parameters<typeof jobStatus>[0][];
      return c.json({ jobs: jobs.map(jobStatus) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/jobs/{job_id}",
      tags,
      summary: "One job with its checkpoints' stages and its document",
      request: { params: idParam("job_id") },
      responses: { ...okJson("{job_id, ..., progress_detail, document}"), ...errorResponses },
    }),
    async (c) => {
      const db = serviceDb(c);
      const job = await jobOr404(db, c.req.valid("param").job_id);
      const document = job.document_id
        ? rows(
          await db.from("pipeline_documents").select("*").eq("id", job.document_id).maybeSingle(),
          "Document",
        )
        : null;
      return c.json({ job_id: job.id, ...job, progress_detail: await jobProgress(db, job), document }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/jobs/{job_id}/status",
      tags,
      summary: "A job's status, progress, stage, attempts and heartbeat",
      request: { params: idParam("job_id") },
      responses: {
        ...okJson("{job_id, status, progress, current_stage, attempts, heartbeat_at, ...}"),
        ...errorResponses,
      },
    }),
    async (c) => c.json(jobStatus(await jobOr404(serviceDb(c), c.req.valid("param").job_id)), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/jobs/{job_id}/progress",
      tags,
      summary: "A job's progress stage by stage (each stage's range and state)",
      request: { params: idParam("job_id") },
      responses: {
        ...okJson("{job_id, progress, stages: [{stage, progress_range, status}]}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const db = serviceDb(c);
      return c.json(await jobProgress(db, await jobOr404(db, c.req.valid("param").job_id)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/jobs/{job_id}/progress/pages",
      tags,
      summary: "Per page of the job's document: text, index page, product, images and chunks",
      request: { params: idParam("job_id") },
      responses: { ...okJson("{job_id, document_id, page_count, pages: [...]}"), ...errorResponses },
    }),
    async (c) => {
      const db = serviceDb(c);
      const job = await jobOr404(db, c.req.valid("param").job_id);
      return c.json(await jobPages(db, job.id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/jobs/{job_id}/progress/stream",
      tags,
      summary:
        "The job's progress as server-sent events: one `progress` event, then `done` once it has stopped",
      request: { params: idParam("job_id") },
      responses: { 200: { description: "text/event-stream" }, ...errorResponses },
    }),
    async (c) => {
      const db = serviceDb(c);
      const job = await jobOr404(db, c.req.valid("param").job_id);
      // One snapshot per request: the stream closes after it (clients reconnect, as SSE does,
      // with the retry interval given), so no connection is held open while a job runs.
      const snapshot = await jobProgress(db, job);
      const terminal = ["completed", "failed", "cancelled"].includes(job.status);
      const body = `retry: 2000\nevent: progress\ndata: ${JSON.stringify(snapshot)}\n\n` +
        (terminal ? `event: done\ndata: ${JSON.stringify({ job_id: job.id, status: job.status })}\n\n` : "");
      return c.body(body, 200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/admin/jobs/{job_id}/products",
      tags,
      summary: "The products found in the job's document, with metadata and counts",
      request: { params: idParam("job_id") },
      responses: { ...okJson("{job_id, products: [...]}"), ...errorResponses },
    }),
    async (c) => {
      const db = serviceDb(c);
      const job = await jobOr404(db, c.req.valid("param").job_id);
      const documentId = job.document_id;
      // Every product and every chunk's product, paged (a single read stops at max_rows).
      const products = documentId
        ? rows(
          await readPages<{ id: string }>(() =>
            db.from("pipeline_products").select("*").eq("document_id", documentId).order("page_start")
              .order("id")
          ),
          "Product",
        )
        : [];
      const chunkCount = new Map<string, number>();
      if (documentId) {
        const chunks = rows(
          await readPages<{ product_id: string }>(() =>
            db.from("document_chunks").select("id, product_id").eq("document_id", documentId)
              .not("product_id", "is", null).order("id")
          ),
          "Chunk",
        );
        for (const ch of chunks) chunkCount.set(ch.product_id, (chunkCount.get(ch.product_id) ?? 0) + 1);
      }
      return c.json({
        job_id: job.id,
        products: products.map((p) => ({
          ...p,
          chunk_count: chunkCount.get(p.id) ?? 0,
        })),
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/admin/jobs/{job_id}",
      tags,
      summary: "Delete a job that is not running, with its document rows and stored files",
      request: { params: idParam("job_id") },
      responses: {
        ...okJson("{job_id, deleted: true, removed_files}"),
        ...errorResponses,
        409: errorResponse("The job is running"),
      },
    }),
    async (c) => {
      const db = serviceDb(c);
      const job = await jobOr404(db, c.req.valid("param").job_id);
      const out = await deleteJob(db, job);
      return c.json({ job_id: job.id, deleted: true, ...out }, 200);
    },
  );

  return app;
}
