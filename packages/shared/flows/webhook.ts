/**
 * flow-webhook's checks, in order: the flow exists, is enabled and has a webhook trigger (else
 * 404, the same answer for all three) -> the signature, when the flow requires one (401 when
 * missing, not the timestamped form, outside TOLERANCE_SECONDS or wrong; the secret is never
 * optional for such a flow) -> the body is a JSON object (400) -> the delivery is claimed once
 * (a signed delivery already accepted inside the window is a `duplicate`: the caller runs
 * nothing) -> trigger.data (the {event_type, data} short form unwrapped).
 *
 * X-Webhook-Signature is the project's timestamped scheme (../webhook_signature.ts):
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under the flow's webhook secret.
 * A flow that does not require a signature takes any delivery, as before: anyone who knows its
 * id can start it, so a copy of one of its deliveries gives nothing new and none is recorded.
 */
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { TOLERANCE_SECONDS, type VerifiedDelivery, verifySignatureHeader } from "../webhook_signature.ts";
import type { Clock } from "./clock.ts";
import { executeFlow, type FlowRow, loadFlow } from "./runs.ts";

/** Recorded deliveries are kept for twice the tolerance (see the migration's header). */
const KEEP_DELIVERY_SECONDS = 2 * TOLERANCE_SECONDS;

export interface WebhookDelivery {
  flow: FlowRow;
  triggerData: Record<string, unknown>;
  /** A signed delivery already accepted inside the window: run nothing. */
  duplicate: boolean;
}

export async function webhookRequest(
  service: SupabaseClient,
  flowId: string,
  raw: Uint8Array<ArrayBuffer>,
  signature: string | null,
): Promise<WebhookDelivery> {
  const flow = await loadFlow(service, flowId).catch(() => null);
  if (!flow || !flow.enabled || flow.trigger_type !== "webhook") {
    throw DomainError.notFound("Flow not found", "flow_not_found");
  }
  let signed: VerifiedDelivery | null = null;
  if ((flow.trigger_config as { require_signature?: boolean }).require_signature === true) {
    if (!flow.webhook_secret) {
      throw new DomainError("unauthenticated", "invalid_signature", "Invalid X-Webhook-Signature");
    }
    signed = await verifySignatureHeader(flow.webhook_secret, signature, raw, {
      headerName: "X-Webhook-Signature",
    });
  }
  let body: unknown = {};
  const text = new TextDecoder().decode(raw).trim();
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      throw DomainError.invalid("The body must be JSON", undefined, "invalid_json");
    }
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw DomainError.invalid("The body must be a JSON object", undefined, "invalid_json");
  }
  const duplicate = signed !== null && !await claimDelivery(service, flow.id, signed);
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b);
  const short = typeof b.event_type === "string" && b.data && typeof b.data === "object" &&
    !Array.isArray(b.data) &&
    keys.every((k) => k === "event_type" || k === "data");
  const triggerData = short ? { event_type: b.event_type, ...(b.data as object) } : b;
  return { flow, triggerData, duplicate };
}

/** Records a signed delivery; false when it was already recorded (a replay). */
async function claimDelivery(
  service: SupabaseClient,
  flowId: string,
  signed: VerifiedDelivery,
): Promise<boolean> {
  const { data, error } = await service.rpc("flow_webhook_claim_delivery", {
    p_flow_id: flowId,
    p_delivery_id: signed.deliveryId,
    p_signed_at: new Date(signed.timestamp * 1000).toISOString(),
    p_keep_seconds: KEEP_DELIVERY_SECONDS,
  });
  if (error) throw DomainError.internal(`Could not record the webhook delivery: ${error.message}`);
  return data === true;
}

/**
 * flow-webhook's delivery: verified and deduplicated (webhookRequest), then run now as a webhook
 * trigger. Answers {success, duplicate: true} for a replayed delivery, else the run's outcome.
 */
export async function runWebhookFlow(
  service: SupabaseClient,
  clock: Clock,
  flowId: string,
  raw: Uint8Array<ArrayBuffer>,
  signature: string | null,
) {
  const { flow, triggerData, duplicate } = await webhookRequest(service, flowId, raw, signature);
  if (duplicate) return { success: true, duplicate: true };
  const run = await executeFlow(service, {
    flow,
    triggerType: "webhook",
    triggerData,
    dryRun: false,
    initiatedBy: null,
    clock,
  });
  return { success: true, run_id: run.run_id, status: run.status, error_message: run.error_message };
}
