/**
 * Scraper configuration, read from the function environment (env()) on every call:
 *
 *   SCRAPER_USER_AGENT            User-Agent sent and matched in robots.txt (default below)
 *   SCRAPER_ALLOWED_HOSTS         comma list of `host` or `host:port` exempt from the SSRF address
 *                                 check (a test's local site, a trusted intranet); empty by default
 *   SCRAPER_HOST_CONCURRENCY      requests in flight to one host at a time (default 2)
 *   SCRAPER_HOST_DELAY_MS         pause between two request starts to one host (default 1000)
 *   SCRAPER_MAX_PAGE_BYTES        largest page read (default 2 MiB); bigger pages fail
 *   SCRAPER_PAGE_TIMEOUT_MS       default per-request deadline (default 15000); options.timeout overrides
 *   SCRAPER_PRODUCT_RETRY_BASE_MS first product-creation retry delay, doubled per retry (default 500)
 *   SCRAPER_MODEL                 model for LLM extraction (default vendor-haiku-4-5, HAIKU)
 *   SCRAPER_ROBOTS_TTL_MS         how long a host's robots.txt is cached (default 1 h)
 */
import { env } from "../env.ts";
import { HAIKU, llmFromEnv } from "../llm/mod.ts";
import type { LlmDeps } from "./extract.ts";

export const DEFAULT_USER_AGENT = "MaterialsCatalogBot/1.0 (+https://example.com/bot)";

export interface ScraperConfig {
  userAgent: string;
  allowHosts: string[];
  hostConcurrency: number;
  hostDelayMs: number;
  maxPageBytes: number;
  timeoutMs: number;
  productRetryBaseMs: number;
  model: string;
  robotsTtlMs: number;
}

type Get = (name: string) => string | undefined;

function int(get: Get, name: string, fallback: number, min: number, max: number): number {
  const raw = get(name);
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, not ${raw}`);
  }
  return n;
}

/** `get`: where variables are read (default env(); the AI backend passes its secrets reader). */
export function scraperConfig(get: Get = env): ScraperConfig {
  return {
    userAgent: get("SCRAPER_USER_AGENT") || DEFAULT_USER_AGENT,
    allowHosts: (get("SCRAPER_ALLOWED_HOSTS") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    hostConcurrency: int(get, "SCRAPER_HOST_CONCURRENCY", 2, 1, 64),
    hostDelayMs: int(get, "SCRAPER_HOST_DELAY_MS", 1000, 0, 60_000),
    maxPageBytes: int(get, "SCRAPER_MAX_PAGE_BYTES", 2 * 1024 * 1024, 1024, 50 * 1024 * 1024),
    timeoutMs: int(get, "SCRAPER_PAGE_TIMEOUT_MS", 15_000, 100, 120_000),
    productRetryBaseMs: int(get, "SCRAPER_PRODUCT_RETRY_BASE_MS", 500, 0, 60_000),
    model: get("SCRAPER_MODEL") || HAIKU,
    robotsTtlMs: int(get, "SCRAPER_ROBOTS_TTL_MS", 3_600_000, 0, 86_400_000),
  };
}

/**
 * The language model for extraction (the platform's model layer, configured through `get`), or
 * null when no provider is configured: then pages without structured data yield no material, and
 * suggest-fields offers only what structured data shows.
 */
export function scrapingLlm(get: Get = env, model = scraperConfig(get).model): LlmDeps | null {
  const llm = llmFromEnv(get);
  return llm.configured ? { llm, model } : null;
}
