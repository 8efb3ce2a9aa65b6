/**
 * The Admin group's job API (platform admins and the service role): list, statistics, one job,
 * its status, its stage-by-stage progress (also as server-sent events), the active jobs, the
 * per-page view, its products, and deletion. Domain: pipeline/admin.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { platformRoles, serviceDb } from "@shared/auth/context.ts";
import { errorResponse, errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { router } from "../env.ts";
import {
  activeJobs,
  deleteJobById,
  JOB_STATUSES,
  jobDetail,
  jobPages,
  jobProducts,
  jobProgressById,
  jobProgressEvents,
  jobStatistics,
  jobStatusById,
  listJobs,
} from "../pipeline/admin.ts";

const tags = ["Admin jobs"];

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
          status: z.enum(JOB_STATUSES).optional(),
          limit: z.coerce.number().int().min(1).max(500).default(50),
          offset: z.coerce.number().int().min(0).default(0),
        }),
      },
      responses: { ...okJson("{jobs, total, limit, offset}"), ...errorResponses },
    }),
    async (c) => c.json(await listJobs(serviceDb(c), c.req.valid("query")), 200),
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
    async (c) => c.json(await activeJobs(serviceDb(c)), 200),
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
    async (c) => c.json(await jobDetail(serviceDb(c), c.req.valid("param").job_id), 200),
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
    async (c) => c.json(await jobStatusById(serviceDb(c), c.req.valid("param").job_id), 200),
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
    async (c) => c.json(await jobProgressById(serviceDb(c), c.req.valid("param").job_id), 200),
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
    async (c) => c.json(await jobPages(serviceDb(c), c.req.valid("param").job_id), 200),
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
      const body = await jobProgressEvents(serviceDb(c), c.req.valid("param").job_id);
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
    async (c) => c.json(await jobProducts(serviceDb(c), c.req.valid("param").job_id), 200),
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
    async (c) => c.json(await deleteJobById(serviceDb(c), c.req.valid("param").job_id), 200),
  );

  return app;
}
