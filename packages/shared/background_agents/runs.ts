/**
 * A run's life: open (or claim a pending one) -> dispatch (hand a delegated agent to the AI
 * backend, or execute here) -> execute (validate input, the kind's steps, each logged as it
 * happens) -> close (completed with output, or failed with the error and the step it failed in,
 * its credits refunded) -> chain (pending runs of the agents in chain_to, started at once).
 *
 * Claims are single UPDATEs from `pending` (one winner); a run is written by one worker at a
 * time. Chains are bounded (MAX_CHAIN_DEPTH) and never revisit an agent already on the chain's
 * path, whatever chain_to says (the SQL guard refuses cycles too).
 */
import type { Llm } from "../llm/mod.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";
import { DomainError } from "../errors.ts";
import type { ErrorCode } from "../error_codes.ts";
import { type Charge, debit, refund } from "../credits/ledger.ts";
import { agentKind, parseInput } from "./catalog.ts";
import { RunLogger } from "./log.ts";
import {
  AGENT_COLUMNS,
  type AgentContext,
  type AgentRow,
  RUN_COLUMNS,
  type RunRow,
  type TriggeredBy,
} from "./types.ts";

export const MAX_CHAIN_DEPTH = 5;

export interface RunDeps {
  service: SupabaseClient;
  /** Hands a delegated run (status processing) to the AI backend; null: execute it here. */
  delegate: ((runId: string) => Promise<void>) | null;
  /** Starts chained runs (their pending rows exist); must not throw. */
  startChained: (runs: { id: string; agent_id: string }[]) => void;
  /** The model layer's client for agent kinds that call a model (made on first use). */
  llm: () => Llm;
  now?: () => Date;
}

