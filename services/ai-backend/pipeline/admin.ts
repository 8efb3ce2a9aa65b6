/**
 * What the admin job API reports about pipeline jobs: per-stage progress, statistics over all
 * jobs, the per-page view of a document and job deletion with its stored files. Read with the
 * service role (callers are platform admins, checked by the route group).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "@shared/errors.ts";
import { readPages } from "@shared/supabase/postgrest.ts";
import { PROGRESS, STAGES } from "./config.ts";
import { check, type JobRow } from "./context.ts";
import type { ExtractOutput } from "./extract.ts";
import { IMAGE_BUCKET } from "./upload_images.ts";

export async function jobOr404(db: SupabaseClient, jobId: string): Promise<JobRow & Record<string, unknown>> {
  const job = check(await db.from("ai_jobs").select("*").eq("id", jobId).maybeSingle(), "Reading the job");
  if (!job) throw new DomainError("not_found", "not_found", "Job not found");
  return job as JobRow & Record<string, unknown>;
}

export function jobStatus(job: JobRow & Record<string, unknown>) {
  return {
    job_id: job.id,
    status: job.status,
    progress: job.progress,
    current_stage: job.current_stage,
    attempts: job.attempts,
    heartbeat_at: job.heartbeat_at ?? null,
    message: job.message,
    error: job.error,
  };
}

/** The job's progress with every stage's range and whether its checkpoint exists. */
export async function jobProgress(db: SupabaseClient, job: JobRow & Record<string, unknown>) {
  const done = new Map(
    (check(
      await db.from("ai_job_checkpoints").select("stage, created_at").eq("job_id", job.id),
      "Reading checkpoints",
    ) as { stage: string; created_at: string }[]).map((r) => [r.stage, r.created_at]),
  );
  return {
    ...jobStatus(job),
    stages: STAGES.map((stage) => ({
      stage,
      progress_range: PROGRESS[stage],
      status: done.has(stage)
        ? "completed"
        : job.current_stage === stage
        ? (job.status === "failed" ? "failed" : job.status === "processing" ? "running" : "pending")
        : "pending",
      completed_at: done.get(stage) ?? null,
    })),
  };
}

/**
 * Statistics over every job, counted in the database (`pipeline_job_statistics()`): a read of
 * ai_jobs is cut at max_rows (1,000) without an error, so counting rows here would undercount.
 */
export async function jobStatistics(db: SupabaseClient) {
  const s = check(await db.rpc("pipeline_job_statistics"), "Counting jobs") as {
    total_jobs: number;
    by_status: Record<string, number>;
    failed_by_stage: Record<string, number>;
    jobs_run_more_than_once: number;
    average_duration_seconds: number | string | null;
  };
  const by_status: Record<string, number> = {
    pending: 0,
    processing: 0,
    completed: 0,
    failed: 0,
    cancelled: 0,
    ...s.by_status,
  };
  const finished = by_status.completed + by_status.failed;
  return {
    total_jobs: Number(s.total_jobs),
    by_status,
    failed_by_stage: s.failed_by_stage,
    jobs_run_more_than_once: Number(s.jobs_run_more_than_once),
    success_rate: finished ? by_status.completed / finished : null,
    average_duration_seconds: s.average_duration_seconds === null ? null : Number(s.average_duration_seconds),
  };
}

/** Per page of the job's document: text size, index page or not, its product, chunks and images. */
export async function jobPages(db: SupabaseClient, jobId: string) {
  const cp = check(
    await db.from("ai_job_checkpoints").select("output").eq("job_id", jobId).eq("stage", "extract")
      .maybeSingle(),
    "Reading the extract checkpoint",
  ) as { output: ExtractOutput } | null;
  if (!cp) return { job_id: jobId, pages: [] };
  const ex = cp.output;
  // Every chunk and image of the document, paged (a single read stops at max_rows), counted per page.
  const chunks = check(
    await readPages<{ page_start: number; page_end: number }>(() =>
      db.from("document_chunks").select("id, page_start, page_end").eq("document_id", ex.document_id).order(
        "id",
      )
    ),
    "Reading chunks",
  );
  const images = check(
    await readPages<{ page_number: number }>(() =>
      db.from("document_images").select("id, page_number").eq("document_id", ex.document_id).order("id")
    ),
    "Reading images",
  );
  const chunksOn = new Array<number>(ex.pages.length + 2).fill(0);
  for (const c of chunks) {
    const from = Math.max(c.page_start, 1), to = Math.min(c.page_end, ex.pages.length);
    for (let page = from; page <= to; page++) chunksOn[page]++;
  }
  const imagesOn = new Map<number, number>();
  for (const im of images) imagesOn.set(im.page_number, (imagesOn.get(im.page_number) ?? 0) + 1);
  return {
    job_id: jobId,
    document_id: ex.document_id,
    page_count: ex.page_count,
    pages: ex.pages.map((text, i) => {
      const page = i + 1;
      return {
        page_number: page,
        characters: text.length,
        is_index_page: ex.index_pages.includes(page),
        product: ex.products.find((p) => page >= p.page_start && page <= p.page_end)?.name ?? null,
        extracted_images: ex.extracted_images.filter((im) => im.page_number === page).length,
        saved_images: imagesOn.get(page) ?? 0,
        chunks: chunksOn[page],
      };
    }),
  };
}

/** Deletes a job that is not running, its document rows (cascade) and its stored files. */
export async function deleteJob(db: SupabaseClient, job: JobRow): Promise<{ removed_files: number }> {
  if (job.status === "processing") {
    throw new DomainError("conflict", "job_busy", "The job is running; it can be deleted once it stops");
  }
  let removed = 0;
  if (job.document_id) {
    const listed = await db.storage.from(IMAGE_BUCKET).list(job.document_id, { limit: 1000 });
    const paths = (listed.data ?? []).map((o) => `${job.document_id}/${o.name}`);
    if (paths.length) {
      const rm = await db.storage.from(IMAGE_BUCKET).remove(paths);
      if (rm.error) {
        throw new DomainError("upstream", "storage_failed", `Removing images failed: ${rm.error.message}`);
      }
      removed += paths.length;
    }
  }
  if (job.storage_bucket && job.storage_path) {
    const rm = await db.storage.from(job.storage_bucket).remove([job.storage_path]);
    if (rm.error) {
      throw new DomainError(
        "upstream",
        "storage_failed",
        `Removing the document failed: ${rm.error.message}`,
      );
    }
    removed++;
  }
  // pipeline_documents and checkpoints go with the job (on delete cascade).
  check(await db.from("ai_jobs").delete().eq("id", job.id), "Deleting the job");
  return { removed_files: removed };
}
