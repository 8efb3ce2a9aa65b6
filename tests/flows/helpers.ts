/**
 * The flow tests' cast: a team whose workspace has a default SMS channel (Twilio stand-in) and
 * a verified sending domain (Resend stand-in), calls to the flow functions, and graph builders.
 */
import assert from "node:assert/strict";
import type { Platform } from "../../stack/platform.ts";
import { createTeam, type Team } from "../helpers/team.ts";
import { type Call, call } from "../quotes/helpers.ts";
import { uniqueDomain } from "../email/helpers.ts";
import { phone } from "../messaging/helpers.ts";

export interface FlowTeam extends Team {
  smsSender: string;
  from: string;
}

export async function flowTeam(p: Platform, prefix: string): Promise<FlowTeam> {
  const team = await createTeam(p, { prefix });
  const smsSender = phone();
  await p.db.query(
    `insert into public.messaging_channels (workspace_id, channel_type, sender_id, display_name, is_default)
     values ($1, 'sms', $2, 'Main SMS', true)`,
    [team.ws, smsSender],
  );
  const domain = uniqueDomain("flows");
  for (const action of ["add-domain", "mark-domain-verified"]) {
    const r = await call(p, "email-api", "", {
      method: "POST",
      token: team.owner.accessToken,
      body: { action, domain, workspaceId: team.ws },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  return { ...team, smsSender, from: `flows@${domain}` };
}

export function engine(p: Platform, token: string | null, body: unknown): Promise<Call> {
  return call(p, "flow-engine", "", { method: "POST", token, body });
}

export async function saveFlow(p: Platform, token: string, body: Record<string, unknown>) {
  const r = await engine(p, token, { action: "save-flow", name: "A flow", ...body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { flow: { id: string; webhook_secret?: string; next_run_at: string | null } }).flow;
}

export function graph(
  trigger: Record<string, unknown>,
  nodes: Record<string, unknown>[],
  edges: [string, string, string?][],
) {
  return {
    nodes: [{ id: "start", ...trigger }, ...nodes],
    edges: edges.map(([source, target, sourceHandle]) => ({
      source,
      target,
      ...(sourceHandle ? { sourceHandle } : {}),
    })),
  };
}

export async function runRow(p: Platform, id: string) {
  const r = await p.db.query<Record<string, unknown>>(`select * from public.flow_runs where id = $1`, [id]);
  return r.rows[0] as {
    status: string;
    steps: { node_id: string; status: string; error?: string; output?: unknown; resolved_config?: unknown }[];
    error_node_id: string | null;
    error_message: string | null;
    is_test_run: boolean;
    trigger_type: string;
    trigger_data: Record<string, unknown>;
  };
}

export { phone };

/** The emails accepted after `before` of them (the stand-in's inbox lists newest first). */
export function newest<T>(inbox: T[], before: number): T[] {
  return inbox.slice(0, inbox.length - before).reverse();
}
