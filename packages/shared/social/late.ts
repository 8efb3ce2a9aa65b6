/**
 * The publishing provider: Late (getlate.dev, renamed Zernio) over its documented HTTP API
 * (providers.md §6a; shapes from late-node's generated OpenAPI types), with fetch:
 *
 *   LATE_API_KEY   the key (`Authorization: Bearer sk_...`); ZERNIO_API_KEY is read when it is unset.
 *                  Without either the social functions answer 503 social_provider_not_configured.
 *   LATE_BASE_URL  optional, default https://getlate.dev/api (the local platform points it at the
 *                  sandbox stand-in); paths below are appended to it (/v1/posts ...).
 *
 * Endpoints used: POST /v1/profiles, GET /v1/connect/{platform}, GET /v1/accounts,
 * DELETE /v1/accounts/{id}, POST /v1/posts (x-request-id for idempotency), GET /v1/analytics
 * (one post, or an account's list with its overview), GET /v1/accounts/follower-stats.
 * Errors are `{error, details?}`; any non-2xx becomes a DomainError `upstream` (502) naming the
 * status, except where a caller handles the status itself (409 duplicate post, 202/424 analytics).
 */
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";
import type { Platform } from "./platforms.ts";

const DEFAULT_BASE_URL = "https://getlate.dev/api";
const TIMEOUT_MS = 30_000;

export interface LateAccount {
  _id: string;
  platform: string;
  profileId: string;
  username?: string;
  displayName?: string;
  profilePicture?: string;
  profileUrl?: string;
  isActive: boolean;
  followersCount?: number;
}

export interface LatePostPlatform {
  platform: string;
  accountId: string;
  status?: string;
  platformPostId?: string;
  platformPostUrl?: string;
  publishedAt?: string;
  errorMessage?: string;
}

export interface LatePost {
  _id: string;
  status: "draft" | "scheduled" | "publishing" | "published" | "failed" | "partial";
  platforms: LatePostPlatform[];
  scheduledFor?: string | null;
}

export interface LateCreatePost {
  content: string;
  mediaItems?: { type: "image" | "video"; url: string }[];
  platforms: { platform: Platform; accountId: string }[];
  publishNow?: boolean;
  scheduledFor?: string;
}

export interface LatePostAnalytics {
  impressions: number;
  reach: number;
  likes: number;
  comments: number;
  shares: number;
  saves: number;
  clicks: number;
  views: number;
  engagementRate: number;
}

export interface LateClient {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{
    status: number;
    body: Record<string, unknown>;
  }>;
}

/** The Late client from the function environment; 503 when no key is configured. */
export function lateFromEnv(): LateClient {
  const key = env("LATE_API_KEY") ?? env("ZERNIO_API_KEY");
  if (!key) {
    throw new DomainError(
      "unavailable",
      "social_provider_not_configured",
      "The social publishing provider is not configured: set LATE_API_KEY (and LATE_BASE_URL for a stand-in)",
    );
  }
  const base = (env("LATE_BASE_URL") ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
  return {
    async request(method, path, body, headers = {}) {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        throw new DomainError(
          "upstream",
          "social_provider_unreachable",
          "The social provider could not be reached",
          {
            cause: (err as Error).name,
          },
        );
      }
      const text = await res.text();
      let parsed: unknown = {};
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch (_) {
          // A non-JSON answer is a provider failure, reported with its status below.
          parsed = { error: `non-JSON answer (HTTP ${res.status})` };
        }
      }
      return { status: res.status, body: (parsed ?? {}) as Record<string, unknown> };
    },
  };
}

function providerError(what: string, r: { status: number; body: Record<string, unknown> }): DomainError {
  const said = typeof r.body.error === "string" ? `: ${r.body.error.slice(0, 300)}` : "";
  return new DomainError(
    "upstream",
    "social_provider_error",
    `${what}: the social provider answered HTTP ${r.status}${said}`,
    {
      provider_status: r.status,
    },
  );
}

function ok(what: string, r: { status: number; body: Record<string, unknown> }) {
  if (r.status < 200 || r.status > 299) throw providerError(what, r);
  return r.body;
}

export async function createProfile(late: LateClient, name: string): Promise<string> {
  const body = ok("Creating the workspace's profile", await late.request("POST", "/v1/profiles", { name }));
  const profile = (body.profile ?? body) as { _id?: string };
  if (!profile._id) throw providerError("Creating the workspace's profile", { status: 502, body: {} });
  return profile._id;
}

