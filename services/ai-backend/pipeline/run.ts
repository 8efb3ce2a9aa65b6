/**
 * The orchestrator: runs a job's stages in order (extract, then the six stages of the spec),
 * each given the previous stages' filtered output read from the checkpoints, and writes each
 * stage's output as a checkpoint when it finishes. A stage that has a checkpoint is never run
 * again, so restart-from-failure and resume-after-a-kill continue where the job stopped; a stage
 * that was interrupted half-way is run again, and its writes are upserts on natural keys.
 *
 * Per stage: a 600 s timeout, up to 3 attempts with 2^attempt s backoff (input errors such as
 * "not a PDF" fail at once), a heartbeat every 30 s while the job runs. Clock and sleep are
 * injectable (tests never wait). A run aborted through `signal` stops like a killed process:
 * the job stays `processing` with its last heartbeat, and a later claim (resume, or the job
 * runner's sweep for a queued job: runner.ts) takes it over once that heartbeat is stale.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "@shared/errors.ts";
import { isModelError, llmFromEnv, type Settings } from "@shared/llm/mod.ts";
import type { EmbeddingProvider } from "@shared/embeddings/provider.ts";
import { type ImageEmbeddingProvider, LocalImageEmbeddings } from "@shared/embeddings/image.ts";
import { pipelineOptionsSchema, PROGRESS, type Stage, STAGE_LIMITS, STAGES } from "./config.ts";
import { resolveAiConfig } from "@shared/ai_services/config.ts";
import { check, type JobRow, type StageContext } from "./context.ts";
import { type ParsedPdf, parsePdf } from "./document.ts";
import { extract, type ExtractOutput } from "./extract.ts";
import { classifyImages, type ClassifyOutput } from "./classify_images.ts";
import { uploadImages, type UploadOutput } from "./upload_images.ts";
import { saveImagesDb } from "./save_images_db.ts";
import { extractMetadata } from "./extract_metadata.ts";
import { createChunks } from "./create_chunks.ts";
import { createRelationships } from "./create_relationships.ts";
import { refundFailedJob } from "./refund.ts";
import { promptReader } from "./prompts.ts";

export interface PipelineDeps {
  /** Service-role client: the route has authorised the caller before a run starts. */
  db: SupabaseClient;
  textEmbeddings: EmbeddingProvider;
  imageEmbeddings?: ImageEmbeddingProvider;
  /** The backend's settings: the model layer's provider, key and origin (llmFromEnv). */
  secrets: Settings;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
  limits?: Partial<typeof STAGE_LIMITS>;
}

export interface RunRequest {
  /** Run only this stage (the internal per-stage routes); earlier stages must have checkpoints. */
  only?: Stage;
  /** The caller already holds the job (the job runner claimed it, runner.ts): no claim here. */
  claimed?: boolean;
}

/** The run was killed (aborted): nothing more is written, as if the process had died. */
export class RunKilled extends Error {
  constructor(stage: Stage) {
    super(`the run was killed during ${stage}`);
    this.name = "RunKilled";
  }
}

type Outputs = Partial<Record<Stage, unknown>>;

/** The input a stage is given: the previous stages' filtered output (and the job's options). */
function stageInput(stage: Stage, outs: Outputs, ctx: StageContext): unknown {
  if (stage === "extract") return undefined;
  const need = <T>(s: Stage) => {
    if (!(s in outs)) {
      throw new DomainError(
        "conflict",
        "stage_not_ready",
        `${stage} needs the output of ${s}, which has not run`,
      );
    }
    return outs[s] as T;
  };
  const ex = need<ExtractOutput>("extract");
  const product_ids = ex.products.map((p) => p.id);
  switch (stage) {
    case "classify-images":
      return { extracted_images: ex.extracted_images };
    case "upload-images":
      return { material_images: need<ClassifyOutput>("classify-images").material_images };
    case "save-images-db":
      return { uploaded_images: need<UploadOutput>("upload-images").uploaded_images };
    case "extract-metadata":
      return { document_id: ex.document_id, product_ids, products: ex.products, pdf_text: ex.pages };
    case "create-chunks":
      return {
        document_id: ex.document_id,
        extracted_text: ex.pages,
        index_pages: ex.index_pages,
        products: ex.products,
        product_ids,
        chunk_size: ctx.options.chunk_size,
        chunk_overlap: ctx.options.chunk_overlap,
      };
    case "create-relationships":
      return {
        document_id: ex.document_id,
        product_ids,
        similarity_threshold: ctx.options.similarity_threshold,
      };
  }
}

