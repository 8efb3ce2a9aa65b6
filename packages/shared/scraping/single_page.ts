/**
 * scrape-single-page's work after the caller was authorised for the session's workspace: the
 * page must belong to the session (read as the caller: 404 otherwise) and `pageUrl` must be its
 * URL (400); a URL off the public internet is 400 unsafe_url (unless the scraper allows its host);
 * then the page is scraped now (pages.ts scrapeSinglePage) and answered in the spec's shape.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { allowedHost, checkUrl, UnsafeUrlError } from "../net/safe_fetch.ts";
import type { Payer } from "./billing.ts";
import type { ExtractOptions } from "./extract.ts";
import { runnerDeps, scrapeSinglePage } from "./pages.ts";

export interface SinglePageRequest {
  pageUrl: string;
  sessionId: string;
  pageId: string;
  options: ExtractOptions;
}

export async function scrapeSessionPage(
  deps: { db: SupabaseClient; service: SupabaseClient; payer: Payer | null },
  { pageUrl, sessionId, pageId, options }: SinglePageRequest,
) {
  const { data: page, error } = await deps.db.from("scraping_pages").select("id, session_id, url")
    .eq("id", pageId).eq("session_id", sessionId).maybeSingle();
  if (error) throw new DomainError("internal", "db_error", error.message);
  if (!page) throw DomainError.notFound("Page not found in this session");
  if (new URL(pageUrl).toString() !== new URL(page.url).toString()) {
    throw DomainError.invalid("pageUrl: is not the URL of this page");
  }
  const runner = runnerDeps(deps.service, undefined, deps.payer);
  if (!allowedHost(page.url, runner.cfg.allowHosts)) {
    await checkUrl(page.url).catch((err) => {
      if (err instanceof UnsafeUrlError) throw DomainError.invalid(err.message, undefined, "unsafe_url");
      throw err;
    });
  }
  const out = await scrapeSinglePage(runner, page, options);
  return {
    success: out.ok,
    pageId,
    materialsFound: out.materialsFound,
    processingTimeMs: out.processingTimeMs,
    error: out.error,
    productsCreated: out.productsCreated,
    method: out.method,
  };
}
