/**
 * What the SEO steps cost, and how they are billed: each paid step debits through the credit
 * ledger (an amount debit, action `seo_<step>`) before it runs, with a reference id (the
 * article id for a pipeline run, a per-request id for a sub-function call) and the stage in the
 * ledger row's metadata. Refunds are found from the ledger itself (debits of the reference
 * without a refund), so a run resumed by another worker after a crash refunds what the dead
 * worker debited too.
 *
 * | step                 | credits | when                                              |
 * | -------------------- | ------- | ------------------------------------------------- |
 * | research             | 2       | DataForSEO calls (4 live endpoints)               |
 * | plan                 | 1       | one model call (plus one retry when malformed)    |
 * | write                | 3       | one model call                                    |
 * | analyze              | 1       | the score and one model review                    |
 * | fix (per iteration)  | 2       | one model rewrite, at most max_fix_iterations     |
 *
 * A full pipeline run costs 7 credits, plus 2 per fix iteration (at most 13 with the default
 * max_fix_iterations 3); seo-pipeline refuses with 402 when the balance is below 7.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { type Charge, debit, refund } from "../credits/ledger.ts";
import { DomainError } from "../errors.ts";

export const SEO_COSTS = { research: 2, plan: 1, write: 3, analyze: 1, fix: 2 } as const;
export type SeoStep = keyof typeof SEO_COSTS;
/** The stage a step's debit belongs to (fix iterations are part of Analyze). */
export type SeoStage = "research" | "plan" | "write" | "analyze";

/** Credits a pipeline run needs before it starts (fix iterations are extra). */
export function pipelineBaseCost(skipResearch: boolean): number {
  return (skipResearch ? 0 : SEO_COSTS.research) + SEO_COSTS.plan + SEO_COSTS.write + SEO_COSTS.analyze;
}

export class SeoBilling {
  constructor(
    readonly db: SupabaseClient,
    readonly userId: string,
    readonly referenceId: string,
  ) {}

  /** Debits a step; a short balance throws insufficient_credits (402) and writes nothing. */
  charge(step: SeoStep, stage: SeoStage): Promise<Charge> {
    return debit(this.db, {
      userId: this.userId,
      action: `seo_${step}`,
      credits: SEO_COSTS[step],
      referenceId: this.referenceId,
      metadata: { stage, step },
    });
  }

  /** Credits of this reference's debits not refunded yet, with their stage. */
  async outstanding(): Promise<{ charge: Charge; stage: string }[]> {
    const debits = await this.db.from("credit_transactions")
      .select("id, amount, action, metadata")
      .eq("user_id", this.userId).eq("reference_id", this.referenceId).eq("kind", "debit");
    if (debits.error) throw DomainError.internal(`Reading the ledger failed: ${debits.error.message}`);
    const ids = (debits.data ?? []).map((d) => d.id as string);
    if (ids.length === 0) return [];
    const refunds = await this.db.from("credit_transactions").select("refund_of").in("refund_of", ids);
    if (refunds.error) throw DomainError.internal(`Reading the ledger failed: ${refunds.error.message}`);
    const done = new Set((refunds.data ?? []).map((r) => r.refund_of as string));
    return (debits.data ?? []).filter((d) => !done.has(d.id as string)).map((d) => ({
      stage: String((d.metadata as Record<string, unknown> | null)?.stage ?? ""),
      charge: {
        family: "amount",
        action: d.action as string,
        transactionId: d.id as string,
        usageLogId: null,
        credits: -Number(d.amount),
        balance: 0,
      },
    }));
  }

  /**
   * Refunds every outstanding debit of the reference (or those whose stage `which` selects).
   * Returns the credits given back; failures are logged by the ledger and counted out.
   */
  async refundOutstanding(reason: string, which: (stage: string) => boolean = () => true): Promise<number> {
    let back = 0;
    for (const { charge, stage } of await this.outstanding()) {
      if (!which(stage)) continue;
      const r = await refund(this.db, charge, reason);
      if (r.refunded) back += charge.credits;
    }
    return back;
  }
}
