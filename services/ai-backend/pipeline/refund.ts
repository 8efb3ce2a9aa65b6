/**
 * Refund of a billed job that ends `failed`: an upload-async job is charged (document_processing)
 * when it is accepted, before any stage runs, and billing.ts links the debit to the job
 * (ai_jobs.credit_transaction_id). When the pipeline later finishes the job as failed, the debit
 * is returned in full through the credit ledger - exactly once: a job that is resumed, fails
 * again, or is failed by two runners at the same moment is refunded once (the ledger's
 * refund_credits refuses a second refund of one debit, PT409, and we check before asking).
 *
 * The sync upload (/api/rag/documents/upload) has no linked debit: its request is refunded by
 * the billing middleware when it answers 422, so it never reaches here with a charge.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { refund } from "@shared/credits/ledger.ts";

export type JobRefund =
  | { outcome: "refunded"; credits: number; transaction_id: string }
  | { outcome: "already_refunded" | "not_billed" }
  | { outcome: "error"; error: string };

export async function refundFailedJob(
  db: SupabaseClient,
  job: { id: string; credit_transaction_id?: string | null },
  reason: string,
): Promise<JobRefund> {
  const debitId = job.credit_transaction_id;
  if (!debitId) return { outcome: "not_billed" };
  const done = await db.from("credit_transactions").select("id").eq("refund_of", debitId).limit(1);
  if (done.error) return { outcome: "error", error: done.error.message };
  if (done.data.length) return { outcome: "already_refunded" };
  const debitRow = await db.from("credit_transactions").select("amount, action, kind").eq("id", debitId)
    .maybeSingle();
  if (debitRow.error) return { outcome: "error", error: debitRow.error.message };
  if (!debitRow.data || debitRow.data.kind !== "debit") return { outcome: "not_billed" };
  const credits = Math.abs(Number(debitRow.data.amount));
  const out = await refund(db, {
    family: "cost_key",
    action: debitRow.data.action,
    transactionId: debitId,
    usageLogId: null,
    credits,
    balance: 0,
  }, `job ${job.id} failed: ${reason}`.slice(0, 500));
  if (!out.refunded) {
    // A concurrent finisher refunded it first (PT409): still exactly one refund.
    const again = await db.from("credit_transactions").select("id").eq("refund_of", debitId).limit(1);
    if (!again.error && again.data.length) return { outcome: "already_refunded" };
    return { outcome: "error", error: out.error };
  }
  const { data: refundRow } = await db.from("credit_transactions").select("id").eq("refund_of", debitId)
    .maybeSingle();
  return { outcome: "refunded", credits, transaction_id: refundRow?.id ?? "" };
}
