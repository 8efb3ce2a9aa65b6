/**
 * Debit-before, refund-on-failure billing of gateway actions, over the service-role SQL
 * functions bill_gateway_action and refund_gateway_action (each one atomic transaction:
 * balance, ledger row, usage log).
 *
 * Refund rule: any answer that is not 2xx, and any failure to get an answer (network error,
 * timeout), refunds the debit in full. A 4xx means the caller got nothing for the credits
 * (bad payload, not found, not allowed), so it is refunded like a 5xx.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { HttpError } from "../http/errors.ts";
import type { CostKey } from "./actions.ts";

export interface BillParams {
  userId: string;
  action: string;
  costKey: CostKey;
  quantity?: number;
  /** From the request body: recorded on the usage log only when the user belongs to it. */
  workspaceId?: string | null;
  referenceId?: string | null;
  metadata?: Record<string, unknown>;
}

export interface Charge {
  transactionId: string;
  credits: number;
  balance: number;
  usageLogId: string;
}

export type RefundOutcome = { refunded: true; balance: number } | { refunded: false; error: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function billAction(db: SupabaseClient, p: BillParams): Promise<Charge> {
  const { data, error, status } = await db.rpc("bill_gateway_action", {
    p_user_id: p.userId,
    p_action: p.action,
    p_cost_key: p.costKey,
    p_quantity: p.quantity ?? 1,
    p_workspace_id: typeof p.workspaceId === "string" && UUID.test(p.workspaceId) ? p.workspaceId : null,
    p_reference_id: p.referenceId ?? null,
    p_metadata: p.metadata ?? {},
  });
  if (error) {
    if (error.code === "PT402" || status === 402) {
      throw HttpError.paymentRequired(`Insufficient credits for ${p.action}`, {
        action: p.action,
        cost_key: p.costKey,
      });
    }
    throw new HttpError(500, "billing_failed", `Could not bill ${p.action}: ${error.message}`);
  }
  const r = data as {
    transaction_id: string;
    credits: number | string;
    balance: number | string;
    usage_log_id: string;
  };
  return {
    transactionId: r.transaction_id,
    credits: Number(r.credits),
    balance: Number(r.balance),
    usageLogId: r.usage_log_id,
  };
}

export async function refundCharge(
  db: SupabaseClient,
  charge: Charge,
  reason: string,
): Promise<RefundOutcome> {
  const { data, error } = await db.rpc("refund_gateway_action", {
    p_transaction_id: charge.transactionId,
    p_reason: reason.slice(0, 500),
  });
  if (error) {
    // Never swallowed: logged for operators and reported in the response to the caller.
    console.error(`ai-gateway: refund of ${charge.transactionId} failed: ${error.message}`);
    return { refunded: false, error: error.message };
  }
  return { refunded: true, balance: Number((data as { balance: number | string }).balance) };
}

/**
 * Bills (when `bill` is given), runs `call`, and refunds when it fails or answers non-2xx.
 * Insufficient credits throw a 402 HttpError before `call` runs.
 */
export async function runBilled<T extends { status: number }>(
  db: () => SupabaseClient,
  bill: BillParams | null,
  call: () => Promise<T>,
): Promise<{ result: T; charge: Charge | null; refund: RefundOutcome | null }> {
  const charge = bill ? await billAction(db(), bill) : null;
  let result: T;
  try {
    result = await call();
  } catch (err) {
    if (charge) await refundCharge(db(), charge, `backend call failed: ${(err as Error).message}`);
    throw err;
  }
  if (charge && (result.status < 200 || result.status > 299)) {
    return { result, charge, refund: await refundCharge(db(), charge, `backend answered ${result.status}`) };
  }
  return { result, charge, refund: null };
}
