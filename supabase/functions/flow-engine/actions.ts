/**
 * flow-engine's actions: who may run each (the flow's workspace, from the database, never from
 * the body alone), then the domain call. execute-flow, test-flow and trigger-event need the
 * owner, admin or member role in the workspace; save-flow owner or admin; the service role
 * passes (platform events, the scheduler).
 */
import type { Context } from "hono";
import {
  access,
  caller,
  requireWorkspaceRole,
  serviceDb,
  type WorkspaceRoleName,
  WRITER_ROLES,
} from "@shared/auth/context.ts";
import { DomainError } from "@shared/errors.ts";
import { soleWorkspace } from "@shared/auth/workspace_choice.ts";
import {
  executeFlow,
  flowClock,
  type FlowEngineRequest,
  type FlowRow,
  loadFlow,
  saveFlow,
  triggerEvent,
} from "@shared/flows/mod.ts";

const MANAGERS: WorkspaceRoleName[] = ["owner", "admin"];

function userId(c: Context): string | null {
  const who = caller(c);
  return who.kind === "user" ? who.userId ?? null : null;
}

/** The flow, if the caller may act in its workspace (an outsider gets the same 404 as nobody). */
async function flowFor(c: Context, id: string, roles: readonly WorkspaceRoleName[]): Promise<FlowRow> {
  const flow = await loadFlow(serviceDb(c), id);
  if (caller(c).kind !== "service") {
    const mine = (await access(c)).workspaces.some((w) => w.workspace_id === flow.workspace_id);
    if (!mine) throw DomainError.notFound("Flow not found", "flow_not_found");
  }
  await requireWorkspaceRole(c, flow.workspace_id, roles, "Running flows");
  return flow;
}

/**
 * The workspace named (checked) or the caller's only one (several: 400 workspace_required, the
 * personal workspace is not a default); the service role may name none.
 */
async function workspaceFor(
  c: Context,
  named: string | undefined,
  roles: readonly WorkspaceRoleName[],
  what: string,
): Promise<string | null> {
  if (named) {
    await requireWorkspaceRole(c, named, roles, what);
    return named;
  }
  if (caller(c).kind === "service") return null;
  const only = soleWorkspace((await access(c)).workspaces, "workspace_id");
  if (!only) throw DomainError.invalid("You are not in any workspace");
  await requireWorkspaceRole(c, only.workspace_id, roles, what);
  return only.workspace_id;
}

export async function runAction(c: Context, body: FlowEngineRequest): Promise<Record<string, unknown>> {
  const service = serviceDb(c);
  switch (body.action) {
    case "execute-flow":
    case "test-flow": {
      const dryRun = body.action === "test-flow";
      const flow = await flowFor(c, body.flow_id, WRITER_ROLES);
      if (!dryRun && !flow.enabled) {
        throw DomainError.conflict("The flow is disabled", undefined, "flow_disabled");
      }
      const run = await executeFlow(service, {
        flow,
        triggerType: flow.trigger_type,
        triggerData: body.trigger_data,
        dryRun,
        initiatedBy: userId(c),
        clock: flowClock(),
      });
      // One name for the per-node results in both runs: `steps`, as flow_runs stores them.
      return dryRun ? { success: true, dry_run: true, ...run } : { success: true, ...run };
    }
    case "trigger-event": {
      const ws = await workspaceFor(c, body.workspace_id, WRITER_ROLES, "Triggering flow events");
      const outcome = await triggerEvent(
        service,
        ws,
        body.event_type,
        body.event_data,
        flowClock(),
        userId(c),
      );
      return { success: true, ...outcome };
    }
    case "save-flow": {
      if (body.flow_id) {
        const flow = await flowFor(c, body.flow_id, MANAGERS);
        if (body.workspace_id && body.workspace_id !== flow.workspace_id) {
          throw DomainError.invalid("workspace_id does not match the flow's workspace");
        }
        return { success: true, flow: await saveFlow(service, flow.workspace_id, userId(c), body) };
      }
      const ws = await workspaceFor(c, body.workspace_id, MANAGERS, "Saving flows");
      if (!ws) throw DomainError.invalid("workspace_id is required for the service role");
      return { success: true, flow: await saveFlow(service, ws, userId(c), body) };
    }
  }
}
