/**
 * The job runner: the AI backend runs the jobs it accepted (upload-async) by itself, so an
 * accepted upload is processed without another call (issue 33). A job is the runner's once the
 * backend has queued it (ai_jobs.queued_at, set after the upload is accepted and its debit
 * linked, so a job that fails at once is refunded).
 *
 * - `kick()` after an accepted upload: the runner claims queued jobs, oldest first, while fewer
 *   than CONCURRENCY of its runs are in flight; each finished run claims the next one.
 * - `start()` sweeps at once and every SWEEP_MS: jobs queued before a crash or a restart, jobs
 *   another replica accepted while it was busy, and queued jobs whose runner died (heartbeat
 *   older than three intervals) are taken up and continue from their last checkpoint.
 * - A queued job whose runner died MAX_RUNS times is failed and refunded instead of being run
 *   again (a document that kills its runner does not loop).
 *
 * Every claim is one SQL statement (pipeline_claim_queued_job, FOR UPDATE SKIP LOCKED), so two
 * runners, in one process or on two replicas, never run one job. `stop()` aborts the runs in
 * flight like a killed process: their jobs stay `processing` and the next sweep takes them over.
 */
import { STAGE_LIMITS } from "./config.ts";
import type { JobRow } from "./context.ts";
import { type PipelineDeps, refundFailed, runJob } from "./run.ts";

/** Pipeline runs in flight per process (pdf-batch-process's default maxConcurrent is 3 too). */
export const CONCURRENCY = 3;
/** How often the runner looks for queued work it was not told about. */
export const SWEEP_MS = 30_000;
/** Runs of one queued job (its runner dying each time) before it is failed. */
export const MAX_RUNS = 3;

export interface RunnerOptions {
  concurrency?: number;
  sweepMs?: number;
  maxRuns?: number;
}

export class JobRunner {
  readonly #deps: PipelineDeps;
  readonly #opts: Required<RunnerOptions>;
  readonly #inFlight = new Map<string, Promise<void>>();
  #abort: AbortController | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #pumping: Promise<void> | null = null;
  #again = false;

  constructor(deps: PipelineDeps, opts: RunnerOptions = {}) {
    this.#deps = deps;
    this.#opts = {
      concurrency: opts.concurrency ?? CONCURRENCY,
      sweepMs: opts.sweepMs ?? SWEEP_MS,
      maxRuns: opts.maxRuns ?? MAX_RUNS,
    };
  }

  /** Sweeps now and every sweepMs until stop(). */
  start(): this {
    if (this.#abort) return this;
    this.#abort = new AbortController();
    this.#timer = setInterval(() => this.kick(), this.#opts.sweepMs);
    this.kick();
    return this;
  }

  /** Looks for queued work now (after an accepted upload). Does nothing while stopped. */
  kick(): void {
    if (!this.#abort || this.#abort.signal.aborted) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pump().catch((err) => console.error("job runner: claiming queued jobs failed", err))
      .finally(() => {
        this.#pumping = null;
        if (this.#again) {
          this.#again = false;
          this.kick();
        }
      });
  }

  /** Resolves once nothing is being claimed or run (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#pumping || this.#inFlight.size) {
      await (this.#pumping ?? Promise.allSettled(this.#inFlight.values()));
    }
  }

  /** Stops sweeping and aborts the runs in flight (their jobs stay processing for the next sweep). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#abort?.abort();
    await this.idle();
    this.#abort = null;
  }

  async #pump(): Promise<void> {
    const signal = this.#abort!.signal;
    const db = this.#deps.db;
    const now = this.#deps.now ?? (() => new Date());
    const staleBefore = () =>
      new Date(now().getTime() - 3 * (this.#deps.limits?.heartbeatMs ?? STAGE_LIMITS.heartbeatMs))
        .toISOString();
    const abandoned = await db.rpc("pipeline_fail_abandoned_jobs", {
      p_now: now().toISOString(),
      p_stale_before: staleBefore(),
      p_max_runs: this.#opts.maxRuns,
    });
    if (abandoned.error) throw new Error(`failing abandoned jobs: ${abandoned.error.message}`);
    for (const job of abandoned.data as JobRow[]) {
      console.error(`job runner: job ${job.id} failed: ${job.error}`);
      await refundFailed(db, job, job.error ?? "abandoned");
    }
    while (this.#inFlight.size < this.#opts.concurrency && !signal.aborted) {
      const claimed = await db.rpc("pipeline_claim_queued_job", {
        p_now: now().toISOString(),
        p_stale_before: staleBefore(),
        p_max_runs: this.#opts.maxRuns,
      });
      if (claimed.error) throw new Error(`claiming a queued job: ${claimed.error.message}`);
      const job = (claimed.data as JobRow[])[0];
      if (!job) return;
      const run = runJob({ ...this.#deps, signal }, job.id, { claimed: true })
        .then((done) => {
          if (done.status === "failed") console.error(`job runner: job ${job.id} failed: ${done.error}`);
        })
        .catch((err) => console.error(`job runner: job ${job.id} stopped`, err))
        .finally(() => {
          this.#inFlight.delete(job.id);
          this.kick();
        });
      this.#inFlight.set(job.id, run);
    }
  }
}
