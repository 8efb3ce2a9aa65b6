/**
 * Fixed-window rate limits for public endpoints (ai-rerank): one counter per (scope, key, window)
 * in Postgres (public.rate_limit_hit, migration 20260210000100_rate_limits.sql), so every
 * instance of a function shares the same budget; a budget for all callers is one more scope
 * with a constant key. A failure to count is not a free pass: it throws (the caller answers
 * 503), never silently allows.
 *
 * The key of a public caller is the client address the platform vouches for: the right-most
 * entry of X-Forwarded-For, which the platform's gateway appends from the TCP peer (Kong's
 * proxy_add_x_forwarded_for; stack/gateway.ts locally). Entries to its left are whatever the
 * client sent and are never read, so rewriting the header per request changes no key. Then
 * X-Real-IP (the gateway overwrites a client-sent one with the peer), else `unknown` (only a
 * request that bypassed the gateway has neither; all such share one budget).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "./errors.ts";

export interface RateLimitVerdict {
  allowed: boolean;
  hits: number;
  limit: number;
  /** Seconds until the current window ends (the 429's Retry-After). */
  retryAfter: number;
}

export async function hitRateLimit(
  service: SupabaseClient,
  scope: string,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<RateLimitVerdict> {
  const { data, error } = await service.rpc("rate_limit_hit", {
    p_scope: scope,
    p_key: key,
    p_limit: limit,
    p_window_seconds: windowSeconds,
  });
  if (error) {
    throw DomainError.unavailable(
      `The rate limiter is unavailable: ${error.message}`,
      "rate_limiter_unavailable",
    );
  }
  const r = data as { allowed: boolean; hits: number; limit: number; retry_after: number };
  return { allowed: r.allowed, hits: r.hits, limit: r.limit, retryAfter: r.retry_after };
}

/** The client address a rate limit is keyed on (see the module doc). */
export function clientAddress(headers: Headers): string {
  const forwarded = headers.get("x-forwarded-for");
  if (forwarded) {
    const hops = forwarded.split(",").map((s) => s.trim()).filter(Boolean);
    if (hops.length) return hops[hops.length - 1].slice(0, 100);
  }
  const real = headers.get("x-real-ip")?.trim();
  return real ? real.slice(0, 100) : "unknown";
}
