/**
 * Flow events (spec "Flow events"): `trigger-event` runs every enabled flow whose event trigger
 * names the event type, in the workspace the event belongs to. The platform emits these itself
 * (database triggers, migration 20260205000110_flow_events.sql, through pg_net to flow-engine),
 * for the event types in PLATFORM_EVENTS; trigger.data is the event's data.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";
import type { Clock } from "./clock.ts";
import { executeFlow, FLOW_COLUMNS, type FlowRow, type FlowRunRecord } from "./runs.ts";

/** The events the platform emits; any other lowercase name may be sent with trigger-event. */
export const PLATFORM_EVENTS = {
  "product.created": "a product was inserted; data: {product: {id, name, sku, category, ...}}",
  "quote.submitted": "a quote request was submitted; data: {quote_request: {id, quote_id, user_id, status}}",
  "quote.status_changed":
    "a quote's status changed; data: {quote: {id, quote_number, status}, previous_status}",
} as const;

/** Flows run per event call at most (the rest are reported as skipped). */
export const MAX_FLOWS_PER_EVENT = 50;

export interface EventOutcome {
  event_type: string;
  flows_matched: number;
  runs: Pick<FlowRunRecord, "run_id" | "flow_id" | "status" | "error_message">[];
}

export async function triggerEvent(
  service: SupabaseClient,
  workspaceId: string | null,
  eventType: string,
  eventData: unknown,
  clock: Clock,
  initiatedBy: string | null,
): Promise<EventOutcome> {
  let q = service.from("flows").select(FLOW_COLUMNS).eq("enabled", true).eq("trigger_type", "event")
    .eq("event_type", eventType);
  if (workspaceId) q = q.eq("workspace_id", workspaceId);
  const flows = rows(await q.order("created_at").order("id").limit(MAX_FLOWS_PER_EVENT)) as FlowRow[];
  const runs: EventOutcome["runs"] = [];
  for (const flow of flows) {
    const r = await executeFlow(service, {
      flow,
      triggerType: "event",
      triggerData: eventData ?? {},
      dryRun: false,
      initiatedBy,
      clock,
    });
    runs.push({ run_id: r.run_id, flow_id: r.flow_id, status: r.status, error_message: r.error_message });
  }
  return { event_type: eventType, flows_matched: flows.length, runs };
}
