/**
 * The session runner: processes a running session's pages in batches of 3 (spec Limits) until
 * none is left, the session is paused or stopped, or the runner loses its lease.
 *
 * Everything that must survive a restart is in the database (see the migration
 * 20260209000100_scraping.sql): the session lease (worker_id, heartbeat_at), each page's status
 * (pending -> processing -> completed | failed) and its claim. A runner claims the session, then
 * claims pages 3 at a time (`for update skip locked`, so two runners never get one page), and
 * writes each page's outcome and materials in one transaction. A runner killed mid-batch leaves
 * its pages `processing` with an old claim and the session with an old heartbeat; the cron tick
 * (scrape-session-manager/tick) hands the session to a new runner, which re-claims those pages.
 *
 * Each material then becomes a product (scraping_create_product: one transaction, linking the
 * workspace's product of the same sku instead of a duplicate). A failed creation is retried up to
 * 3 times with exponential backoff (SCRAPER_PRODUCT_RETRY_BASE_MS, doubled each retry); after
 * that the material is marked failed with the error, and the session goes on.
 *
 * A page that needs the model is billed to the session's payer (billing.ts: the user who last
 * started, resumed or retried it), 1 credit, refunded when the model fails. When the payer's
 * balance runs out, such pages fail with the 402's message and the run goes on (structured pages
 * cost nothing); after a top-up, `retry` puts the failed pages back.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import type { ScraperConfig } from "./config.ts";
import { type ExtractOptions, extractPage, type LlmDeps, type Material } from "./extract.ts";
import { billedModelCall, type Payer, sessionPayer } from "./billing.ts";
import { politeFetch, RobotsDisallowedError, UnsafeUrlError } from "./fetcher.ts";
import { staleBefore } from "../scheduling/tick.ts";

export const PAGE_BATCH_SIZE = 3;
export const PRODUCT_RETRIES = 3;
/** A runner whose heartbeat is older than this is taken for dead. */
export const STALE_AFTER_MS = 180_000;

