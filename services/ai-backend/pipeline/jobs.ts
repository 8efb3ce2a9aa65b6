/**
 * Jobs as the routes see them: creating a pipeline job for a document the caller uploads (stored
 * as the caller in ai-documents, as upload-async does), the runner's dependencies from the
 * backend's config, and the job's public shape.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "@shared/errors.ts";
import { safeFileName } from "@shared/storage/paths.ts";
import { type BackendConfig, settingsOf } from "../config.ts";
import type { PipelineOptions } from "./config.ts";
import type { PipelineDeps } from "./run.ts";
import type { JobRow } from "./context.ts";

export const DOCUMENT_BUCKET = "ai-documents";

export function pipelineDeps(cfg: BackendConfig, service: SupabaseClient): PipelineDeps {
  return {
    db: service,
    textEmbeddings: cfg.embeddings,
    secrets: settingsOf(cfg),
  };
}

/** Stores the PDF as the caller and writes a pending job carrying the pipeline options. */
export async function createUploadJob(
  callerDb: SupabaseClient,
  userId: string,
  doc: { bytes: Uint8Array; filename: string; workspaceId: string | null; options: Partial<PipelineOptions> },
): Promise<string> {
  const jobId = crypto.randomUUID();
  const path = `${userId}/${jobId}/${safeFileName(doc.filename)}`;
  const up = await callerDb.storage.from(DOCUMENT_BUCKET).upload(path, doc.bytes as Uint8Array<ArrayBuffer>, {
    contentType: "application/pdf",
    upsert: false,
  });
  if (up.error) {
    throw new DomainError("upstream", "storage_failed", `Storing the file failed: ${up.error.message}`);
  }
  const { error } = await callerDb.from("ai_jobs").insert({
    id: jobId,
    workspace_id: doc.workspaceId,
    job_type: "document_upload",
    message: "Queued for the processing pipeline",
    storage_bucket: DOCUMENT_BUCKET,
    storage_path: path,
    filename: doc.filename,
    content_type: "application/pdf",
    size_bytes: doc.bytes.length,
    metadata: { pipeline_options: doc.options },
  });
  if (error) {
    await callerDb.storage.from(DOCUMENT_BUCKET).remove([path]);
    throw new DomainError("invalid", "job_not_created", `The job could not be created: ${error.message}`);
  }
  return jobId;
}

/** The job as the API answers it. */
export function jobView(job: JobRow): Record<string, unknown> {
  return { job_id: job.id, ...job };
}
