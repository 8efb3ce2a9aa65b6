/**
 * What the admin job API (routes/admin_jobs.ts) reports about pipeline jobs: the job list and the
 * active jobs, one job with its document, per-stage progress (also as server-sent events),
 * statistics over all jobs, the per-page view and the products of a document, and job deletion
 * with its stored files. Read with the service role (callers are platform admins, checked by the
 * route group). It stays beside the pipeline because it reads the pipeline's stages and
 * checkpoints (config.ts, extract.ts).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "@shared/errors.ts";
import { readPages, rows } from "@shared/supabase/postgrest.ts";
import { PROGRESS, STAGES } from "./config.ts";
import { check, type JobRow } from "./context.ts";
import type { ExtractOutput } from "./extract.ts";
import { IMAGE_BUCKET } from "./upload_images.ts";

export async function jobOr404(db: SupabaseClient, jobId: string): Promise<JobRow & Record<string, unknown>> {
  const job = check(await db.from("ai_jobs").select("*").eq("id", jobId).maybeSingle(), "Reading the job");
  if (!job) throw new DomainError("not_found", "not_found", "Job not found");
  return job as JobRow & Record<string, unknown>;
}

export const JOB_STATUSES = ["pending", "processing", "completed", "failed", "cancelled"] as const;

/** All jobs, newest first, optionally of one status, with the total count. */
export async function listJobs(
  db: SupabaseClient,
  q: { status?: typeof JOB_STATUSES[number]; limit: number; offset: number },
) {
  let query = db.from("ai_jobs").select("*", { count: "exact" }).order("created_at", { ascending: false })
    .range(q.offset, q.offset + q.limit - 1);
  if (q.status) query = query.eq("status", q.status);
  const res = await query;
  const jobs = rows(res, "Job");
  return { jobs, total: res.count ?? jobs.length, limit: q.limit, offset: q.offset };
}

/** The jobs processing now, oldest start first, each as its status. */
export async function activeJobs(db: SupabaseClient) {
  const jobs = rows(
    await db.from("ai_jobs").select("*").eq("status", "processing").order("started_at"),
    "Job",
  ) as (JobRow & Record<string, unknown>)[];
  return { jobs: jobs.map(jobStatus) };
}

/** One job (404 unless it exists) with its stage-by-stage progress and its document row. */
export async function jobDetail(db: SupabaseClient, jobId: string) {
  const job = await jobOr404(db, jobId);
  const document = job.document_id
    ? rows(
      await db.from("pipeline_documents").select("*").eq("id", job.document_id).maybeSingle(),
      "Document",
    )
    : null;
  return { job_id: job.id, ...job, progress_detail: await jobProgress(db, job), document };
}

/**
 * The job's progress as a server-sent events body: one `progress` event, then `done` once it has
 * stopped. One snapshot per request: the stream closes after it (clients reconnect, as SSE does,
 * with the retry interval given), so no connection is held open while a job runs.
 */
export async function jobProgressEvents(db: SupabaseClient, jobId: string): Promise<string> {
  const job = await jobOr404(db, jobId);
  const snapshot = await jobProgress(db, job);
  const terminal = ["completed", "failed", "cancelled"].includes(job.status);
  return `retry: 2000\nevent: progress\ndata: ${JSON.stringify(snapshot)}\n\n` +
    (terminal ? `event: done\ndata: ${JSON.stringify({ job_id: job.id, status: job.status })}\n\n` : "");
}

/** The products found in the job's document, each with how many chunks belong to it. */
export async function jobProducts(db: SupabaseClient, jobId: string) {
  const job = await jobOr404(db, jobId);
  const documentId = job.document_id;
  // Every product and every chunk's product, paged (a single read stops at max_rows).
  const products = documentId
    ? rows(
      await readPages<{ id: string }>(() =>
        db.from("pipeline_products").select("*").eq("document_id", documentId).order("page_start").order("id")
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
  return {
    job_id: job.id,
    products: products.map((p) => ({ ...p, chunk_count: chunkCount.get(p.id) ?? 0 })),
  };
}

/** Deletes a job by id (404 unless it exists; 409 while it runs); see deleteJob. */
export async function deleteJobById(db: SupabaseClient, jobId: string) {
  const job = await jobOr404(db, jobId);
  const out = await deleteJob(db, job);
  return { job_id: job.id, deleted: true, ...out };
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

/** A job's status by id (404 unless it exists). */
export async function jobStatusById(db: SupabaseClient, jobId: string) {
  return jobStatus(await jobOr404(db, jobId));
}

/** A job's stage-by-stage progress by id (404 unless it exists). */
export async function jobProgressById(db: SupabaseClient, jobId: string) {
  return jobProgress(db, await jobOr404(db, jobId));
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

/**
 * Per page of the job's document (404 unless the job exists): text size, index page or not, its
 * product, chunks and images.
 */
export async function jobPages(db: SupabaseClient, jobId: string) {
  await jobOr404(db, jobId);
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
