/**
 * One price check of a product's competitor sources (check_now, and each scheduled check).
 * Stages: load the product's active sources -> open a job (price_monitoring_jobs, running) ->
 * bill: one debit of CREDITS_PER_SOURCE per source, all before any page is fetched (a short
 * balance refunds what was debited, fails the job and is a 402) -> fetch every page through
 * safe_fetch (public addresses only; PRICE_MONITORING_ALLOWED_HOSTS exempts hosts a deployment
 * or a test names on purpose) and extract the price (extract.ts) -> refund the sources that could
 * not be read (status failed: refused address, network error, timeout, non-2xx, oversized page)
 * -> record everything in one transaction (price_monitoring_record: history, changes,
 * notifications, job counts). A failure after billing refunds every charge still held and
 * fails the job; a check that dies mid-run is failed and refunded by the scheduler's sweep.
 *
 * Price: CREDITS_PER_SOURCE (0.5 credits) per source checked whose page was read (status ok or
 * no_price); sources whose page could not be read are refunded. creditsConsumed is what stays
 * debited.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { type Charge, debit, refund } from "../credits/ledger.ts";
import { DomainError } from "../errors.ts";
import { type DbError, dbError } from "../supabase/postgrest.ts";
import { env } from "../env.ts";
import { safeFetch, UnsafeUrlError } from "../net/safe_fetch.ts";
import { type ExtractionHints, extractPrice } from "./extract.ts";
import type { SourceResult } from "./schemas.ts";
import { mapLimited } from "../concurrency.ts";

export const CREDITS_PER_SOURCE = 0.5;
/** Sources checked at once by one check. */
const CONCURRENCY = 4;
/** Active sources one check covers at most. */
export const MAX_SOURCES_PER_CHECK = 25;
const PAGE_TIMEOUT_MS = 15_000;
const MAX_PAGE_BYTES = 2 * 1024 * 1024;
const DEFAULT_USER_AGENT = "MaterialsCatalogPriceMonitor/1.0";
/** The ledger row's action of a check's debits. */
export const BILLING_ACTION = "price_monitoring_check";

interface SourceRow extends ExtractionHints {
  id: string;
  competitor_name: string;
  url: string;
}

export interface CheckRequest {
  workspaceId: string;
  productId: string;
  /** Who pays: the caller of check_now, or whoever started monitoring for scheduled checks. */
  userId: string;
  trigger: "manual" | "scheduled";
}

export interface CheckOutcome {
  jobId: string;
  sourcesChecked: number;
  pricesFound: number;
  priceChanges: number;
  creditsConsumed: number;
  creditsRefunded: number;
  sources: SourceResult[];
  changes: unknown[];
}

