/**
 * A flow_run's life: load the flow (scoped to a workspace when the caller is a user) -> open
 * the run row (status running) before the first node -> walk the graph -> close the row with
 * the steps, the status, the failed node and the duration, whatever happened in between.
 */
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";
import { type ActionDeps, dryRunExecutor, liveExecutor } from "./actions.ts";
import type { Clock } from "./clock.ts";
import { errorMessage, type FlowStep, runFlow, type RunResult } from "./engine.ts";
import { type TriggerType, validateGraph } from "./graph.ts";

export interface FlowRow {
  id: string;
  workspace_id: string;
  name: string;
  graph: unknown;
  trigger_type: TriggerType;
  trigger_config: Record<string, unknown>;
  event_type: string | null;
  enabled: boolean;
  webhook_secret: string | null;
  next_run_at: string | null;
}

export const FLOW_COLUMNS =
  "id, workspace_id, name, graph, trigger_type, trigger_config, event_type, enabled, webhook_secret, next_run_at";

/** The flow (read with the service client: callers authorise against its workspace_id), or a 404. */
export async function loadFlow(service: SupabaseClient, id: string): Promise<FlowRow> {
  const found = rows(await service.from("flows").select(FLOW_COLUMNS).eq("id", id).limit(1)) as FlowRow[];
  if (found.length === 0) throw DomainError.notFound("Flow not found", "flow_not_found");
  return found[0];
}

export interface RunRequest {
  flow: FlowRow;
  triggerType: TriggerType;
  triggerData: unknown;
  dryRun: boolean;
  initiatedBy: string | null;
  clock: Clock;
  /** An existing run row (the scheduler's claim) instead of a new one. */
  runId?: string;
  fetchOptions?: ActionDeps["fetchOptions"];
}

export interface FlowRunRecord extends RunResult {
  run_id: string;
  flow_id: string;
  is_test_run: boolean;
}

export async function executeFlow(service: SupabaseClient, req: RunRequest): Promise<FlowRunRecord> {
  const { flow } = req;
  let runId = req.runId;
  if (!runId) {
    const opened = rows(
      await service.from("flow_runs").insert({
        flow_id: flow.id,
        workspace_id: flow.workspace_id,
        trigger_type: req.triggerType,
        trigger_data: req.triggerData ?? {},
        is_test_run: req.dryRun,
        initiated_by: req.initiatedBy,
      }).select("id").single(),
      "Flow run",
    ) as { id: string };
    runId = opened.id;
  }
  let result: RunResult;
  try {
    const valid = validateGraph(flow.graph);
    result = await runFlow(valid, {
      triggerData: req.triggerData ?? {},
      clock: req.clock,
      dryRun: req.dryRun,
      execute: req.dryRun ? dryRunExecutor : liveExecutor({
        service,
        workspaceId: flow.workspace_id,
        userId: req.initiatedBy,
        fetchOptions: req.fetchOptions,
      }),
    });
  } catch (err) {
    result = {
      status: "failed",
      steps: [] as FlowStep[],
      error_message: errorMessage(err),
      error_node_id: (err instanceof DomainError && (err.details as { node_id?: string })?.node_id) || null,
      duration_ms: 0,
    };
  }
  rows(
    await service.from("flow_runs").update({
      status: result.status,
      steps: result.steps,
      error_message: result.error_message,
      error_node_id: result.error_node_id,
      completed_at: new Date().toISOString(),
      duration_ms: Math.round(result.duration_ms),
    }).eq("id", runId),
    "Flow run",
  );
  return { run_id: runId, flow_id: flow.id, is_test_run: req.dryRun, ...result };
}