export async function connectUrl(
  late: LateClient,
  platform: Platform,
  profileId: string,
  redirectUrl: string,
): Promise<string> {
  const q = new URLSearchParams({ profileId, redirect_url: redirectUrl });
  const body = ok("Starting the OAuth connection", await late.request("GET", `/v1/connect/${platform}?${q}`));
  if (typeof body.authUrl !== "string") {
    throw providerError("Starting the OAuth connection (no authUrl)", { status: 502, body: {} });
  }
  return body.authUrl;
}

export async function listAccounts(
  late: LateClient,
  profileId: string,
  platform: Platform,
): Promise<LateAccount[]> {
  const q = new URLSearchParams({ profileId, platform });
  const body = ok("Reading the connected accounts", await late.request("GET", `/v1/accounts?${q}`));
  return Array.isArray(body.accounts) ? body.accounts as LateAccount[] : [];
}

/** Removes the account at the provider; one it no longer knows (404) counts as removed. */
export async function deleteAccount(late: LateClient, accountId: string): Promise<void> {
  const r = await late.request("DELETE", `/v1/accounts/${encodeURIComponent(accountId)}`);
  if (r.status !== 404) ok("Disconnecting the account", r);
}

/**
 * Creates (and with publishNow publishes) a post. `requestId` goes out as x-request-id: a repeat
 * within the provider's window returns the post already made; identical content to the same
 * account (409 with existingPostId) is reported as that post, never as a second one.
 */
export async function createPost(
  late: LateClient,
  post: LateCreatePost,
  requestId: string,
): Promise<{ post: LatePost } | { duplicateOf: string }> {
  const r = await late.request("POST", "/v1/posts", post, { "x-request-id": requestId });
  if (r.status === 409 && typeof r.body.existingPostId === "string") {
    return { duplicateOf: r.body.existingPostId };
  }
  const body = ok("Publishing the post", r);
  const made = (body.post ?? body.existingPost) as LatePost | undefined;
  if (!made?._id) {
    throw providerError("Publishing the post (no post in the answer)", { status: 502, body: {} });
  }
  return { post: made };
}

/** One post's metrics; null while the provider is still syncing them (202) or cannot (424). */
export async function postAnalytics(late: LateClient, latePostId: string): Promise<LatePostAnalytics | null> {
  const r = await late.request("GET", `/v1/analytics?${new URLSearchParams({ postId: latePostId })}`);
  if (r.status === 202 || r.status === 424) return null;
  const body = ok("Reading the post's analytics", r);
  const a = (body.analytics ?? {}) as Partial<Record<keyof LatePostAnalytics, unknown>>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
  return {
    impressions: n(a.impressions),
    reach: n(a.reach),
    likes: n(a.likes),
    comments: n(a.comments),
    shares: n(a.shares),
    saves: n(a.saves),
    clicks: n(a.clicks),
    views: n(a.views),
    engagementRate: n(a.engagementRate),
  };
}

/** An account's totals over [from, to] (the list endpoint's overview). */
export async function accountOverview(
  late: LateClient,
  accountId: string,
  from: string,
  to: string,
): Promise<{ reach: number; impressions: number }> {
  const q = new URLSearchParams({ accountId, fromDate: from, toDate: to, limit: "1" });
  const body = ok("Reading the account's analytics", await late.request("GET", `/v1/analytics?${q}`));
  const o = (body.overview ?? {}) as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  return { reach: n(o.totalReach), impressions: n(o.totalImpressions) };
}

/** The latest follower count of an account over [from, to], or null when the provider has none. */
export async function latestFollowers(
  late: LateClient,
  accountId: string,
  from: string,
  to: string,
): Promise<number | null> {
  const q = new URLSearchParams({ accountIds: accountId, fromDate: from, toDate: to, granularity: "daily" });
  const body = ok(
    "Reading the follower stats",
    await late.request("GET", `/v1/accounts/follower-stats?${q}`),
  );
  const series = ((body.stats ?? {}) as Record<string, { date: string; followers: number }[]>)[accountId] ??
    [];
  const last = [...series].sort((a, b) => a.date.localeCompare(b.date)).at(-1);
  return last && typeof last.followers === "number" ? last.followers : null;
}