export interface RunnerDeps {
  service: SupabaseClient;
  cfg: ScraperConfig;
  /** null: no language model configured (pages without structured data yield nothing). */
  llm: LlmDeps | null;
  /**
   * Who pays for the model calls (billing.ts). The entry points set the signed-in caller; a
   * session's runner replaces it with the session's recorded payer; null: no model is called.
   */
  payer: Payer | null;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

export interface PageRow {
  id: string;
  session_id: string;
  workspace_id: string;
  url: string;
  status: string;
}

export interface PageOutcome {
  ok: boolean;
  pageId: string;
  materialsFound: number;
  productsCreated: number;
  processingTimeMs: number;
  httpStatus: number | null;
  method: string;
  error: string | null;
}

const nowOf = (d: RunnerDeps) => (d.now ? d.now() : new Date());
const sleepOf = (d: RunnerDeps) => d.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

function must<T>(res: { data: T; error: { message: string; code?: string } | null }, what: string): T {
  if (res.error) throw new DomainError("internal", "db_error", `${what}: ${res.error.message}`);
  return res.data;
}

/**
 * A material as the table can hold it: a price beyond numeric(14, 4) (more than 10 integer
 * digits, a page's typo) moves to data.price_raw instead of failing the page's transaction.
 */
export function storable(m: Material): Material {
  if (m.price === undefined || /^\d{1,10}(\.\d+)?$/.test(m.price)) return m;
  const { price, ...rest } = m;
  return { ...rest, data: { ...m.data, price_raw: price } };
}

/**
 * Fetches and extracts one page; never throws for the page's own problems (they are the outcome),
 * except a payer's short balance (DomainError insufficient_credits), which the caller decides on.
 */
export async function scrapePage(
  d: RunnerDeps,
  page: { id: string; url: string },
  options: ExtractOptions,
): Promise<
  { ok: boolean; httpStatus: number | null; method: string; materials: Material[]; error: string | null }
> {
  let httpStatus: number | null = null;
  const bill = <T>(call: () => Promise<T>) =>
    billedModelCall(d.service, d.payer, "scraping_page_extraction", page.id, call);
  try {
    const res = await politeFetch(page.url, d.cfg, { timeoutMs: options.timeout });
    httpStatus = res.status;
    if (res.status < 200 || res.status >= 300) {
      return { ok: false, httpStatus, method: "none", materials: [], error: `HTTP ${res.status}` };
    }
    const type = res.headers["content-type"] ?? "";
    if (type && !/html|xml/i.test(type)) {
      return { ok: false, httpStatus, method: "none", materials: [], error: `not an HTML page (${type})` };
    }
    const out = await extractPage(res.body, res.url, options, d.llm, bill);
    return { ok: true, httpStatus, method: out.method, materials: out.materials.map(storable), error: null };
  } catch (err) {
    const known = err instanceof RobotsDisallowedError || err instanceof UnsafeUrlError ||
      (err instanceof DomainError && err.kind !== "internal" && err.kind !== "insufficient_credits") ||
      err instanceof TypeError;
    if (!known) throw err;
    return { ok: false, httpStatus, method: "none", materials: [], error: (err as Error).message };
  }
}

/** Creates the product of each material, each retried up to PRODUCT_RETRIES times. */
export async function createProducts(d: RunnerDeps, materialIds: string[]): Promise<number> {
  let created = 0;
  for (const id of materialIds) {
    let lastError = "";
    let attempts = 0;
    for (let retry = 0; retry <= PRODUCT_RETRIES; retry++) {
      if (retry > 0) await sleepOf(d)(d.cfg.productRetryBaseMs * 2 ** (retry - 1));
      attempts++;
      const { error } = await d.service.rpc("scraping_create_product", {
        p_material: id,
        p_attempts: attempts,
      });
      if (!error) {
        created++;
        lastError = "";
        break;
      }
      lastError = error.message;
    }
    if (lastError) {
      console.warn(`scraping: product for material ${id} failed after ${attempts} attempts: ${lastError}`);
      must(
        await d.service.rpc("scraping_material_failed", {
          p_material: id,
          p_attempts: attempts,
          p_error: lastError,
        }),
        "Recording a failed product",
      );
    }
  }
  return created;
}

/** Processes one claimed page: fetch, extract, store (one transaction), create products. */
export async function processPage(
  d: RunnerDeps,
  worker: string,
  page: PageRow,
  options: ExtractOptions,
): Promise<PageOutcome> {
  const t0 = performance.now();
  const out = await scrapePage(d, page, options).catch((err) => {
    // The payer ran out of credits: this page fails, the run goes on (structured pages are free).
    if (!(err instanceof DomainError && err.kind === "insufficient_credits")) throw err;
    return { ok: false, httpStatus: null, method: "none", materials: [], error: err.message };
  });
  const processingTimeMs = Math.round(performance.now() - t0);
  const ids = must(
    await d.service.rpc("scraping_complete_page", {
      p_page: page.id,
      p_worker: worker,
      p_ok: out.ok,
      p_result: { httpStatus: out.httpStatus, method: out.method, processingTimeMs, error: out.error },
      p_materials: out.materials,
      p_now: nowOf(d).toISOString(),
    }),
    "Storing the page",
  ) as string[] | null;
  const productsCreated = ids && ids.length ? await createProducts(d, ids) : 0;
  return {
    ok: out.ok,
    pageId: page.id,
    materialsFound: out.materials.length,
    productsCreated,
    processingTimeMs,
    httpStatus: out.httpStatus,
    method: out.method,
    error: out.error,
  };
}

export type RunEnd = "completed" | "paused" | "stopped" | "failed" | "not_claimed" | "lost_lease";

/** Runs a session until it ends or is paused; safe to call concurrently (the lease decides). */
export async function runSession(
  d: RunnerDeps,
  sessionId: string,
  worker = `runner-${crypto.randomUUID()}`,
): Promise<RunEnd> {
  const stale = () => staleBefore(nowOf(d), STALE_AFTER_MS);
  const claimed = must(
    await d.service.rpc("scraping_claim_session", {
      p_session: sessionId,
      p_worker: worker,
      p_now: nowOf(d).toISOString(),
      p_stale_before: stale(),
    }),
    "Claiming the session",
  ) as { options: ExtractOptions; workspace_id: string }[];
  if (!claimed?.length) return "not_claimed";
  const options = claimed[0].options ?? {};
  try {
    // The session's payer, whoever launched this runner (a route, the cron tick).
    d = { ...d, payer: await sessionPayer(d.service, sessionId, claimed[0].workspace_id) };
    for (;;) {
      const pages = must(
        await d.service.rpc("scraping_claim_pages", {
          p_session: sessionId,
          p_worker: worker,
          p_limit: PAGE_BATCH_SIZE,
          p_now: nowOf(d).toISOString(),
          p_stale_before: stale(),
        }),
        "Claiming pages",
      ) as PageRow[];
      if (!pages?.length) {
        const status = must(
          await d.service.rpc("scraping_finish_session", {
            p_session: sessionId,
            p_worker: worker,
            p_now: nowOf(d).toISOString(),
          }),
          "Finishing the session",
        ) as string;
        if (status === "completed" || status === "paused" || status === "stopped" || status === "failed") {
          return status;
        }
        return "lost_lease";
      }
      await Promise.all(pages.map((p) => processPage(d, worker, p, options)));
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.error(`scraping: session ${sessionId} failed`, err);
    const { error } = await d.service.rpc("scraping_fail_session", {
      p_session: sessionId,
      p_worker: worker,
      p_error: message,
      p_now: nowOf(d).toISOString(),
    });
    if (error) console.error(`scraping: could not mark session ${sessionId} failed: ${error.message}`);
    return "failed";
  }
}
