/**
 * The async upload and reading jobs back. upload-async stores the file and writes a pending job
 * as the caller, then queues it for the backend's job runner (ai_jobs.queued_at, service role)
 * and answers 202 {job_id, status: pending, message}: the runner (pipeline/runner.ts) starts it
 * once billing has linked the debit (`runAcceptedUploads`, mounted before billing) and its sweep
 * takes it up after a crash or restart, so the client only polls. With the form field
 * `defer_processing=true` the job is not queued: it waits for resume or a pdf-batch-process
 * batch (which then choose its options), and its message says so.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import type { MiddlewareHandler } from "hono";
import { HttpError } from "@shared/http/errors.ts";
import { db, requireUser, requireWorkspaceRole, serviceDb } from "@shared/auth/context.ts";
import { dbError, rows } from "@shared/supabase/postgrest.ts";
import { errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { isSafeObjectPath, safeFileName } from "@shared/storage/paths.ts";
import { router } from "../env.ts";
import type { BackendEnv, Ctx } from "../env.ts";
import type { JobRunner } from "../pipeline/runner.ts";

const tags = ["RAG"];
const BUCKET = "ai-documents";
export const QUEUED_MESSAGE =
  "Document stored and queued: the processing pipeline runs it now. Poll GET /api/rag/documents/job/{job_id} (ai-gateway: GET job-status/{job_id}) until it is completed or failed.";
export const DEFERRED_MESSAGE =
  "Document stored and queued. It is processed when POST /api/rag/jobs/{job_id}/resume (or a pdf-batch-process batch) runs the pipeline on it.";

const uploadForm = z.object({
  file: z.any().meta({ type: "string", format: "binary", description: "The document (PDF, up to 50 MB)" }),
  workspace_id: z.uuid().optional(),
  title: z.string().max(500).optional(),
  defer_processing: z.enum(["true", "false"]).optional().meta({
    description: "`true`: do not process now; resume or a pdf-batch-process batch runs the job. " +
      "Default `false`: the pipeline runs it at once.",
  }),
});

/** Removes what a refused upload stored (the job row, if any, then the file). */
async function discard(c: Ctx, path: string, jobId: string | null): Promise<void> {
  if (jobId) {
    const del = await serviceDb(c).from("ai_jobs").delete().eq("id", jobId);
    if (del.error) console.error(`ai-backend: could not remove job ${jobId} of a refused upload`, del.error);
  }
  const rm = await db(c).storage.from(BUCKET).remove([path]);
  if (rm.error) console.error(`ai-backend: could not remove ${path} of a refused upload`, rm.error);
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
      const who = requireUser(c);
      let form: FormData;
      try {
        form = await c.req.formData();
      } catch {
        throw HttpError.badRequest("The body must be multipart/form-data");
      }
      const file = form.get("file");
      if (!(file instanceof File)) throw HttpError.badRequest("file: a file field named `file` is required");
      const max = c.get("cfg").maxUploadBytes ?? 50 * 1024 * 1024;
      if (file.size === 0) throw HttpError.badRequest("file: the file is empty");
      if (file.size > max) throw new HttpError(413, "payload_too_large", `file: larger than ${max} bytes`);
      const workspaceId = form.get("workspace_id");
      if (workspaceId !== null) {
        if (typeof workspaceId !== "string" || !z.uuid().safeParse(workspaceId).success) {
          throw HttpError.badRequest("workspace_id: must be a uuid");
        }
        await requireWorkspaceRole(c, workspaceId, null);
      }
      const deferField = form.get("defer_processing");
      if (deferField !== null && deferField !== "true" && deferField !== "false") {
        throw HttpError.badRequest("defer_processing: must be `true` or `false`");
      }
      const deferred = deferField === "true";
      const message = deferred ? DEFERRED_MESSAGE : QUEUED_MESSAGE;
      const jobId = crypto.randomUUID();
      const path = `${who.userId}/${jobId}/${safeFileName(file.name)}`;
      // The pipeline reads this path with the service role: it must stay inside the caller's folder.
      if (!isSafeObjectPath(path)) throw HttpError.badRequest("file: the file name cannot be stored safely");
      const contentType = file.type || "application/octet-stream";
      const up = await db(c).storage.from(BUCKET).upload(path, file, { contentType, upsert: false });
      if (up.error) {
        throw new HttpError(502, "storage_failed", `Storing the file failed: ${up.error.message}`);
      }
      const metadata: Record<string, string> = {};
      for (const [k, v] of form.entries()) {
        if (typeof v === "string" && k !== "workspace_id" && k !== "defer_processing") metadata[k] = v;
      }
      const { error } = await db(c).from("ai_jobs").insert({
        id: jobId,
        workspace_id: workspaceId ?? null,
        job_type: "document_upload",
        message,
        storage_bucket: BUCKET,
        storage_path: path,
        filename: file.name,
        content_type: contentType,
        size_bytes: file.size,
        metadata,
      });
      if (error) {
        // Do not leave an orphaned file behind a job that was never created.
        await discard(c, path, null);
        throw dbError(error, "Job");
      }
      if (!deferred) {
        // Committed before the 202: an accepted upload is always the runner's (and its sweep's).
        const queued = await serviceDb(c).from("ai_jobs").update({ queued_at: new Date().toISOString() })
          .eq("id", jobId);
        if (queued.error) {
          await discard(c, path, jobId);
          throw dbError(queued.error, "Job");
        }
      }
      return c.json({ job_id: jobId, status: "pending", message }, 202);
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
    async (c) => {
      const { limit } = c.req.valid("query");
      const jobs = rows(
        await db(c).from("ai_jobs").select("*").order("created_at", { ascending: false }).limit(limit),
        "Job",
      );
      return c.json({ jobs }, 200);
    },
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
    async (c) => {
      const { job_id } = c.req.valid("param");
      const job = rows(
        await db(c).from("ai_jobs").select("*").eq("id", job_id).maybeSingle(),
        "Job",
      ) as
        | Record<string, unknown>
        | null;
      if (!job) throw HttpError.notFound("Job not found");
      return c.json({ job_id, ...job }, 200);
    },
  );

  return app;
}
