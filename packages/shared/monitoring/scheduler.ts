/**
 * Scheduled checks (the price-monitoring-scheduler cron job, every five minutes; migration
 * 20260210000400): sweep checks that died mid-run (running for over STALE_AFTER_MS: failed, their
 * remaining debits refunded), claim the products whose next_check_at is due (advanced by their
 * frequency in the same statement), then check each one, billed to whoever started its
 * monitoring - if they are still a writer (owner, admin, member) of the product's workspace;
 * otherwise the check is skipped and reported. One product's failure (e.g. 402) does not stop
 * the others. The sequence is the shared tick (scheduling/tick.ts).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { type Charge, refund } from "../credits/ledger.ts";
import { DomainError } from "../errors.ts";
import { MINUTE_MS, runTick, staleBefore } from "../scheduling/tick.ts";
import { BILLING_ACTION, runCheck } from "./check.ts";

export const STALE_AFTER_MS = 15 * MINUTE_MS;
/** Products one scheduler call checks at most (the rest stay due for the next call). */
export const CLAIM_LIMIT = 10;

export interface ScheduledOutcome {
  productId: string;
  status: "completed" | "failed" | "skipped";
  jobId: string | null;
  error: string | null;
}

async function sweepStale(service: SupabaseClient, now: Date): Promise<number> {
  const { data, error } = await service.from("price_monitoring_jobs")
    .update({
      status: "failed",
      error_message: "the check was interrupted",
      completed_at: now.toISOString(),
    })
    .eq("status", "running").lt("started_at", staleBefore(now, STALE_AFTER_MS)).select(
      "id, credit_transaction_ids",
    );
  if (error) throw DomainError.internal(`Sweeping interrupted checks: ${error.message}`);
  for (const job of data as { id: string; credit_transaction_ids: string[] }[]) {
    for (const transactionId of job.credit_transaction_ids) {
      const charge: Charge = {
        family: "amount",
        action: BILLING_ACTION,
        transactionId,
        usageLogId: null,
        credits: 0,
        balance: 0,
      };
      await refund(service, charge, "price check interrupted");
    }
  }
  return data.length;
}

type Due = { workspace_id: string; product_id: string; started_by: string | null };

export async function runScheduledChecks(
  service: SupabaseClient,
): Promise<{ swept: number; claimed: number; checks: ScheduledOutcome[] }> {
  const t = await runTick({
    name: "price-monitoring",
    now: new Date(),
    sweep: (now) => sweepStale(service, now),
    claim: async () => {
      const { data, error } = await service.rpc("price_monitoring_claim_due", { p_limit: CLAIM_LIMIT });
      if (error) throw DomainError.internal(`Claiming due checks: ${error.message}`);
      return data as Due[];
    },
    run: (m) => scheduledCheck(service, m),
  });
  return { swept: t.swept ?? 0, claimed: t.claimed.length, checks: t.results };
}

async function scheduledCheck(service: SupabaseClient, m: Due): Promise<ScheduledOutcome> {
  const skip = (why: string): ScheduledOutcome => ({
    productId: m.product_id,
    status: "skipped",
    jobId: null,
    error: why,
  });
  if (!m.started_by) return skip("nobody to bill: the user who started monitoring no longer exists");
  const member = await service.from("workspace_members").select("role").eq("workspace_id", m.workspace_id)
    .eq("user_id", m.started_by).in("role", ["owner", "admin", "member"]).maybeSingle();
  if (member.error) throw DomainError.internal(`Reading the workspace's members: ${member.error.message}`);
  if (!member.data) {
    return skip("the user who started monitoring is no longer a writer of the product's workspace");
  }
  try {
    const out = await runCheck(service, {
      workspaceId: m.workspace_id,
      productId: m.product_id,
      userId: m.started_by,
      trigger: "scheduled",
    });
    return { productId: m.product_id, status: "completed", jobId: out.jobId, error: null };
  } catch (err) {
    const e = err as Error;
    if (err instanceof DomainError && err.code === "no_sources") return skip(e.message);
    return { productId: m.product_id, status: "failed", jobId: null, error: e.message };
  }
}
