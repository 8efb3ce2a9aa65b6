/**
 * The async upload and reading jobs back. upload-async stores the file and writes a pending job
 * as the caller, then queues it for the backend's job runner and answers 202
 * {job_id, status: pending, message}: the runner (pipeline/runner.ts) starts it once billing has
 * linked the debit (`runAcceptedUploads`, mounted before billing) and its sweep takes it up after
 * a crash or restart, so the client only polls. With the form field `defer_processing=true` the
 * job is not queued: it waits for resume or a pdf-batch-process batch. Domain:
 * packages/shared/rag/uploads.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import type { MiddlewareHandler } from "hono";
import { HttpError } from "@shared/http/errors.ts";
import { db, requireUser, requireWorkspaceRole, serviceDb } from "@shared/auth/context.ts";
import { errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { acceptUpload, DEFAULT_MAX_UPLOAD_BYTES, jobStatus, listJobs } from "@shared/rag/uploads.ts";
import { type BackendEnv, type Ctx, router } from "../env.ts";
import type { JobRunner } from "../pipeline/runner.ts";

const tags = ["RAG"];

const uploadForm = z.object({
  file: z.any().meta({ type: "string", format: "binary", description: "The document (PDF, up to 50 MB)" }),
  workspace_id: z.uuid().optional(),
  title: z.string().max(500).optional(),
  defer_processing: z.enum(["true", "false"]).optional().meta({
    description: "`true`: do not process now; resume or a pdf-batch-process batch runs the job. " +
      "Default `false`: the pipeline runs it at once.",
  }),
});

/** The request's multipart form (400 when the body is not one). */
async function formBody(c: Ctx): Promise<FormData> {
  try {
    return await c.req.formData();
  } catch {
    throw HttpError.badRequest("The body must be multipart/form-data");
  }
}

/**
 * Starts the job runner after an accepted upload. Mounted before billing, so it runs after
 * billing has linked the debit to the job: a job that fails at once is refunded.
 */
export function runAcceptedUploads(runner: JobRunner): MiddlewareHandler<BackendEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status === 202) runner.kick();
  };
}

export function ragJobRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/documents/upload-async",
      tags,
      summary: "Store a document and create a pending processing job (answers 202)",
      request: { body: { content: { "multipart/form-data": { schema: uploadForm } }, required: true } },
      responses: { ...okJson("{job_id, status: pending, message}", 202), ...errorResponses },
    }),
    async (c) => {
      const { userId } = requireUser(c);
      const job = await acceptUpload({
        db: db(c),
        service: serviceDb(c),
        userId,
        maxBytes: c.get("cfg").maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
        authorizeWorkspace: (workspaceId) => requireWorkspaceRole(c, workspaceId, null),
      }, await formBody(c));
      return c.json(job, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/rag/documents/jobs",
      tags,
      summary: "The caller's jobs (and their workspaces' jobs for owners and admins), newest first",
      request: { query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }) },
      responses: { ...okJson("{jobs: [...]}"), ...errorResponses },
    }),
    async (c) => c.json(await listJobs(db(c), c.req.valid("query").limit), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/rag/documents/job/{job_id}",
      tags,
      summary: "A job's status",
      request: { params: idParam("job_id") },
      responses: { ...okJson("{job_id, status, progress, message, ...}"), ...errorResponses },
    }),
    async (c) => c.json(await jobStatus(db(c), c.req.valid("param").job_id), 200),
  );

  return app;
}
