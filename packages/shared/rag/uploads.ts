/**
 * Uploads for the PDF pipeline and the jobs they become. `acceptUpload` checks the multipart
 * form, stores the file in the caller's folder of the ai-documents bucket and writes a pending
 * job as the caller; unless `defer_processing=true` it then marks the job queued (ai_jobs.queued_at,
 * service role), committed before the answer, so an accepted upload is always the job runner's
 * (and its sweep's after a crash). A deferred job waits for resume or a pdf-batch-process batch
 * (which then choose its options), and its message says so. A refused upload leaves nothing
 * behind. Jobs are read as the caller (RLS: their own jobs, their workspaces' for owners and
 * admins).
 */
import { z } from "zod";
import { DomainError } from "../errors.ts";
import { isSafeObjectPath, safeFileName } from "../storage/paths.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { dbError, rows } from "../supabase/postgrest.ts";

export const UPLOAD_BUCKET = "ai-documents";
/** The default of `maxBytes`: 50 MB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export const QUEUED_MESSAGE =
  "Document stored and queued: the processing pipeline runs it now. Poll GET /api/rag/documents/job/{job_id} (ai-gateway: GET job-status/{job_id}) until it is completed or failed.";
export const DEFERRED_MESSAGE =
  "Document stored and queued. It is processed when POST /api/rag/jobs/{job_id}/resume (or a pdf-batch-process batch) runs the pipeline on it.";

export interface UploadDeps {
  /** The uploader's client: the file and the job row are written as them (RLS, storage policies). */
  db: SupabaseClient;
  /** The service client: queues the job and cleans up after a refused upload. */
  service: SupabaseClient;
  userId: string;
  maxBytes: number;
  /** Authorises the caller for a workspace named in the form (outsiders 404). */
  authorizeWorkspace: (workspaceId: string) => Promise<unknown>;
}

/** Removes what a refused upload stored (the job row, if any, then the file). */
async function discard(deps: UploadDeps, path: string, jobId: string | null): Promise<void> {
  if (jobId) {
    const del = await deps.service.from("ai_jobs").delete().eq("id", jobId);
    if (del.error) console.error(`ai-backend: could not remove job ${jobId} of a refused upload`, del.error);
  }
  const rm = await deps.db.storage.from(UPLOAD_BUCKET).remove([path]);
  if (rm.error) console.error(`ai-backend: could not remove ${path} of a refused upload`, rm.error);
}

/** upload-async: `{job_id, status: pending, message}` once the file and its job are stored. */
export async function acceptUpload(deps: UploadDeps, form: FormData) {
  const file = form.get("file");
  if (!(file instanceof File)) throw DomainError.invalid("file: a file field named `file` is required");
  if (file.size === 0) throw DomainError.invalid("file: the file is empty");
  if (file.size > deps.maxBytes) {
    throw new DomainError("too_large", "payload_too_large", `file: larger than ${deps.maxBytes} bytes`);
  }
  const workspaceId = form.get("workspace_id");
  if (workspaceId !== null) {
    if (typeof workspaceId !== "string" || !z.uuid().safeParse(workspaceId).success) {
      throw DomainError.invalid("workspace_id: must be a uuid");
    }
    await deps.authorizeWorkspace(workspaceId);
  }
  const deferField = form.get("defer_processing");
  if (deferField !== null && deferField !== "true" && deferField !== "false") {
    throw DomainError.invalid("defer_processing: must be `true` or `false`");
  }
  const deferred = deferField === "true";
  const message = deferred ? DEFERRED_MESSAGE : QUEUED_MESSAGE;
  const jobId = crypto.randomUUID();
  const path = `${deps.userId}/${jobId}/${safeFileName(file.name)}`;
  // The pipeline reads this path with the service role: it must stay inside the caller's folder.
  if (!isSafeObjectPath(path)) throw DomainError.invalid("file: the file name cannot be stored safely");
  const contentType = file.type || "application/octet-stream";
  const up = await deps.db.storage.from(UPLOAD_BUCKET).upload(path, file, { contentType, upsert: false });
  if (up.error) {
    throw new DomainError("upstream", "storage_failed", `Storing the file failed: ${up.error.message}`);
  }
  const metadata: Record<string, string> = {};
  for (const [k, v] of form.entries()) {
    if (typeof v === "string" && k !== "workspace_id" && k !== "defer_processing") metadata[k] = v;
  }
  const { error } = await deps.db.from("ai_jobs").insert({
    id: jobId,
    workspace_id: workspaceId ?? null,
    job_type: "document_upload",
    message,
    storage_bucket: UPLOAD_BUCKET,
    storage_path: path,
    filename: file.name,
    content_type: contentType,
    size_bytes: file.size,
    metadata,
  });
  if (error) {
    // Do not leave an orphaned file behind a job that was never created.
    await discard(deps, path, null);
    throw dbError(error, "Job");
  }
  if (!deferred) {
    // Committed before the 202: an accepted upload is always the runner's (and its sweep's).
    const queued = await deps.service.from("ai_jobs").update({ queued_at: new Date().toISOString() })
      .eq("id", jobId);
    if (queued.error) {
      await discard(deps, path, jobId);
      throw dbError(queued.error, "Job");
    }
  }
  return { job_id: jobId, status: "pending", message };
}

/** The caller's jobs (and their workspaces' jobs for owners and admins), newest first. */
export async function listJobs(db: SupabaseClient, limit: number) {
  const jobs = rows(
    await db.from("ai_jobs").select("*").order("created_at", { ascending: false }).limit(limit),
    "Job",
  );
  return { jobs };
}

/** A job's status: `{job_id, ...the job row}`, or 404. */
export async function jobStatus(db: SupabaseClient, jobId: string) {
  const job = rows(await db.from("ai_jobs").select("*").eq("id", jobId).maybeSingle(), "Job") as
    | Record<string, unknown>
    | null;
  if (!job) throw DomainError.notFound("Job not found");
  return { job_id: jobId, ...job };
}