export interface RunOutcome {
  run_id: string;
  status: "completed" | "failed" | "processing";
  duration_ms: number;
  output?: Record<string, unknown>;
  error?: string;
  error_code?: string;
  failed_step?: string | null;
  delegated_to_python?: true;
  chained_run_ids: string[];
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

export async function loadAgent(client: SupabaseClient, agentId: string): Promise<AgentRow | null> {
  return rows(
    await client.from("background_agents").select(AGENT_COLUMNS).eq("id", agentId).maybeSingle(),
    "Agent",
  ) as AgentRow | null;
}

export async function loadRun(client: SupabaseClient, runId: string): Promise<RunRow | null> {
  return rows(await client.from("agent_runs").select(RUN_COLUMNS).eq("id", runId).maybeSingle(), "Run") as
    | RunRow
    | null;
}

/** A new run, already claimed (running). */
export async function openRun(
  service: SupabaseClient,
  agent: AgentRow,
  opts: { triggeredBy: TriggeredBy; userId: string | null; input: Record<string, unknown> },
): Promise<RunRow> {
  const now = new Date().toISOString();
  return rows(
    await service.from("agent_runs").insert({
      agent_id: agent.id,
      workspace_id: agent.workspace_id,
      agent_type: agent.agent_type,
      status: "running",
      triggered_by: opts.triggeredBy,
      triggered_by_user: opts.userId,
      input_data: opts.input,
      started_at: now,
      heartbeat_at: now,
    }).select(RUN_COLUMNS).single(),
    "Run",
  ) as RunRow;
}

/** Moves a pending run to running (one caller wins); null when it is not pending (any more). */
export async function claimPendingRun(service: SupabaseClient, runId: string): Promise<RunRow | null> {
  const now = new Date().toISOString();
  const claimed = rows(
    await service.from("agent_runs").update({ status: "running", started_at: now, heartbeat_at: now })
      .eq("id", runId).eq("status", "pending").select(RUN_COLUMNS),
    "Run",
  ) as RunRow[];
  return claimed[0] ?? null;
}

/** Returns a run's charge (once: refund_credits refuses a second refund) and marks it refunded. */
export async function refundRunCharge(
  service: SupabaseClient,
  run: { id: string; agent_type: string; charge_transaction_id: string; credits_charged: number | string },
  reason: string,
): Promise<boolean> {
  const charge: Charge = {
    family: "amount",
    action: `background_agent:${run.agent_type}`,
    transactionId: run.charge_transaction_id,
    usageLogId: null,
    credits: Number(run.credits_charged),
    balance: 0,
  };
  const r = await refund(service, charge, reason);
  if (r.refunded) {
    rows(await service.from("agent_runs").update({ credits_refunded: true }).eq("id", run.id), "Run");
  }
  return r.refunded;
}

/** Hands a delegated agent's run to the AI backend, or executes it here. */
export async function dispatchRun(deps: RunDeps, agent: AgentRow, run: RunRow): Promise<RunOutcome> {
  const kind = agentKind(agent.agent_type);
  if (!kind.delegated || !deps.delegate) return executeRun(deps, agent, run);
  const started = Date.now();
  const log = await RunLogger.resume(deps.service, run.id, run.workspace_id);
  rows(
    await deps.service.from("agent_runs").update({
      status: "processing",
      heartbeat_at: new Date().toISOString(),
    })
      .eq("id", run.id).in("status", ["running", "processing"]),
    "Run",
  );
  await log.info("delegate", "Handed to the AI backend");
  try {
    await deps.delegate(run.id);
  } catch (err) {
    const message = `The AI backend did not take the run: ${errorMessage(err)}`;
    await log.error("delegate", message);
    await closeFailed(deps.service, run, message, "delegate", started);
    return {
      run_id: run.id,
      status: "failed",
      duration_ms: Date.now() - started,
      error: message,
      error_code: "delegation_failed",
      failed_step: "delegate",
      chained_run_ids: [],
    };
  }
  return {
    run_id: run.id,
    status: "processing",
    delegated_to_python: true,
    duration_ms: Date.now() - started,
    chained_run_ids: [],
  };
}

async function closeFailed(
  service: SupabaseClient,
  run: RunRow,
  error: string,
  step: string | null,
  startedMs: number,
) {
  rows(
    await service.from("agent_runs").update({
      status: "failed",
      error: error.slice(0, 4000),
      failed_step: step,
      completed_at: new Date().toISOString(),
      duration_ms: Math.max(0, Date.now() - startedMs),
    }).eq("id", run.id),
    "Run",
  );
}

/** Executes a claimed run (running or processing) to its end; never throws for the agent's failures. */
export async function executeRun(deps: RunDeps, agent: AgentRow, run: RunRow): Promise<RunOutcome> {
  const service = deps.service;
  const startedMs = run.started_at ? new Date(run.started_at).getTime() : Date.now();
  const log = await RunLogger.resume(service, run.id, run.workspace_id);
  const billTo = run.triggered_by_user ?? agent.created_by;
  let current: string | null = null;
  let charge: Charge | null = null;
  const ctx: AgentContext<Record<string, unknown>> = {
    service,
    agent,
    run,
    input: {},
    log,
    now: deps.now?.() ?? new Date(),
    llm: deps.llm,
    async step(name, fn) {
      current = name;
      rows(
        await service.from("agent_runs").update({ heartbeat_at: new Date().toISOString() }).eq("id", run.id),
        "Run",
      );
      return await fn();
    },
    async charge(credits, what) {
      if (charge) throw new Error("A run is charged once");
      if (!billTo) throw DomainError.invalid("The run has no user to bill (the agent's creator is gone)");
      charge = await debit(service, {
        userId: billTo,
        action: `background_agent:${agent.agent_type}`,
        credits,
        referenceId: run.id,
        metadata: { agent_id: agent.id, run_id: run.id, what },
      });
      rows(
        await service.from("agent_runs").update({
          credits_charged: credits,
          charge_transaction_id: charge.transactionId,
        }).eq("id", run.id),
        "Run",
      );
    },
  };
  try {
    const kind = agentKind(agent.agent_type);
    await log.info(null, `Run started (${run.triggered_by})`, { agent_type: agent.agent_type });
    current = "validate_input";
    ctx.input = parseInput(kind, agent.config ?? {}, run.input_data ?? {});
    current = null;
    const output = await kind.run(ctx);
    const duration_ms = Math.max(0, Date.now() - startedMs);
    await log.info(null, "Run completed", { duration_ms });
    const closed = rows(
      await service.from("agent_runs").update({
        status: "completed",
        output,
        completed_at: new Date().toISOString(),
        duration_ms,
      }).eq("id", run.id).in("status", ["running", "processing"]).select("id"),
      "Run",
    ) as unknown[];
    if (closed.length === 0) throw new Error("The run was closed by someone else (timed out?)");
    const chained = await startChain(deps, agent, run, log);
    return { run_id: run.id, status: "completed", duration_ms, output, chained_run_ids: chained };
  } catch (err) {
    const message = errorMessage(err);
    const code: ErrorCode = err instanceof DomainError ? err.code : "agent_failed" satisfies ErrorCode;
    if (charge) {
      await refundRunCharge(
        service,
        {
          id: run.id,
          agent_type: agent.agent_type,
          charge_transaction_id: (charge as Charge).transactionId,
          credits_charged: (charge as Charge).credits,
        },
        `background agent run ${run.id} failed: ${message}`,
      );
    }
    try {
      await log.error(current, `Run failed${current ? ` at ${current}` : ""}: ${message}`, { code });
    } catch (logErr) {
      console.error(`background agent run ${run.id}: could not log its failure`, logErr);
    }
    await closeFailed(service, run, message, current, startedMs);
    return {
      run_id: run.id,
      status: "failed",
      duration_ms: Math.max(0, Date.now() - startedMs),
      error: message,
      error_code: code,
      failed_step: current,
      chained_run_ids: [],
    };
  }
}

/** Pending runs of the agents in chain_to (enabled, off the chain's path), started at once. */
async function startChain(deps: RunDeps, agent: AgentRow, run: RunRow, log: RunLogger): Promise<string[]> {
  if (!agent.chain_to?.length) return [];
  const service = deps.service;
  if (run.chain_depth >= MAX_CHAIN_DEPTH) {
    await log.warn("chain", `Chain depth ${MAX_CHAIN_DEPTH} reached: chain_to not followed`);
    return [];
  }
  const path = new Set([agent.id]);
  for (let parent = run.parent_run_id, hops = 0; parent && hops <= MAX_CHAIN_DEPTH; hops++) {
    const r = rows(
      await service.from("agent_runs").select("agent_id, parent_run_id").eq("id", parent).maybeSingle(),
      "Run",
    ) as { agent_id: string; parent_run_id: string | null } | null;
    if (!r) break;
    path.add(r.agent_id);
    parent = r.parent_run_id;
  }
  const targets = rows(
    await service.from("background_agents").select("id, agent_type, enabled").in("id", agent.chain_to)
      .eq("workspace_id", agent.workspace_id),
    "Agent",
  ) as { id: string; agent_type: string; enabled: boolean }[];
  const next = agent.chain_to.map((id) => targets.find((t) => t.id === id))
    .filter((t): t is { id: string; agent_type: string; enabled: boolean } =>
      !!t && t.enabled && !path.has(t.id)
    );
  const skipped = agent.chain_to.filter((id) => !next.some((t) => t.id === id));
  if (skipped.length) {
    await log.warn("chain", "Skipped chain_to agents (disabled, gone, or already on this chain)", {
      agent_ids: skipped,
    });
  }
  if (next.length === 0) return [];
  const created = rows(
    await service.from("agent_runs").insert(next.map((t) => ({
      agent_id: t.id,
      workspace_id: agent.workspace_id,
      agent_type: t.agent_type,
      status: "pending",
      triggered_by: "chain",
      triggered_by_user: run.triggered_by_user,
      parent_run_id: run.id,
      chain_depth: run.chain_depth + 1,
      input_data: {},
    }))).select("id, agent_id"),
    "Run",
  ) as { id: string; agent_id: string }[];
  const ids = next.map((t) => created.find((c) => c.agent_id === t.id)!.id);
  await log.info("chain", `Triggered ${ids.length} chained run(s)`, { run_ids: ids });
  deps.startChained(ids.map((id) => ({ id, agent_id: created.find((c) => c.id === id)!.agent_id })));
  return ids;
}

/**
 * Dispatches a run just claimed (running): a disabled agent's run fails at once; null when the
 * agent is gone.
 */
export async function startClaimedRun(deps: RunDeps, run: RunRow): Promise<RunOutcome | null> {
  const agent = await loadAgent(deps.service, run.agent_id);
  if (!agent) return null;
  if (!agent.enabled) {
    const message = "The agent is disabled";
    await closeFailed(deps.service, run, message, null, Date.now());
    return { run_id: run.id, status: "failed", duration_ms: 0, error: message, chained_run_ids: [] };
  }
  return await dispatchRun(deps, agent, run);
}

/** How many runs one worker (a chain) executes at the same time. */
export const RUN_CONCURRENCY = 8;

/** Claims pending runs and dispatches each (chained runs started by a user-called run). */
export async function startPendingRuns(deps: RunDeps, runIds: string[]): Promise<RunOutcome[]> {
  const outcomes: RunOutcome[] = [];
  const queue = [...runIds];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        await startOne(id);
      } catch (err) {
        // One run's infrastructure failure (database unreachable) must not stop the others; the
        // run stays pending or running and the scheduler's sweep or resume picks it up.
        console.error(`background agents: run ${id} could not be started`, err);
      }
    }
  };
  const startOne = async (id: string) => {
    const run = await claimPendingRun(deps.service, id);
    if (!run) return;
    const outcome = await startClaimedRun(deps, run);
    if (outcome) outcomes.push(outcome);
  };
  await Promise.all(Array.from({ length: Math.min(RUN_CONCURRENCY, queue.length) }, worker));
  return outcomes;
}
