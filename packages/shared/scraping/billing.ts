/**
 * Scraping's model calls are billed like every other model call (issue 31): cost key
 * `scraping_llm` of the credit ledger (1 credit, 20260220002100_scraping_billing.sql), debited
 * before the model is called (a short balance is DomainError insufficient_credits, 402, and no
 * model call), refunded in full when the call fails (model error, or an answer invalid twice).
 * A call is one page's extraction or one suggest-fields answer, its corrective retry included.
 * Structured data (JSON-LD, microdata, OpenGraph) is free: no model, no charge.
 *
 * Who pays: the signed-in caller for suggest-fields and scrape-single-page; for a session's
 * runner, the user who last started, resumed or retried the session (scraping_session_payers,
 * written here from the caller's JWT, never by clients). Without a payer (a session driven only
 * by the service role) no model is called: `billedModelCall` throws `no_payer`.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { runBilled } from "../credits/ledger.ts";
import { DomainError } from "../errors.ts";

export const SCRAPING_COST_KEY = "scraping_llm";

/** The ledger actions scraping bills (credit_transactions.action). */
export type ScrapingModelAction = "scraping_page_extraction" | "suggest_fields";

export interface Payer {
  userId: string;
  /** Recorded on the usage log (the session's workspace); null for suggest-fields. */
  workspaceId: string | null;
}

/**
 * Runs `call` (one model call) billed to `payer`: debit first, refund when it throws (rethrown).
 * `referenceId`: the page id or the request id, kept on the usage log.
 */
export async function billedModelCall<T>(
  service: SupabaseClient,
  payer: Payer | null,
  action: ScrapingModelAction,
  referenceId: string | null,
  call: () => Promise<T>,
): Promise<T> {
  if (!payer) {
    throw new DomainError(
      "forbidden",
      "no_payer",
      "Nobody pays for this session's model calls: start, resume or retry it as a signed-in user",
    );
  }
  const billed = await runBilled(
    () => service,
    {
      userId: payer.userId,
      action,
      costKey: SCRAPING_COST_KEY,
      workspaceId: payer.workspaceId,
      referenceId,
      metadata: { feature: "scraping" },
    },
    call,
    () => null, // a call that returns succeeded; failures throw
  );
  return billed.result;
}

/** Records the user who pays for a session's runner (start, resume, retry). */
export async function setSessionPayer(
  service: SupabaseClient,
  sessionId: string,
  userId: string,
): Promise<void> {
  const { error } = await service.from("scraping_session_payers")
    .upsert({ session_id: sessionId, user_id: userId, updated_at: new Date().toISOString() });
  if (error) {
    throw new DomainError("internal", "db_error", `Recording who pays for the session: ${error.message}`);
  }
}

/** The payer of a session's runner, or null when none was recorded. */
export async function sessionPayer(
  service: SupabaseClient,
  sessionId: string,
  workspaceId: string,
): Promise<Payer | null> {
  const { data, error } = await service.from("scraping_session_payers").select("user_id")
    .eq("session_id", sessionId).maybeSingle();
  if (error) {
    throw new DomainError("internal", "db_error", `Reading who pays for the session: ${error.message}`);
  }
  return data ? { userId: data.user_id as string, workspaceId } : null;
}

/** The payer of a request: a signed-in user pays; the service role (and anyone else) does not. */
export function payerOf(
  who: { kind: string; userId: string | null },
  workspaceId: string | null,
): Payer | null {
  return who.kind === "user" && who.userId ? { userId: who.userId, workspaceId } : null;
}
