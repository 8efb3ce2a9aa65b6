/**
 * The scheduler tick (background-agent-runner /cron, every minute from pg_cron):
 *   sweep    runs left running/processing without a heartbeat for STALE_AFTER_MS (a crashed
 *            worker) are failed and their credits refunded; never replayed (notifications and
 *            model calls are not idempotent);
 *   arm      enabled agents with a schedule but no next_run_at (new or changed) get their first
 *            slot; a bad cron or timezone is written to schedule_error instead;
 *   claim    agent_claim_due: one pending cron run per due slot, atomically (overlapping ticks
 *            cannot double-run a slot), each put on the `agent_runs` queue in the same
 *            statement; next_run_at advances from the slot before the run;
 *   resume   pending runs older than PENDING_GRACE_SECONDS (queued by users and never started,
 *            or chained runs whose worker died) go on the queue too (unless already on it);
 *   kick     the worker (worker.ts) is woken through pg_net; it also runs every minute.
 * Nothing runs in the tick (issue 35: 200 agents took 15-21 s of one request; a busy minute ran
 * past the Edge Runtime's limits). The sequence is the shared tick (scheduling/tick.ts); the cron
 * arithmetic is scheduling/cron.ts, as for flows.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { readInGroups, rows } from "../supabase/postgrest.ts";
import { advanceOrNull, nextSlot } from "../scheduling/cron.ts";
import { MINUTE_MS, runTick, staleBefore } from "../scheduling/tick.ts";
import { kickRunWorker } from "../supabase/run_queue.ts";
import { errorMessage, refundRunCharge } from "./runs.ts";
import { AGENT_RUN_QUEUE } from "./worker.ts";

export const STALE_AFTER_MS = 15 * MINUTE_MS;
export const PENDING_GRACE_SECONDS = 120;

export interface TickOutcome {
  swept: number;
  armed: number;
  claimed: number;
  resumed: number;
}

export async function sweepStaleRuns(service: SupabaseClient, now: Date): Promise<number> {
  const cutoff = staleBefore(now, STALE_AFTER_MS);
  const closed = rows(
    await service.from("agent_runs").update({
      status: "failed",
      error: `The run did not finish: no heartbeat for ${
        STALE_AFTER_MS / MINUTE_MS
      } minutes (crashed or timed out)`,
      completed_at: now.toISOString(),
    }).in("status", ["running", "processing"]).lt("heartbeat_at", cutoff)
      .select("id, agent_type, charge_transaction_id, credits_charged, credits_refunded"),
    "Run",
  ) as {
    id: string;
    agent_type: string;
    charge_transaction_id: string | null;
    credits_charged: string;
    credits_refunded: boolean;
  }[];
  for (const r of closed) {
    if (r.charge_transaction_id && !r.credits_refunded) {
      await refundRunCharge(
        service,
        { ...r, charge_transaction_id: r.charge_transaction_id },
        "run abandoned",
      );
    }
  }
  return closed.length;
}

export async function armSchedules(service: SupabaseClient, now: Date): Promise<number> {
  const unarmed = rows(
    await service.from("background_agents").select("id, schedule, timezone").eq("enabled", true)
      .not("schedule", "is", null).is("next_run_at", null).is("schedule_error", null).limit(500),
    "Agent",
  ) as { id: string; schedule: string; timezone: string }[];
  let armed = 0;
  for (const a of unarmed) {
    let patch: Record<string, unknown>;
    try {
      patch = { next_run_at: nextSlot(a.schedule, a.timezone, now).toISOString() };
      armed++;
    } catch (err) {
      patch = { schedule_error: errorMessage(err) };
    }
    // Only while still unarmed and unchanged: a concurrent edit wins.
    rows(
      await service.from("background_agents").update(patch).eq("id", a.id).is("next_run_at", null)
        .eq("schedule", a.schedule).eq("timezone", a.timezone),
      "Agent",
    );
  }
  return armed;
}

type Claim = { run_id: string; agent_id: string; scheduled_for: string };
type Schedule = { id: string; schedule: string; timezone: string };

export async function tick(service: SupabaseClient, now: Date): Promise<TickOutcome> {
  const t = await runTick({
    name: "agent-scheduler",
    now,
    sweep: async (at) => ({
      swept: await sweepStaleRuns(service, at),
      armed: await armSchedules(service, at),
    }),
    claim: (at) => claimDue(service, at),
    concurrency: 8,
    run: (claim) => advanceAgent(service, claim, now),
  });
  const claimedIds = new Set(t.claimed.map((c) => c.run_id));
  const waiting = rows(
    await service.from("agent_runs").select("id").eq("status", "pending")
      .lt("created_at", staleBefore(now, PENDING_GRACE_SECONDS * 1000))
      .order("created_at").limit(200),
    "Run",
  ) as { id: string }[];
  const stale = waiting.map((r) => r.id).filter((id) => !claimedIds.has(id));
  const resumed = stale.length
    ? rows(await service.rpc("agent_runs_enqueue", { p_run_ids: stale }), "Run") as number
    : 0;
  if (t.claimed.length || resumed) await kickRunWorker(service, AGENT_RUN_QUEUE);
  return { swept: t.swept!.swept, armed: t.swept!.armed, claimed: t.claimed.length, resumed };
}

/** agent_claim_due, with each claimed agent's schedule for the advance. */
async function claimDue(service: SupabaseClient, now: Date): Promise<(Claim & { agent?: Schedule })[]> {
  const claims = rows(
    await service.rpc("agent_claim_due", { p_now: now.toISOString(), p_limit: 200 }),
    "Agent schedule",
  ) as Claim[];
  if (!claims.length) return [];
  // Up to 200 agent ids (~8 kB as one `in` list, past a hosted gateway's URL limit): in groups.
  const agents = rows(
    await readInGroups(
      claims.map((c) => c.agent_id),
      (list) => service.from("background_agents").select("id, schedule, timezone").filter("id", "in", list),
    ),
    "Agent",
  ) as Schedule[];
  return claims.map((c) => ({ ...c, agent: agents.find((x) => x.id === c.agent_id) }));
}

async function advanceAgent(service: SupabaseClient, claim: Claim & { agent?: Schedule }, now: Date) {
  const a = claim.agent;
  const next = a
    ? advanceOrNull(
      a.schedule,
      a.timezone,
      new Date(claim.scheduled_for),
      now,
      `[agent-scheduler] agent ${claim.agent_id}`,
    )
    : null;
  rows(
    await service.rpc("agent_advance_schedule", {
      p_agent_id: claim.agent_id,
      p_slot: claim.scheduled_for,
      p_next: next,
    }),
    "Agent schedule",
  );
}
