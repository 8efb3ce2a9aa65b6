/**
 * A pipeline job as its owner and the admins act on it (routes/pipeline.ts): the job as the
 * caller may see it (their client, so RLS decides), a restart from the first stage, its
 * checkpoints, its model calls summarised (AI tracking), and one stage run alone (the internal
 * per-stage routes). Runs use the service role (PipelineDeps.db) once the caller's right to the
 * job is established.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "@shared/errors.ts";
import { readPages, rows } from "@shared/supabase/postgrest.ts";
import type { Stage } from "./config.ts";
import type { AiConfigInput } from "@shared/ai_services/config.ts";
import type { JobRow } from "./context.ts";
import { type PipelineDeps, readJob, runJob } from "./run.ts";

/** The job as the caller may see it (their client: RLS), or 404. */
export async function visibleJob(callerDb: SupabaseClient, jobId: string): Promise<JobRow> {
  const job = rows(await callerDb.from("ai_jobs").select("*").eq("id", jobId).maybeSingle(), "Job") as
    | JobRow
    | null;
  if (!job) throw DomainError.notFound("Job not found");
  return job;
}

/** Continues a job the caller may see from its last checkpoint (or runs a pending one). */
export async function resumeJob(
  callerDb: SupabaseClient,
  deps: PipelineDeps,
  jobId: string,
): Promise<JobRow> {
  const job = await visibleJob(callerDb, jobId);
  return await runJob(deps, job.id);
}

/**
 * Runs a job the caller may see again from the first stage: its document rows (and with them
 * chunks, images, relationships) and checkpoints are dropped first. 409 `job_busy` while it runs.
 */
export async function restartJob(
  callerDb: SupabaseClient,
  deps: PipelineDeps,
  jobId: string,
): Promise<JobRow> {
  const job = await visibleJob(callerDb, jobId);
  if (job.status === "processing") {
    throw new DomainError("conflict", "job_busy", "The job is running; resume it instead");
  }
  rows(await deps.db.from("pipeline_documents").delete().eq("job_id", job.id), "Document");
  rows(await deps.db.rpc("pipeline_reset_job", { p_job: job.id }), "Job");
  return await runJob(deps, job.id);
}

/** A job's checkpoints (each finished stage with its output), in stage order. */
export async function jobCheckpoints(callerDb: SupabaseClient, jobId: string) {
  const job = await visibleJob(callerDb, jobId);
  const list = rows(
    await callerDb.from("ai_job_checkpoints").select("stage, progress, output, created_at").eq(
      "job_id",
      job.id,
    )
      .order("progress"),
    "Checkpoint",
  );
  return { job_id: job.id, checkpoints: list };
}

interface ModelCallRow {
  stage: string;
  model: string;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number;
  ok: boolean;
}

function summarise(calls: ModelCallRow[]) {
  const sum = (list: ModelCallRow[]) => ({
    calls: list.length,
    failed: list.filter((x) => !x.ok).length,
    input_tokens: list.reduce((a, x) => a + (x.input_tokens ?? 0), 0),
    output_tokens: list.reduce((a, x) => a + (x.output_tokens ?? 0), 0),
    latency_ms: list.reduce((a, x) => a + x.latency_ms, 0),
  });
  const group = (key: "stage" | "model") =>
    Object.fromEntries(
      [...new Set(calls.map((x) => x[key]))].map((k) => [k, sum(calls.filter((x) => x[key] === k))]),
    );
  return { totals: sum(calls), by_stage: group("stage"), by_model: group("model") };
}

/** Which model calls a tracking report covers: all, one stage's, or one model's. */
export type CallFilter = ["stage" | "model", string] | null;

/** The job's model calls (of one stage or one model, or all), with totals per stage and per model. */
export async function jobModelCalls(callerDb: SupabaseClient, jobId: string, filter: CallFilter) {
  const job = await visibleJob(callerDb, jobId);
  // Every call, paged by (created_at, id): a single read stops at max_rows (1,000), and an
  // image-heavy document makes more calls than that.
  const calls = rows(
    await readPages<ModelCallRow>(() => {
      const q = callerDb.from("ai_job_model_calls")
        .select("stage, model, purpose, input_tokens, output_tokens, latency_ms, ok, error, created_at")
        .eq("job_id", job.id);
      return (filter ? q.eq(filter[0], filter[1]) : q).order("created_at").order("id");
    }),
    "Model call",
  );
  return { job_id: job.id, ...(filter ? { [filter[0]]: filter[1] } : {}), ...summarise(calls), calls };
}

/**
 * Runs one stage alone on a job (any job: the internal routes are for admins and the service
 * role), from the previous stages' checkpoints, after storing `aiConfig` on the job when given.
 * Answers the job after the stage and the stage's checkpointed output (null if it wrote none).
 */
export async function runOneStage(
  deps: PipelineDeps,
  jobId: string,
  stage: Stage,
  aiConfig: AiConfigInput | undefined,
): Promise<{ job: JobRow; output: unknown }> {
  const service = deps.db;
  if (!(await readJob(service, jobId))) throw DomainError.notFound("Job not found");
  if (aiConfig) rows(await service.from("ai_jobs").update({ ai_config: aiConfig }).eq("id", jobId), "Job");
  const job = await runJob(deps, jobId, { only: stage });
  const cp = rows(
    await service.from("ai_job_checkpoints").select("output").eq("job_id", jobId).eq("stage", stage)
      .maybeSingle(),
    "Checkpoint",
  ) as { output: unknown } | null;
  return { job, output: cp?.output ?? null };
}
