/**
 * agent-chat's charge per request, over the service-role SQL functions bill_agent_chat (debit +
 * ledger + usage log, atomic; the price table agent_chat_costs: main and interior-designer 1
 * credit, demo 0.5) and settle_agent_chat (token usage, and the full refund of a failed turn).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { HttpError } from "../http/errors.ts";

export interface AgentCharge {
  transactionId: string;
  usageLogId: string;
  credits: number;
  balance: number;
}

export async function billAgentChat(
  service: SupabaseClient,
  p: { userId: string; agentId: string; model: string; workspaceId: string | null; referenceId: string },
): Promise<AgentCharge> {
  const { data, error, status } = await service.rpc("bill_agent_chat", {
    p_user_id: p.userId,
    p_agent_id: p.agentId,
    p_model: p.model,
    p_workspace_id: p.workspaceId,
    p_reference_id: p.referenceId,
  });
  if (error) {
    if (error.code === "PT402" || status === 402) {
      throw HttpError.paymentRequired(
        `Insufficient credits: the ${p.agentId} agent costs credits per request`,
        {
          agent_id: p.agentId,
        },
      );
    }
    throw new HttpError(500, "billing_failed", `Could not bill the request: ${error.message}`);
  }
  const r = data as {
    transaction_id: string;
    usage_log_id: string;
    credits: number | string;
    balance: number | string;
  };
  return {
    transactionId: r.transaction_id,
    usageLogId: r.usage_log_id,
    credits: Number(r.credits),
    balance: Number(r.balance),
  };
}

/** Records the turn's token usage; with a reason, refunds the charge in full. */
export async function settleAgentChat(
  service: SupabaseClient,
  charge: AgentCharge,
  usage: { input_tokens: number; output_tokens: number },
  refundReason: string | null,
): Promise<void> {
  const { error } = await service.rpc("settle_agent_chat", {
    p_usage_log_id: charge.usageLogId,
    p_input_tokens: usage.input_tokens,
    p_output_tokens: usage.output_tokens,
    p_refund_reason: refundReason?.slice(0, 500) ?? null,
  });
  if (error) throw new Error(`Settling agent-chat charge ${charge.transactionId}: ${error.message}`);
}