// deno-lint-ignore no-explicit-any
const RUNNERS: Record<Stage, (ctx: StageContext, input: any) => Promise<unknown>> = {
  "extract": (ctx) => extract(ctx),
  "classify-images": classifyImages,
  "upload-images": uploadImages,
  "save-images-db": saveImagesDb,
  "extract-metadata": extractMetadata,
  "create-chunks": createChunks,
  "create-relationships": createRelationships,
};

function withTimeout<T>(p: Promise<T>, ms: number, stage: Stage): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${stage} timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Errors a retry cannot fix: the input is wrong, or a prerequisite is missing; and the model
 * layer's two (model_unavailable, model_bad_output), which come after the layer already retried:
 * a stage retry would only repeat the model calls (and their cost).
 */
function permanent(err: unknown): boolean {
  return isModelError(err) ||
    (err instanceof DomainError && ["invalid", "conflict", "unavailable"].includes(err.kind));
}

export async function readJob(db: SupabaseClient, jobId: string): Promise<JobRow | null> {
  return check(await db.from("ai_jobs").select("*").eq("id", jobId).maybeSingle(), "Reading the job") as
    | JobRow
    | null;
}

export async function runJob(deps: PipelineDeps, jobId: string, req: RunRequest = {}): Promise<JobRow> {
  const limits = { ...STAGE_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const signal = deps.signal ?? new AbortController().signal;
  const db = deps.db;

  if (!req.only && !req.claimed) {
    const current = await readJob(db, jobId);
    if (current?.status === "completed") return current;
  }
  const staleBefore = new Date(now().getTime() - 3 * limits.heartbeatMs);
  const claim = async () =>
    (check(
      await db.rpc("pipeline_claim_job", {
        p_job: jobId,
        p_now: now().toISOString(),
        p_stale_before: staleBefore.toISOString(),
      }),
      "Claiming the job",
    ) as JobRow[])[0] ?? null;
  const held = req.claimed ? await readJob(db, jobId) : await claim();
  if (!held) {
    const current = await readJob(db, jobId);
    if (!current) throw new DomainError("not_found", "not_found", "Job not found");
    throw new DomainError("conflict", "job_busy", `The job is ${current.status}: another run holds it`);
  }
  let job: JobRow = held;
  if (!job.storage_bucket || !job.storage_path) {
    return await finish(db, job.id, "failed", "The job has no stored document to process");
  }
  if (!job.document_id) {
    job = check(
      await db.from("ai_jobs").update({ document_id: crypto.randomUUID() }).eq("id", job.id).select("*")
        .single(),
      "Assigning the document id",
    ) as JobRow;
  }
  const parsedOptions = pipelineOptionsSchema.safeParse(job.metadata?.pipeline_options ?? {});
  const parsedAi = parsedOptions.success
    ? (() => {
      try {
        // An ai_config set on the job (the internal stage routes) wins over the upload's.
        return resolveAiConfig((job.ai_config as never) ?? parsedOptions.data.ai_config);
      } catch (err) {
        return err as Error;
      }
    })()
    : null;
  if (!parsedOptions.success || parsedAi instanceof Error || parsedAi === null) {
    return await finish(db, job.id, "failed", "The job's pipeline options or ai_config are not valid");
  }

  let currentStage: Stage = "extract";
  let pdf: Promise<ParsedPdf> | null = null;
  const ctx: StageContext = {
    db,
    job,
    documentId: job.document_id!,
    options: parsedOptions.data,
    ai: parsedAi,
    // Every model call attempt is the job's AI tracking, with the stage it ran in.
    llm: llmFromEnv(deps.secrets, {
      record: async (call) => {
        const { error } = await db.from("ai_job_model_calls").insert({
          job_id: job.id,
          stage: currentStage,
          model: call.model,
          purpose: call.purpose,
          input_tokens: call.input_tokens,
          output_tokens: call.output_tokens,
          latency_ms: call.latency_ms,
          ok: call.ok,
          error: call.error,
        });
        if (error) console.error(`pipeline: recording a model call of ${job.id} failed`, error.message);
      },
    }),
    textEmbeddings: deps.textEmbeddings,
    imageEmbeddings: deps.imageEmbeddings ?? new LocalImageEmbeddings(),
    pdf: () =>
      pdf ??= (async () => {
        const res = await db.storage.from(job.storage_bucket!).download(job.storage_path!);
        if (res.error) throw new Error(`Reading the stored document failed: ${res.error.message}`);
        return parsePdf(new Uint8Array(await res.data.arrayBuffer()));
      })(),
    signal,
    prompt: promptReader(db),
  };

  if (job.metadata && "error_code" in job.metadata) {
    // A new run clears the last failure's code, as claiming cleared its error.
    const { error_code: _last, ...metadata } = job.metadata;
    job = check(
      await db.from("ai_jobs").update({ metadata }).eq("id", job.id).select("*").single(),
      "Clearing the last failure",
    ) as JobRow;
    ctx.job = job;
  }
  const outs: Outputs = {};
  const left = () => STAGES.filter((s) => !(s in outs));
  for (
    const row of check(
      await db.from("ai_job_checkpoints").select("stage, output").eq("job_id", job.id),
      "Reading checkpoints",
    ) as { stage: Stage; output: unknown }[]
  ) outs[row.stage] = row.output;

  const heartbeat = setInterval(() => {
    db.from("ai_jobs").update({ heartbeat_at: now().toISOString() }).eq("id", job.id).eq(
      "status",
      "processing",
    )
      .then(({ error }) => error && console.error(`pipeline: heartbeat of ${job.id} failed`, error.message));
  }, limits.heartbeatMs);
  try {
    const stages = req.only ? [req.only] : STAGES.filter((s) => !(s in outs));
    for (const stage of stages) {
      currentStage = stage;
      let input: unknown;
      try {
        input = stageInput(stage, outs, ctx);
      } catch (err) {
        // A stage asked for before its inputs exist: the job is left as it was, not running.
        await finish(db, job.id, "pending", (err as Error).message);
        throw err;
      }
      check(
        await db.rpc("pipeline_stage_started", {
          p_job: job.id,
          p_stage: stage,
          p_progress: PROGRESS[stage][0],
          p_now: now().toISOString(),
        }),
        "Starting the stage",
      );
      let output: unknown;
      for (let attempt = 1;; attempt++) {
        try {
          output = await withTimeout(RUNNERS[stage](ctx, input), limits.timeoutMs, stage);
          break;
        } catch (err) {
          if (signal.aborted) throw new RunKilled(stage);
          const why = err instanceof Error ? err.message : String(err);
          if (permanent(err) || attempt >= limits.maxAttempts) {
            return await finish(
              db,
              job.id,
              "failed",
              `${stage} failed after ${attempt} attempt${attempt === 1 ? "" : "s"}: ${why}`,
              stage,
              // The failure's code (model_unavailable, model_bad_output, not_a_pdf ...) on the job.
              err instanceof DomainError ? { ...job.metadata, error_code: err.code } : undefined,
            );
          }
          await sleep(limits.backoffMs(attempt));
        }
      }
      // Killed after the stage's writes but before its checkpoint: the next run redoes the stage.
      if (signal.aborted) throw new RunKilled(stage);
      check(
        await db.rpc("pipeline_checkpoint", {
          p_job: job.id,
          p_stage: stage,
          p_output: output,
          p_progress: PROGRESS[stage][1],
          p_now: now().toISOString(),
        }),
        "Writing the checkpoint",
      );
      outs[stage] = output;
    }
    if (left().length) {
      return await finish(db, job.id, "pending", `Stage ${req.only} finished; ${left().join(", ")} remain`);
    }
    return await finish(db, job.id, "completed", "All stages finished");
  } catch (err) {
    if (err instanceof RunKilled) return (await readJob(db, job.id))!;
    throw err;
  } finally {
    clearInterval(heartbeat);
  }
}

async function finish(
  db: SupabaseClient,
  jobId: string,
  status: "completed" | "failed" | "pending",
  message: string,
  stage?: Stage,
  metadata?: Record<string, unknown>,
): Promise<JobRow> {
  const patch: Record<string, unknown> = { status, message, ...(metadata ? { metadata } : {}) };
  if (status === "completed") Object.assign(patch, { progress: 100, completed_at: new Date().toISOString() });
  if (status === "failed") Object.assign(patch, { error: message, current_stage: stage ?? null });
  const job = check(
    await db.from("ai_jobs").update(patch).eq("id", jobId).select("*").single(),
    "Finishing the job",
  ) as JobRow & { credit_transaction_id?: string | null };
  if (status !== "failed") return job;
  return await refundFailed(db, job, message);
}

/**
 * A billed (upload-async) job that ended `failed` gets its charge back, once (refund.ts); the
 * refund is recorded in its metadata. Also used by the job runner for abandoned jobs.
 */
export async function refundFailed(
  db: SupabaseClient,
  job: JobRow & { credit_transaction_id?: string | null },
  message: string,
): Promise<JobRow> {
  const jobId = job.id;
  const r = await refundFailedJob(db, job, message);
  if (r.outcome === "error") {
    console.error(`pipeline: refunding failed job ${jobId} failed: ${r.error}`);
    return job;
  }
  if (r.outcome !== "refunded") return job;
  const metadata = { ...job.metadata, refund: { credits: r.credits, transaction_id: r.transaction_id } };
  return check(
    await db.from("ai_jobs").update({ metadata }).eq("id", jobId).select("*").single(),
    "Recording the job's refund",
  ) as JobRow;
}
