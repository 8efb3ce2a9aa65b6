/**
 * An outbound HTTP request to an address a user typed (flow http_request, scraping): refuses
 * anything but the public internet. Stages: parse the URL (http/https, no credentials) -> check
 * the host (names like localhost and metadata.google.internal are refused outright) -> resolve
 * it (A and AAAA) and refuse it if any address is loopback, private, link-local (which holds the
 * cloud metadata address 169.254.169.254), CGNAT, unspecified, multicast, reserved, an IPv6
 * unique-local / site-local / link-local address, or any IPv6 form that embeds a refused IPv4
 * address (mapped, translated, compatible, NAT64, 6to4, Teredo: net/address.ts) -> send with
 * redirect "manual" -> follow a redirect only after checking its target the same way (at most 3
 * hops) -> read the body up to a byte cap, all within one deadline.
 *
 * Known limit: the address is checked before fetch resolves the name again, so a DNS server
 * answering differently within the TTL (rebinding) is not caught; Deno's fetch cannot be pinned
 * to an address without losing TLS name checks.
 */
import { readStreamBytesCapped } from "../input-limits.ts";
import { blockedAddress, isIpLiteral } from "./address.ts";

export { blockedAddress };

export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsafeUrlError";
  }
}

export interface SafeFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The whole request, every redirect hop and the body included (default 10 s). */
  timeoutMs?: number;
  /** Response body cap in bytes (default 1 MiB). */
  maxBytes?: number;
  maxRedirects?: number;
  /** Name resolution (tests inject one); default Deno.resolveDns for A and AAAA. */
  resolve?: (host: string) => Promise<string[]>;
  fetch?: typeof fetch;
  /**
   * Hosts exempt from the public-address check, as `host` (any port) or `host:port`: only what
   * configuration names on purpose (a test's local site, an intranet a deployment trusts). Every
   * other hop, redirects from an allowed host included, is checked as usual.
   */
  allowHosts?: readonly string[];
  /** `bytes`: the body is returned undecoded in `bytes` (gzip files); default text in `body`. */
  responseType?: "text" | "bytes";
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  url: string;
  redirects: number;
  /** The raw body when responseType is `bytes` (then `body` is ""). */
  bytes?: Uint8Array;
}

const BLOCKED_NAMES = /(^|\.)(localhost|localdomain|internal|local)$|^metadata(\.google\.internal)?$/i;

async function defaultResolve(host: string): Promise<string[]> {
  const out: string[] = [];
  for (const type of ["A", "AAAA"] as const) {
    try {
      out.push(...await Deno.resolveDns(host, type));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return out;
}

/** Parses an absolute http(s) URL, or throws UnsafeUrlError saying why not. */
export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError(`Not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UnsafeUrlError(`Only http and https URLs are allowed, not ${url.protocol}`);
  }
  return url;
}

/** Refuses a URL that does not lead to the public internet; returns the parsed URL. */
export async function checkUrl(raw: string, resolve = defaultResolve): Promise<URL> {
  const url = parseHttpUrl(raw);
  if (url.username || url.password) throw new UnsafeUrlError("URLs with credentials are not allowed");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (BLOCKED_NAMES.test(host)) throw new UnsafeUrlError(`Refused host ${host}: not a public address`);
  const literal = isIpLiteral(host);
  const addresses = literal ? [host] : await resolve(host).catch((err) => {
    throw new UnsafeUrlError(`Could not resolve ${host}: ${err instanceof Error ? err.message : err}`);
  });
  if (addresses.length === 0) throw new UnsafeUrlError(`Could not resolve ${host}`);
  for (const a of addresses) {
    const why = blockedAddress(a);
    if (why) throw new UnsafeUrlError(`Refused ${host}: it resolves to ${a}, ${why}`);
  }
  return url;
}

/** The URL when its host is one `allow` names (host, or host:port), else null; http(s) only. */
export function allowedHost(raw: string, allow: readonly string[] | undefined): URL | null {
  if (!allow?.length) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password) return null;
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return allow.some((a) => {
      const entry = a.trim().toLowerCase();
      return entry !== "" && (entry === host || entry === `${host}:${port}`);
    })
    ? url
    : null;
}

export async function safeFetch(raw: string, opts: SafeFetchOptions = {}): Promise<SafeResponse> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxRedirects = opts.maxRedirects ?? 3;
  const doFetch = opts.fetch ?? fetch;
  const signal = AbortSignal.timeout(timeoutMs);
  let method = (opts.method ?? "GET").toUpperCase();
  let body = opts.body;
  let url = raw;
  try {
    for (let hop = 0;; hop++) {
      const target = allowedHost(url, opts.allowHosts) ?? await checkUrl(url, opts.resolve);
      const res = await doFetch(target, { method, headers: opts.headers, body, redirect: "manual", signal });
      if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
        await res.body?.cancel();
        if (hop >= maxRedirects) throw new UnsafeUrlError(`More than ${maxRedirects} redirects`);
        url = new URL(res.headers.get("location")!, target).toString();
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      const maxBytes = opts.maxBytes ?? 1024 * 1024;
      const bytes = await readStreamBytesCapped(
        res.body,
        maxBytes,
        () => new UnsafeUrlError(`The response is larger than ${maxBytes} bytes`),
      );
      const raw = opts.responseType === "bytes";
      return {
        status: res.status,
        headers: Object.fromEntries(res.headers),
        body: raw ? "" : new TextDecoder().decode(bytes),
        url: target.toString(),
        redirects: hop,
        ...(raw ? { bytes } : {}),
      };
    }
  } catch (err) {
    if (signal.aborted) throw new UnsafeUrlError(`The request took longer than ${timeoutMs} ms`);
    throw err;
  }
}
