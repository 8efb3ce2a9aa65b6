/** Shared steps of the scraping tests: the local site wired into a platform, sessions, calls. */
import type { Platform } from "../../stack/platform.ts";
import type { TestUser } from "../helpers/platform.ts";
import { type LocalSite, startLocalSite } from "../../fixtures/scraping_site.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

let site: Promise<LocalSite> | null = null;

/** The module's local site, allowed through the SSRF check by configuration (and only it). */
export async function siteFor(p: Platform): Promise<LocalSite> {
  site ??= startLocalSite();
  const s = await site;
  p.env.SCRAPER_ALLOWED_HOSTS = s.host;
  p.env.SCRAPER_HOST_DELAY_MS = "0";
  p.env.SCRAPER_HOST_CONCURRENCY = "3";
  p.env.SCRAPER_PRODUCT_RETRY_BASE_MS = "1";
  return s;
}

export async function call(p: Platform, fn: string, token: string, body: unknown, method = "POST") {
  const res = await fetch(`${p.url}/functions/v1/${fn}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      apikey: p.config.anonKey,
    },
    body: method === "GET" ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() as Json };
}

export async function gateway(p: Platform, token: string, action: string, payload: Record<string, unknown>) {
  return await call(p, "ai-gateway", token, { action, payload });
}

/** A session with the given pages, created through /rest/v1 as the user (as a frontend does). */
export async function createSession(
  u: TestUser,
  workspaceId: string,
  urls: string[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; pages: { id: string; url: string }[] }> {
  const { data, error } = await u.client.from("scraping_sessions")
    .insert({ workspace_id: workspaceId, name: "Test session", ...extra }).select("id").single();
  if (error) throw new Error(`session insert: ${error.message}`);
  const rows = urls.map((url, position) => ({ session_id: data.id, url, position }));
  const pages = rows.length
    ? await u.client.from("scraping_pages").insert(rows).select("id, url, position").order("position")
    : { data: [], error: null };
  if (pages.error) throw new Error(`pages insert: ${pages.error.message}`);
  return { id: data.id, pages: pages.data ?? [] };
}

export async function q(p: Platform, sql: string, params: unknown[] = []): Promise<Json[]> {
  return (await p.db.query<Json>(sql, params)).rows;
}

/**
 * Makes product inserts into one workspace fail the first `failures` times (a sequence, which a
 * rolled-back insert does not rewind), as a flaky database would.
 */
export async function flakyProducts(p: Platform, workspaceId: string, failures: number): Promise<void> {
  const tag = workspaceId.replaceAll("-", "_");
  await p.db.exec(`
    create sequence public.flaky_${tag};
    create function public.flaky_${tag}() returns trigger language plpgsql as $$
    begin
      if new.workspace_id = '${workspaceId}' and nextval('public.flaky_${tag}') <= ${failures} then
        raise exception 'flaky product insert (test)';
      end if;
      return new;
    end $$;
    create trigger flaky_${tag} before insert on public.products
      for each row execute function public.flaky_${tag}();`);
}
