/**
 * The scraper's outbound requests: every one goes through safeFetch (packages/shared/net), so
 * loopback, private, link-local and metadata addresses are refused unless configuration names the
 * host (SCRAPER_ALLOWED_HOSTS); then
 *
 * - robots.txt: fetched once per origin (cached for SCRAPER_ROBOTS_TTL_MS, concurrent callers
 *   share one request) and obeyed for our user agent, else `*` (robots-parser: Allow/Disallow,
 *   longest match, wildcards). As RFC 9309 says, a robots.txt that answers 4xx allows everything,
 *   one that cannot be read (5xx, network error) disallows everything for a minute;
 * - politeness per host: at most SCRAPER_HOST_CONCURRENCY requests in flight, request starts at
 *   least SCRAPER_HOST_DELAY_MS apart (or the robots.txt Crawl-delay when that is longer, capped
 *   at 10 s), FIFO per host;
 * - limits: a body cap (SCRAPER_MAX_PAGE_BYTES) and one deadline per request (timeout).
 */
import robotsParserModule from "robots-parser";
import { parseHttpUrl, safeFetch, type SafeResponse, UnsafeUrlError } from "../net/safe_fetch.ts";
import type { ScraperConfig } from "./config.ts";
import { DomainError } from "../errors.ts";

export { UnsafeUrlError };

export class RobotsDisallowedError extends Error {
  constructor(readonly url: string, why?: string) {
    super(
      why
        ? `robots.txt of ${new URL(url).host} ${why}, so ${url} is not fetched`
        : `robots.txt of ${new URL(url).host} disallows ${url}`,
    );
    this.name = "RobotsDisallowedError";
  }
}

/** robots-parser's Robot (its typings declare the default export loosely). */
interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robots;
interface RobotsEntry {
  /** null: everything allowed (no robots.txt); "deny": unreadable, everything refused. */
  rules: Robots | null | "deny";
  /** Why an unreadable robots.txt refuses everything. */
  why?: string;
  expires: number;
}

const UNREADABLE_TTL_MS = 60_000;
const MAX_CRAWL_DELAY_MS = 10_000;
const robotsCache = new Map<string, Promise<RobotsEntry>>();

/** How many robots.txt files were requested (tests check "once per host"). */
export const robotsStats = { fetches: 0 };

/** Forgets cached robots.txt files (tests, or after a site changed them). */
export function clearRobotsCache(): void {
  robotsCache.clear();
}

// ---- politeness ----

interface HostState {
  active: number;
  nextStart: number;
  waiting: (() => void)[];
}
const hosts = new Map<string, HostState>();

async function withHostSlot<T>(host: string, concurrency: number, delayMs: number, fn: () => Promise<T>) {
  let st = hosts.get(host);
  if (!st) {
    const now = Date.now();
    for (const [h, idle] of hosts) if (idle.active === 0 && now >= idle.nextStart) hosts.delete(h);
    st = { active: 0, nextStart: 0, waiting: [] };
    hosts.set(host, st);
  }
  const state = st;
  if (state.active >= concurrency || state.waiting.length > 0) {
    await new Promise<void>((resolve) => state.waiting.push(resolve));
  } else {
    state.active++;
  }
  try {
    const wait = state.nextStart - Date.now();
    state.nextStart = Math.max(Date.now(), state.nextStart) + delayMs;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return await fn();
  } finally {
    const next = state.waiting.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else {
      state.active--;
      // An idle host keeps its state until its delay has passed, so the next request after a
      // quick one still waits; stale idle entries are swept as new hosts arrive.
      if (state.active === 0 && Date.now() >= state.nextStart) hosts.delete(host);
    }
  }
}

// ---- robots.txt ----

function fetchOptions(cfg: ScraperConfig, timeoutMs: number, maxBytes: number) {
  return {
    headers: {
      "user-agent": cfg.userAgent,
      accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    },
    timeoutMs,
    maxBytes,
    allowHosts: cfg.allowHosts,
  };
}

