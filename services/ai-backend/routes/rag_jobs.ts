/**
 * The parts of the RAG group that exist before the processing pipeline: the async upload (the
 * file is stored and a pending job row written, as the caller) and reading jobs back. The job
 * stays `pending` until the pipeline (routes/pipeline.ts) runs it: resume, or pdf-batch-process;
 * its message says so.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { HttpError } from "@shared/http/errors.ts";
import { db, requireUser, requireWorkspaceRole } from "@shared/auth/context.ts";
import { dbError, rows } from "@shared/supabase/postgrest.ts";
import { errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { isSafeObjectPath, safeFileName } from "@shared/storage/paths.ts";
import { router } from "../env.ts";

const tags = ["RAG"];
const BUCKET = "ai-documents";
export const PENDING_MESSAGE =
  "Document stored and queued. It is processed when POST /api/rag/jobs/{job_id}/resume (or a pdf-batch-process batch) runs the pipeline on it.";

const uploadForm = z.object({
  file: z.any().meta({ type: "string", format: "binary", description: "The document (PDF, up to 50 MB)" }),
  workspace_id: z.uuid().optional(),
  title: z.string().max(500).optional(),
});

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
      for (const [k, v] of form.entries()) if (typeof v === "string" && k !== "workspace_id") metadata[k] = v;
      const { error } = await db(c).from("ai_jobs").insert({
        id: jobId,
        workspace_id: workspaceId ?? null,
        job_type: "document_upload",
        message: PENDING_MESSAGE,
        storage_bucket: BUCKET,
        storage_path: path,
        filename: file.name,
        content_type: contentType,
        size_bytes: file.size,
        metadata,
      });
      if (error) {
        // Do not leave an orphaned file behind a job that was never created.
        const rm = await db(c).storage.from(BUCKET).remove([path]);
        if (rm.error) {
          console.error(`ai-backend: could not remove ${path} after a failed job insert`, rm.error);
        }
        throw dbError(error, "Job");
      }
      return c.json({ job_id: jobId, status: "pending", message: PENDING_MESSAGE }, 202);
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
