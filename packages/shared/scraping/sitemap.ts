/**
 * Sitemaps (sitemaps.org): a `urlset` gives page URLs, a `sitemapindex` gives further sitemaps,
 * followed breadth-first up to `maxDepth` levels (default 3) and `maxSitemaps` files (default 50),
 * stopping at `maxUrls` page URLs (default 5000; `truncated` says so). Files ending in .gz, or
 * whose bytes start with the gzip magic, are inflated with DecompressionStream, capped at the
 * page byte limit after inflation too (no gzip bombs). Only http(s) URLs are kept, each once.
 * Every fetch is a politeFetch (SSRF check, robots.txt, per-host politeness). A sitemap that
 * cannot be fetched or parsed is reported in `errors`; the others still count.
 */
import { XMLParser } from "fast-xml-parser";
import { readStreamBytesCapped } from "../input-limits.ts";
import { DomainError } from "../errors.ts";
import type { ScraperConfig } from "./config.ts";
import { fetchProblem, politeFetch, UnsafeUrlError } from "./fetcher.ts";

export interface SitemapUrl {
  loc: string;
  lastmod?: string;
  changefreq?: string;
  priority?: number;
}

export interface SitemapResult {
  url: string;
  urls: SitemapUrl[];
  totalUrls: number;
  /** Sitemap files read, in order. */
  sitemaps: string[];
  truncated: boolean;
  errors: { url: string; error: string }[];
}

export interface SitemapLimits {
  maxUrls?: number;
  maxDepth?: number;
  maxSitemaps?: number;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => name === "url" || name === "sitemap",
});

/** gzip bytes inflated, at most `limit` bytes of output. */
export async function gunzipCapped(bytes: Uint8Array, limit: number): Promise<string> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
  const out = await readStreamBytesCapped(
    stream,
    limit,
    () => new UnsafeUrlError(`The inflated sitemap is larger than ${limit} bytes`),
  );
  return new TextDecoder().decode(out);
}

type Node = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

/** The URLs and child sitemaps of one sitemap document (throws on anything else). */
export function parseSitemapXml(xml: string): { urls: SitemapUrl[]; sitemaps: string[] } {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw new Error(`not XML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const urlset = doc.urlset as Node | "" | undefined;
  const index = doc.sitemapindex as Node | "" | undefined;
  if (urlset === undefined && index === undefined) throw new Error("neither a urlset nor a sitemapindex");
  const urls: SitemapUrl[] = [];
  for (const u of (urlset && (urlset.url as Node[])) || []) {
    const loc = str(u?.loc);
    if (!loc) continue;
    const entry: SitemapUrl = { loc };
    const lastmod = str(u.lastmod);
    if (lastmod) entry.lastmod = lastmod;
    const changefreq = str(u.changefreq);
    if (changefreq) entry.changefreq = changefreq;
    const priority = Number(str(u.priority));
    if (str(u.priority) && Number.isFinite(priority)) entry.priority = priority;
    urls.push(entry);
  }
  const sitemaps: string[] = [];
  for (const s of (index && (index.sitemap as Node[])) || []) {
    const loc = str(s?.loc);
    if (loc) sitemaps.push(loc);
  }
  return { urls, sitemaps };
}

function httpUrl(raw: string, base: string): string | null {
  try {
    const u = new URL(raw, base);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    u.hash = "";
    return u.toString();
  } catch {
    return null;
  }
}

export async function parseSitemap(
  rootUrl: string,
  cfg: ScraperConfig,
  limits: SitemapLimits = {},
): Promise<SitemapResult> {
  const maxUrls = limits.maxUrls ?? 5000;
  const maxDepth = limits.maxDepth ?? 3;
  const maxSitemaps = limits.maxSitemaps ?? 50;
  const result: SitemapResult = {
    url: rootUrl,
    urls: [],
    totalUrls: 0,
    sitemaps: [],
    truncated: false,
    errors: [],
  };
  const seenPages = new Set<string>();
  const seenMaps = new Set<string>([rootUrl]);
  let level = [rootUrl];
  for (let depth = 0; level.length > 0; depth++) {
    const next: string[] = [];
    for (const url of level) {
      if (result.sitemaps.length >= maxSitemaps) {
        result.truncated = true;
        break;
      }
      let xml: string;
      try {
        const res = await politeFetch(url, cfg, { responseType: "bytes" });
        if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
        const bytes = res.bytes!;
        const gz = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
        xml = gz ? await gunzipCapped(bytes, cfg.maxPageBytes) : new TextDecoder().decode(bytes);
        result.sitemaps.push(url);
      } catch (err) {
        // The root itself failing is the caller's problem (unsafe URL, robots, not found): say so.
        if (url === rootUrl) throw fetchProblem(err, url);
        result.errors.push({ url, error: (err as Error).message });
        continue;
      }
      let parsed: { urls: SitemapUrl[]; sitemaps: string[] };
      try {
        parsed = parseSitemapXml(xml);
      } catch (err) {
        if (url === rootUrl) {
          throw new DomainError(
            "invalid",
            "sitemap_invalid",
            `${url} is not a sitemap: ${(err as Error).message}`,
          );
        }
        result.errors.push({ url, error: `not a sitemap: ${(err as Error).message}` });
        continue;
      }
      for (const u of parsed.urls) {
        const loc = httpUrl(u.loc, url);
        if (!loc || seenPages.has(loc)) continue;
        if (result.urls.length >= maxUrls) {
          result.truncated = true;
          break;
        }
        seenPages.add(loc);
        result.urls.push({ ...u, loc });
      }
      for (const s of parsed.sitemaps) {
        const loc = httpUrl(s, url);
        if (!loc || seenMaps.has(loc)) continue;
        seenMaps.add(loc);
        if (depth + 1 > maxDepth) {
          result.truncated = true;
          continue;
        }
        next.push(loc);
      }
      if (result.urls.length >= maxUrls && result.truncated) break;
    }
    if (result.urls.length >= maxUrls && result.truncated) break;
    level = next;
  }
  result.totalUrls = result.urls.length;
  return result;
}
