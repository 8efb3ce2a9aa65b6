/**
 * The agent-run worker (background-agent-runner/worker, fired by pg_cron every minute and
 * kicked by the tick): drains the `agent_runs` queue the scheduler fills (scheduler.ts) in one
 * slice: read a few messages under a lease -> begin each (the message leaves the queue and the
 * run moves pending -> running, in one transaction: migration 20260221012200) -> dispatch it
 * (runs.ts: executed here, or handed to the AI backend) -> after AGENT_SLICE_MS take no more and
 * let the rest go. Runs a completed run chains to go on the queue too (enqueueRuns), not into
 * this request's background.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";
import {
  type DrainReport,
  drainRunQueue,
  kickRunWorker,
  type QueuedRun,
  type RunQueue,
} from "../supabase/run_queue.ts";
import { loadRun, type RunDeps, type RunOutcome, startClaimedRun } from "./runs.ts";

export const AGENT_RUN_QUEUE: RunQueue = {
  kind: "agent",
  workerPath: "/functions/v1/background-agent-runner/worker",
};
/** Time after which a worker run takes no more runs (its answer stays well within 150 s). */
export const AGENT_SLICE_MS = 60_000;
/** How long a read leases its messages (only runs not begun come back after it). */
export const AGENT_LEASE_SECONDS = 120;
/** Runs executed at once by one worker. */
export const AGENT_RUN_CONCURRENCY = 8;

export interface AgentWorkerOptions {
  sliceMs?: number;
  leaseSeconds?: number;
  afterRead?: (batch: QueuedRun[]) => void | Promise<void>;
}

/** Puts pending runs on the queue (those not on it already) and wakes the worker. */
export async function enqueueRuns(service: SupabaseClient, runIds: string[]): Promise<number> {
  if (runIds.length === 0) return 0;
  const n = rows(await service.rpc("agent_runs_enqueue", { p_run_ids: runIds }), "Run") as number;
  if (n) await kickRunWorker(service, AGENT_RUN_QUEUE);
  return n;
}

export function runAgentWorker(
  deps: RunDeps,
  opts: AgentWorkerOptions = {},
): Promise<DrainReport<RunOutcome | null>> {
  return drainRunQueue({
    service: deps.service,
    queue: AGENT_RUN_QUEUE,
    sliceMs: opts.sliceMs ?? AGENT_SLICE_MS,
    leaseSeconds: opts.leaseSeconds ?? AGENT_LEASE_SECONDS,
    concurrency: AGENT_RUN_CONCURRENCY,
    afterRead: opts.afterRead,
    async run(runId) {
      const run = await loadRun(deps.service, runId);
      return run ? await startClaimedRun(deps, run) : null;
    },
  });
}
