/**
 * flow-webhook's checks, in order: the flow exists, is enabled and has a webhook trigger (else
 * 404, the same answer for all three) -> the signature, when the flow requires one (401 when
 * missing or wrong; the secret is never optional for such a flow) -> the body is a JSON object
 * (400) -> trigger.data (the {event_type, data} short form unwrapped).
 */
import { DomainError } from "../errors.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { type FlowRow, loadFlow } from "./runs.ts";
import { verifySignature } from "./signature.ts";

export async function webhookRequest(
  service: SupabaseClient,
  flowId: string,
  raw: Uint8Array<ArrayBuffer>,
  signature: string | null,
): Promise<{ flow: FlowRow; triggerData: Record<string, unknown> }> {
  const flow = await loadFlow(service, flowId).catch(() => null);
  if (!flow || !flow.enabled || flow.trigger_type !== "webhook") {
    throw DomainError.notFound("Flow not found", "flow_not_found");
  }
  if ((flow.trigger_config as { require_signature?: boolean }).require_signature === true) {
    if (!signature) {
      throw new DomainError("unauthenticated", "signature_required", "X-Webhook-Signature is required");
    }
    if (!flow.webhook_secret || !await verifySignature(flow.webhook_secret, raw, signature)) {
      throw new DomainError("unauthenticated", "invalid_signature", "Invalid X-Webhook-Signature");
    }
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
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b);
  const short = typeof b.event_type === "string" && b.data && typeof b.data === "object" &&
    !Array.isArray(b.data) &&
    keys.every((k) => k === "event_type" || k === "data");
  return { flow, triggerData: short ? { event_type: b.event_type, ...(b.data as object) } : b };
}
