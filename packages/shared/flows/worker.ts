/**
 * The flow-run worker (flow-scheduler-cron/worker, fired by pg_cron every minute and kicked by
 * the tick): drains the `flow_runs` queue the scheduler fills (scheduler.ts) in one slice:
 * read a few messages under a lease -> begin each (the message leaves the queue and the run's
 * clock restarts, in one transaction: migration 20260221012100) -> load its flow -> execute it
 * into its claimed run row -> after SLICE_MS take no more and let the rest go.
 *
 * SLICE_MS + the engine's MAX_RUN_MS (120 s, delays included) stays under the Edge Runtime's
 * 150 s answer deadline: the last run begun in a slice still ends in time.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";
import { type DrainReport, drainRunQueue, type QueuedRun, type RunQueue } from "../supabase/run_queue.ts";
import type { Clock } from "./clock.ts";
import { executeFlow, FLOW_COLUMNS, type FlowRow } from "./runs.ts";

export const FLOW_RUN_QUEUE: RunQueue = {
  kind: "flow",
  workerPath: "/functions/v1/flow-scheduler-cron/worker",
};
/** Time after which a worker run takes no more flows. */
export const FLOW_SLICE_MS = 25_000;
/** How long a read leases its messages (only runs not begun come back after it). */
export const FLOW_LEASE_SECONDS = 120;
/** Flows run at once by one worker. */
export const FLOW_RUN_CONCURRENCY = 8;

export interface FlowWorkerDeps {
  service: SupabaseClient;
  clock: Clock;
  sliceMs?: number;
  leaseSeconds?: number;
  afterRead?: (batch: QueuedRun[]) => void | Promise<void>;
}

export interface FlowWorkerRun {
  run_id: string;
  flow_id: string;
  status: string;
  error_message: string | null;
}

export function runFlowWorker(deps: FlowWorkerDeps): Promise<DrainReport<FlowWorkerRun>> {
  const { service, clock } = deps;
  return drainRunQueue({
    service,
    queue: FLOW_RUN_QUEUE,
    sliceMs: deps.sliceMs ?? FLOW_SLICE_MS,
    leaseSeconds: deps.leaseSeconds ?? FLOW_LEASE_SECONDS,
    concurrency: FLOW_RUN_CONCURRENCY,
    afterRead: deps.afterRead,
    async run(runId) {
      const run = rows(
        await service.from("flow_runs").select("flow_id, scheduled_for").eq("id", runId).single(),
        "Flow run",
      ) as { flow_id: string; scheduled_for: string };
      const flow = rows(
        await service.from("flows").select(FLOW_COLUMNS).eq("id", run.flow_id).single(),
        "Flow",
      ) as FlowRow;
      const r = await executeFlow(service, {
        flow,
        triggerType: "cron",
        triggerData: { scheduled_for: new Date(run.scheduled_for).toISOString() },
        dryRun: false,
        initiatedBy: null,
        clock,
        runId,
      });
      return { run_id: r.run_id, flow_id: r.flow_id, status: r.status, error_message: r.error_message };
    },
  });
}