async function loadRobots(origin: string, cfg: ScraperConfig): Promise<RobotsEntry> {
  const url = `${origin}/robots.txt`;
  robotsStats.fetches++;
  try {
    const res = await withHostSlot(
      new URL(origin).host,
      cfg.hostConcurrency,
      cfg.hostDelayMs,
      () => safeFetch(url, fetchOptions(cfg, Math.min(cfg.timeoutMs, 10_000), 512 * 1024)),
    );
    if (res.status >= 200 && res.status < 300) {
      return { rules: robotsParser(url, res.body), expires: Date.now() + cfg.robotsTtlMs };
    }
    if (res.status >= 400 && res.status < 500) return { rules: null, expires: Date.now() + cfg.robotsTtlMs };
    return {
      rules: "deny",
      why: `could not be read (HTTP ${res.status}; RFC 9309: disallow all)`,
      expires: Date.now() + UNREADABLE_TTL_MS,
    };
  } catch (err) {
    if (err instanceof UnsafeUrlError && /refused|not allowed|credentials|valid URL/i.test(err.message)) {
      throw err;
    }
    return {
      rules: "deny",
      why: `could not be read (${err instanceof Error ? err.message : String(err)}; RFC 9309: disallow all)`,
      expires: Date.now() + UNREADABLE_TTL_MS,
    };
  }
}

async function robotsFor(url: URL, cfg: ScraperConfig): Promise<RobotsEntry> {
  const origin = url.origin;
  const cached = robotsCache.get(origin);
  if (cached) {
    const entry = await cached;
    if (entry.expires > Date.now()) return entry;
    robotsCache.delete(origin);
  }
  const p = loadRobots(origin, cfg);
  robotsCache.set(origin, p);
  p.catch(() => robotsCache.delete(origin));
  return await p;
}

/** The user agent's product token ("MaterialsCatalogBot"), what robots.txt groups name. */
function agentToken(ua: string): string {
  return ua.split(/[\s/]/)[0] || ua;
}

/** Whether robots.txt lets our user agent fetch the URL; also the Crawl-delay in ms. */
export async function robotsAllows(
  raw: string,
  cfg: ScraperConfig,
): Promise<{ allowed: boolean; delayMs: number; why?: string }> {
  const url = new URL(raw);
  const entry = await robotsFor(url, cfg);
  if (entry.rules === null) return { allowed: true, delayMs: 0 };
  if (entry.rules === "deny") return { allowed: false, delayMs: 0, why: entry.why };
  const token = agentToken(cfg.userAgent);
  const allowed = entry.rules.isAllowed(url.toString(), token) ?? true;
  const delay = entry.rules.getCrawlDelay(token);
  return { allowed, delayMs: typeof delay === "number" ? Math.min(delay * 1000, MAX_CRAWL_DELAY_MS) : 0 };
}

export interface PoliteFetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
  responseType?: "text" | "bytes";
}

/**
 * GET a URL as the scraper: robots.txt first (RobotsDisallowedError), then a host slot, then
 * safeFetch (UnsafeUrlError for refused addresses, oversized bodies and timeouts).
 */
export async function politeFetch(
  raw: string,
  cfg: ScraperConfig,
  opts: PoliteFetchOptions = {},
): Promise<SafeResponse> {
  const url = parseHttpUrl(raw);
  const robots = await robotsAllows(url.toString(), cfg);
  if (!robots.allowed) throw new RobotsDisallowedError(url.toString(), robots.why);
  return await withHostSlot(
    url.host,
    cfg.hostConcurrency,
    Math.max(cfg.hostDelayMs, robots.delayMs),
    () =>
      safeFetch(url.toString(), {
        ...fetchOptions(cfg, opts.timeoutMs ?? cfg.timeoutMs, opts.maxBytes ?? cfg.maxPageBytes),
        responseType: opts.responseType,
      }),
  );
}

/** A failed fetch as the error a caller sees: refused URL 400, robots 422, timeouts/size/network 502. */
export function fetchProblem(err: unknown, url: string): DomainError {
  if (err instanceof DomainError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RobotsDisallowedError) {
    return new DomainError("unprocessable", "robots_disallowed", message);
  }
  if (err instanceof UnsafeUrlError && !/longer than|larger than|redirects|Could not resolve/.test(message)) {
    return new DomainError("invalid", "unsafe_url", message);
  }
  return new DomainError("upstream", "fetch_failed", `Fetching ${url} failed: ${message}`);
}
