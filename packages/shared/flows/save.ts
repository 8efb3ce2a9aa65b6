/**
 * flow-engine `save-flow`: the only way a graph is stored. The graph is validated first; the
 * trigger columns (trigger_type, event_type, trigger_config) are derived from its trigger node,
 * next_run_at from a cron trigger, and a webhook flow gets a secret (returned once, at creation
 * or rotation).
 */
import { z } from "zod";
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { one } from "../supabase/postgrest.ts";
import { validateGraph } from "./graph.ts";
import { flowGraphSchema } from "./graph_doc.ts";
import { nextSlot } from "../scheduling/cron.ts";
import { newWebhookSecret } from "./signature.ts";

export const SaveFlowBody = z.strictObject({
  action: z.literal("save-flow"),
  flow_id: z.uuid().optional(),
  workspace_id: z.uuid().optional(),
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).optional(),
  // Validated by validateGraph (errors name the node); the metadata shows it in the API docs.
  graph: z.unknown().meta(flowGraphSchema()),
  enabled: z.boolean().default(true),
  rotate_webhook_secret: z.boolean().default(false),
});
export type SaveFlowBody = z.infer<typeof SaveFlowBody>;

export interface SavedFlow {
  id: string;
  workspace_id: string;
  name: string;
  trigger_type: string;
  event_type: string | null;
  enabled: boolean;
  next_run_at: string | null;
  webhook_secret?: string;
}

const RETURNED = "id, workspace_id, name, trigger_type, event_type, enabled, next_run_at";

export async function saveFlow(
  service: SupabaseClient,
  workspaceId: string,
  userId: string | null,
  body: SaveFlowBody,
  now = new Date(),
): Promise<SavedFlow> {
  const { graph, trigger, configs } = validateGraph(body.graph);
  const cfg = configs.get(trigger.id)!;
  const row: Record<string, unknown> = {
    name: body.name,
    description: body.description ?? null,
    graph,
    trigger_type: trigger.type,
    trigger_config: cfg,
    event_type: trigger.type === "event" ? cfg.event_type : null,
    enabled: body.enabled,
    next_run_at: null,
    updated_at: now.toISOString(),
  };
  if (trigger.type === "cron") {
    try {
      row.next_run_at = nextSlot(cfg.cron as string, cfg.timezone as string, now).toISOString();
    } catch (err) {
      throw DomainError.invalid(
        `Node "${trigger.id}": ${(err as Error).message}`,
        { node_id: trigger.id },
        "invalid_flow",
      );
    }
  }
  let secret: string | undefined;
  if (body.flow_id) {
    const existing = one(
      await service.from("flows").select("id, webhook_secret").eq("id", body.flow_id)
        .eq("workspace_id", workspaceId).maybeSingle(),
      "Flow",
    ) as { webhook_secret: string | null } | null;
    if (!existing) throw DomainError.notFound("Flow not found", "flow_not_found");
    if (trigger.type === "webhook" && (!existing.webhook_secret || body.rotate_webhook_secret)) {
      secret = row.webhook_secret = newWebhookSecret();
    }
    const saved = one(
      await service.from("flows").update(row).eq("id", body.flow_id).select(RETURNED).single(),
      "Flow",
    ) as SavedFlow;
    return secret ? { ...saved, webhook_secret: secret } : saved;
  }
  if (trigger.type === "webhook") secret = row.webhook_secret = newWebhookSecret();
  const saved = one(
    await service.from("flows").insert({ ...row, workspace_id: workspaceId, created_by: userId })
      .select(RETURNED).single(),
    "Flow",
  ) as SavedFlow;
  return secret ? { ...saved, webhook_secret: secret } : saved;
}
