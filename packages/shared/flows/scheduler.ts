/**
 * flow-scheduler-cron's tick: sweep -> claim and enqueue -> kick -> advance. Nothing runs here
 * (issue 35: a busy minute ran past the Edge Runtime's limits); the worker does (worker.ts).
 * - claim: flow_claim_due inserts one run row per due slot in one statement (unique
 *   (flow_id, scheduled_for)), so overlapping scheduler calls cannot both claim a slot, and puts
 *   one message per run on the `flow_runs` queue in the same statement;
 * - kick: the worker is woken through pg_net (it also runs every minute from pg_cron);
 * - advance: next_run_at moves from the claimed slot to the next future slot in the flow's
 *   timezone (flow_advance_schedule only moves it from that slot), before the run, so a failing
 *   flow does not stall its schedule.
 * Each call also closes runs left `running` for STALE_AFTER_MS (a crashed or killed worker,
 * or a run no worker took for that long) as failed; they are never replayed, since their
 * actions (SMS, email) are not idempotent. The sequence is the shared tick (scheduling/tick.ts).
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { readInGroups, rows } from "../supabase/postgrest.ts";
import { kickRunWorker } from "../supabase/run_queue.ts";
import type { Clock } from "./clock.ts";
import type { FlowRow } from "./runs.ts";
import { advanceOrNull } from "../scheduling/cron.ts";
import { MINUTE_MS, runTick, staleBefore } from "../scheduling/tick.ts";
import { FLOW_RUN_QUEUE } from "./worker.ts";

export interface Claim {
  run_id: string;
  flow_id: string;
  workspace_id: string;
  scheduled_for: string;
}

export async function claimDue(service: SupabaseClient, now: Date, limit = 500): Promise<Claim[]> {
  return rows(await service.rpc("flow_claim_due", { p_now: now.toISOString(), p_limit: limit })) as Claim[];
}

/** A run still `running` after this long is taken for crashed (edge functions stop far sooner). */
export const STALE_AFTER_MS = 15 * MINUTE_MS;

/** Marks runs abandoned mid-way as failed; returns how many. */
export async function sweepStaleRuns(service: SupabaseClient, now: Date): Promise<number> {
  const closed = rows(
    await service.from("flow_runs").update({
      status: "failed",
      error_message: `The run did not finish within ${
        STALE_AFTER_MS / MINUTE_MS
      } minutes (crashed or timed out)`,
      completed_at: now.toISOString(),
    }).eq("status", "running").lt("started_at", staleBefore(now, STALE_AFTER_MS))
      .select("id"),
  ) as unknown[];
  return closed.length;
}

export interface SchedulerOutcome {
  swept: number;
  /** Runs claimed and put on the flow_runs queue by this tick. */
  claimed: number;
}

/** How many advances are in flight at once (one RPC each). */
const ADVANCE_CONCURRENCY = 8;

export async function runScheduler(
  service: SupabaseClient,
  clock: Clock,
  limit = 500,
): Promise<SchedulerOutcome> {
  const now = new Date(clock.now());
  const tick = await runTick({
    name: "flow-scheduler",
    now,
    sweep: (at) => sweepStaleRuns(service, at),
    claim: async (at) => {
      const claims = await claimDue(service, at, limit);
      if (claims.length === 0) return [];
      // The runs are queued (flow_claim_due): wake the worker now; the advances follow.
      await kickRunWorker(service, FLOW_RUN_QUEUE);
      return withTriggers(service, claims);
    },
    concurrency: ADVANCE_CONCURRENCY,
    run: (claim) => advanceFlow(service, claim, now),
  });
  return { swept: tick.swept ?? 0, claimed: tick.claimed.length };
}

type ClaimedFlow = Claim & { trigger_config: FlowRow["trigger_config"] | undefined };

/**
 * The claimed flows' trigger configs. Up to `limit` (500) flow ids: one `in` list would be a
 * ~20 kB URL, refused (414) by a hosted gateway after the runs were claimed, leaving those flows
 * stuck on their slot; read in groups.
 */
async function withTriggers(service: SupabaseClient, claims: Claim[]): Promise<ClaimedFlow[]> {
  const flows = new Map(
    (rows(
      await readInGroups(
        claims.map((c) => c.flow_id),
        (list) => service.from("flows").select("id, trigger_config").filter("id", "in", list),
      ),
    ) as Pick<FlowRow, "id" | "trigger_config">[]).map((f) => [f.id, f.trigger_config]),
  );
  return claims.map((c) => ({ ...c, trigger_config: flows.get(c.flow_id) }));
}

/** Moves a claimed flow's next_run_at from its slot to the next future slot. */
async function advanceFlow(service: SupabaseClient, claim: ClaimedFlow, now: Date): Promise<void> {
  const slot = new Date(claim.scheduled_for);
  const cfg = claim.trigger_config as unknown as { cron: string; timezone?: string };
  const next = advanceOrNull(
    cfg.cron,
    cfg.timezone ?? "UTC",
    slot,
    now,
    `[flow-scheduler] flow ${claim.flow_id}`,
  );
  rows(
    await service.rpc("flow_advance_schedule", {
      p_flow_id: claim.flow_id,
      p_slot: slot.toISOString(),
      p_next: next,
    }),
  );
}
