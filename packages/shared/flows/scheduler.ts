/**
 * flow-scheduler-cron's work: claim -> advance -> run.
 * - claim: flow_claim_due inserts one run row per due slot in one statement (unique
 *   (flow_id, scheduled_for)), so overlapping scheduler calls cannot both run a slot;
 * - advance: next_run_at moves from the claimed slot to the next future slot in the flow's
 *   timezone (flow_advance_schedule only moves it from that slot), before anything runs, so a
 *   failing flow does not stall its schedule;
 * - run: each claimed run is executed; a node failure ends that run failed and nothing else.
 * Each call also closes runs left `running` for STALE_RUN_MINUTES (a crashed or killed worker)
 * as failed; they are never replayed, since their actions (SMS, email) are not idempotent.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { readInGroups, rows } from "../supabase/postgrest.ts";
import type { Clock } from "./clock.ts";
import { errorMessage } from "./engine.ts";
import { executeFlow, FLOW_COLUMNS, type FlowRow } from "./runs.ts";
import { advance } from "./schedule.ts";

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
export const STALE_RUN_MINUTES = 15;

/** Marks runs abandoned mid-way as failed; returns how many. */
export async function sweepStaleRuns(service: SupabaseClient, now: Date): Promise<number> {
  const closed = rows(
    await service.from("flow_runs").update({
      status: "failed",
      error_message: `The run did not finish within ${STALE_RUN_MINUTES} minutes (crashed or timed out)`,
      completed_at: now.toISOString(),
    }).eq("status", "running").lt(
      "started_at",
      new Date(now.getTime() - STALE_RUN_MINUTES * 60_000).toISOString(),
    )
      .select("id"),
  ) as unknown[];
  return closed.length;
}

export interface SchedulerOutcome {
  claimed: number;
  swept: number;
  runs: { run_id: string; flow_id: string; status: string; error_message: string | null }[];
}

export async function runScheduler(
  service: SupabaseClient,
  clock: Clock,
  limit = 500,
): Promise<SchedulerOutcome> {
  const now = new Date(clock.now());
  const swept = await sweepStaleRuns(service, now);
  const claims = await claimDue(service, now, limit);
  if (claims.length === 0) return { claimed: 0, swept, runs: [] };
  // Up to `limit` (500) flow ids: one `in` list would be a ~20 kB URL, refused (414) by a hosted
  // gateway after the runs were claimed, leaving those flows stuck on their slot; read in groups.
  const flows = new Map(
    (rows(
      await readInGroups(
        claims.map((c) => c.flow_id),
        (list) => service.from("flows").select(FLOW_COLUMNS).filter("id", "in", list),
      ),
    ) as FlowRow[]).map((f) => [f.id, f]),
  );
  const runs: SchedulerOutcome["runs"] = [];
  for (const claim of claims) {
    const flow = flows.get(claim.flow_id)!;
    const slot = new Date(claim.scheduled_for);
    let next: string | null = null;
    try {
      const cfg = flow.trigger_config as { cron: string; timezone?: string };
      next = advance(cfg.cron, cfg.timezone ?? "UTC", slot, now).toISOString();
    } catch (err) {
      console.error(`[flow-scheduler] flow ${flow.id}: cannot compute the next slot`, errorMessage(err));
    }
    rows(
      await service.rpc("flow_advance_schedule", {
        p_flow_id: flow.id,
        p_slot: slot.toISOString(),
        p_next: next,
      }),
    );
    const r = await executeFlow(service, {
      flow,
      triggerType: "cron",
      triggerData: { scheduled_for: slot.toISOString() },
      dryRun: false,
      initiatedBy: null,
      clock,
      runId: claim.run_id,
    });
    runs.push({ run_id: r.run_id, flow_id: r.flow_id, status: r.status, error_message: r.error_message });
  }
  return { claimed: claims.length, swept, runs };
}