/** Fetch settings from the function environment (read per call). */
export function fetchSettings() {
  return {
    allowHosts: (env("PRICE_MONITORING_ALLOWED_HOSTS") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    userAgent: env("PRICE_MONITORING_USER_AGENT") ?? DEFAULT_USER_AGENT,
  };
}

/** A failed read or write: a refusal as the one mapping says, a fault as price_monitoring_db_error. */
function dbFailure(what: string, error: DbError): DomainError {
  return dbError(error, "Price check", 0, {
    code: "price_monitoring_db_error",
    message: `${what}: ${error.message}`,
  });
}

async function checkSource(s: SourceRow, settings: ReturnType<typeof fetchSettings>): Promise<SourceResult> {
  const base = { source_id: s.id, competitor_name: s.competitor_name, url: s.url };
  try {
    const res = await safeFetch(s.url, {
      headers: { "user-agent": settings.userAgent, accept: "text/html,application/xhtml+xml" },
      timeoutMs: PAGE_TIMEOUT_MS,
      maxBytes: MAX_PAGE_BYTES,
      allowHosts: settings.allowHosts,
    });
    if (res.status < 200 || res.status > 299) {
      return {
        ...base,
        status: "failed",
        price: null,
        currency: null,
        via: null,
        error: `the page answered HTTP ${res.status}`,
      };
    }
    const found = extractPrice(res.body, res.url, s);
    return found.ok
      ? { ...base, status: "ok", price: found.price, currency: found.currency, via: found.via, error: null }
      : { ...base, status: "no_price", price: null, currency: null, via: null, error: found.reason };
  } catch (err) {
    const why = err instanceof UnsafeUrlError
      ? err.message
      : `the page could not be fetched: ${(err as Error).message}`;
    return { ...base, status: "failed", price: null, currency: null, via: null, error: why.slice(0, 500) };
  }
}

async function failJob(
  service: SupabaseClient,
  jobId: string,
  message: string,
  refunded: number,
): Promise<void> {
  const { error } = await service.from("price_monitoring_jobs").update({
    status: "failed",
    error_message: message.slice(0, 1000),
    credits_refunded: refunded,
    completed_at: new Date().toISOString(),
  }).eq("id", jobId).eq("status", "running");
  if (error) console.error(`price-monitoring: could not mark job ${jobId} failed: ${error.message}`);
}

async function refundAll(service: SupabaseClient, charges: Charge[], reason: string): Promise<number> {
  let refunded = 0;
  for (const c of charges) if ((await refund(service, c, reason)).refunded) refunded += c.credits;
  return refunded;
}

export async function runCheck(service: SupabaseClient, req: CheckRequest): Promise<CheckOutcome> {
  const { data: sourceRows, error: srcErr } = await service.from("competitor_sources")
    .select("id, competitor_name, url, price_selector, sku_hint, name_hint, default_currency")
    .eq("product_id", req.productId).eq("is_active", true).order("created_at").order("id");
  if (srcErr) throw dbFailure("Reading the competitor sources", srcErr);
  const sources = sourceRows as SourceRow[];
  if (sources.length === 0) {
    throw new DomainError(
      "unprocessable",
      "no_sources",
      "The product has no active competitor sources: add some to competitor_sources first",
    );
  }
  if (sources.length > MAX_SOURCES_PER_CHECK) {
    throw new DomainError(
      "unprocessable",
      "too_many_sources",
      `A check covers at most ${MAX_SOURCES_PER_CHECK} active sources; the product has ${sources.length}`,
    );
  }

  const { data: job, error: jobErr } = await service.from("price_monitoring_jobs").insert({
    workspace_id: req.workspaceId,
    product_id: req.productId,
    trigger: req.trigger,
    requested_by: req.userId,
  }).select("id").single();
  if (jobErr) throw dbFailure("Opening the check job", jobErr);
  const jobId = (job as { id: string }).id;

  // Bill first: every source's credit before any page is fetched.
  const charges: Charge[] = [];
  try {
    for (const s of sources) {
      charges.push(
        await debit(service, {
          userId: req.userId,
          action: BILLING_ACTION,
          credits: CREDITS_PER_SOURCE,
          referenceId: jobId,
          metadata: { product_id: req.productId, source_id: s.id, trigger: req.trigger },
        }),
      );
    }
  } catch (err) {
    const refunded = await refundAll(service, charges, "price check not started");
    await failJob(service, jobId, (err as Error).message, refunded);
    throw err;
  }
  const held = new Map(sources.map((s, i) => [s.id, charges[i]]));
  const ids = charges.map((c) => c.transactionId);
  const { error: idsErr } = await service.from("price_monitoring_jobs").update({
    credit_transaction_ids: ids,
  }).eq("id", jobId);
  if (idsErr) console.error(`price-monitoring: job ${jobId}: could not record its debits: ${idsErr.message}`);

  let refunded = 0;
  try {
    const settings = fetchSettings();
    const results = await mapLimited(sources, CONCURRENCY, (s) => checkSource(s, settings));
    // Pages that could not be read cost nothing.
    for (const r of results.filter((r) => r.status === "failed")) {
      const charge = held.get(r.source_id)!;
      if ((await refund(service, charge, `source not read: ${r.error ?? "failed"}`)).refunded) {
        refunded += charge.credits;
        held.delete(r.source_id);
      }
    }
    const consumed = [...held.values()].reduce((sum, c) => sum + c.credits, 0);
    const kept = await service.from("price_monitoring_jobs")
      .update({ credit_transaction_ids: [...held.values()].map((c) => c.transactionId) }).eq("id", jobId);
    if (kept.error) {
      console.error(`price-monitoring: job ${jobId}: could not record its debits: ${kept.error.message}`);
    }
    const { data, error } = await service.rpc("price_monitoring_record", {
      p_job: jobId,
      p_results: results,
      p_credits_consumed: consumed,
      p_credits_refunded: refunded,
    });
    if (error) throw dbFailure("Recording the check", error);
    const rec = data as {
      sources_checked: number;
      prices_found: number;
      price_changes: number;
      changes: unknown[];
    };
    return {
      jobId,
      sourcesChecked: rec.sources_checked,
      pricesFound: rec.prices_found,
      priceChanges: rec.price_changes,
      creditsConsumed: consumed,
      creditsRefunded: refunded,
      sources: results,
      changes: rec.changes,
    };
  } catch (err) {
    refunded += await refundAll(service, [...held.values()], "price check failed");
    await failJob(service, jobId, (err as Error).message, refunded);
    throw err;
  }
}
