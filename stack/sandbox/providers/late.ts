/**
 * Stand-in for Late / Zernio, the social publishing API (providers.md §6a; shapes from late-node's
 * generated OpenAPI types): profiles, the OAuth connect round trip, accounts, posts, analytics
 * and follower stats, with errors as `{error, details?}` and webhooks signed as Late signs them
 * (hex HMAC-SHA256 of the raw body under the webhook's secret, in X-Zernio-Signature).
 *
 * | endpoint                                   | answer                                             |
 * | ------------------------------------------ | -------------------------------------------------- |
 * | POST/GET /v1/profiles                      | {message, profile} / {profiles}                    |
 * | GET /v1/connect/{platform}?profileId&redirect_url | {authUrl, state}                            |
 * | GET /oauth/authorize?state (the authUrl)   | creates the account, 302 to redirect_url?connected=&profileId=&accountId=&username= |
 * | GET /v1/accounts?profileId&platform        | {accounts, hasAnalyticsAccess}                     |
 * | DELETE /v1/accounts/{id}                   | {message}                                          |
 * | GET /v1/accounts/follower-stats?accountIds | {accounts, stats: {id: [{date, followers}]}}       |
 * | POST /v1/posts                             | 201 {message, post}; repeated x-request-id within 5 min: 200 {message, existingPost}; same content to the same account within 24 h: 409 {error, existingPostId} |
 * | GET /v1/posts/{id}                         | {post}                                             |
 * | GET /v1/analytics?postId                   | {postId, status, analytics, platformAnalytics, platformPostUrl, syncStatus}; 202 while pending |
 * | GET /v1/analytics?accountId&fromDate&toDate | {overview: {totalPosts, totalImpressions, totalReach, totalLikes, totalComments, totalShares}, posts, pagination} |
 *
 * Publishing with publishNow answers `published` (or `failed` when a test scripted failNextPublish)
 * and, when code uses the sandbox (webhookUrl set) and autoWebhooks is on, sends post.published /
 * post.failed to our webhook right after answering; `settled()` waits for those. Tests script
 * metrics (setAnalytics, setFollowers, analyticsPending) and send any event (postEvent,
 * commentEvent, sendEvent). The sandbox page shows profiles, accounts, posts and events.
 */
import { type CallbackResult, StandIn, type StandInRequest } from "../standin.ts";
import { type LateSandboxAccount, type LateSandboxPost, renderLatePanel } from "./late_viewer.ts";

export type { LateSandboxAccount, LateSandboxPost, LateSandboxPostPlatform } from "./late_viewer.ts";

type Obj = Record<string, unknown>;

export const LATE_PLATFORMS = [
  "facebook",
  "instagram",
  "linkedin",
  "twitter",
  "tiktok",
  "youtube",
  "threads",
  "reddit",
  "pinterest",
  "bluesky",
  "googlebusiness",
  "telegram",
  "snapchat",
  "discord",
];

export interface LateMetrics {
  impressions: number;
  reach: number;
  likes: number;
  comments: number;
  shares: number;
  saves: number;
  clicks: number;
  views: number;
}

const ZERO: LateMetrics = {
  impressions: 0,
  reach: 0,
  likes: 0,
  comments: 0,
  shares: 0,
  saves: 0,
  clicks: 0,
  views: 0,
};
const enc = new TextEncoder();
const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
/** Late's ids are Mongo ObjectIds: 24 hex characters. */
const objectId = () => hex(crypto.getRandomValues(new Uint8Array(12)));
const REQUEST_ID_WINDOW_MS = 5 * 60_000;
const DUPLICATE_WINDOW_MS = 24 * 3_600_000;

/** Late's webhook signature: lowercase hex HMAC-SHA256 of the raw body. */
export async function lateSignature(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body))));
}

export class LateStandIn extends StandIn {
  readonly name = "late";
  /** Where events go: our social-webhook-handler (set by the registry when code uses the sandbox). */
  webhookUrl = "";
  /**
   * The webhook's secret, given to code as LATE_WEBHOOK_SECRET: made up here, replaced by the sandbox
   * with a configured or kept one.
   */
  webhookSecret = `late_whsec_${hex(crypto.getRandomValues(new Uint8Array(24)))}`;
  /** Send post.published / post.failed on its own after a publish (tests may turn it off). */
  autoWebhooks = true;
  readonly profiles = new Map<string, { _id: string; name: string; color: string; isDefault: boolean }>();
  readonly accounts = new Map<string, LateSandboxAccount>();
  readonly posts = new Map<string, LateSandboxPost>();
  /** Events sent, oldest first. */
  readonly events: { id: string; event: string; postId: string | null; status: number; at: string }[] = [];
  readonly #connects = new Map<string, { platform: string; profileId: string; redirectUrl: string }>();
  readonly #requestIds = new Map<string, { postId: string; at: number }>();
  readonly #metrics = new Map<string, LateMetrics>();
  readonly #pendingAnalytics = new Set<string>();
  readonly #followers = new Map<string, number>();
  #failPublish: string[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();

  override reset(): void {
    super.reset();
    this.profiles.clear();
    this.accounts.clear();
    this.posts.clear();
    this.events.length = 0;
    this.#connects.clear();
    this.#requestIds.clear();
    this.#metrics.clear();
    this.#pendingAnalytics.clear();
    this.#followers.clear();
    this.#failPublish = [];
    this.autoWebhooks = true;
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    return Response.json({ error: message }, { status, headers });
  }

  protected override async signCallback(_url: string, body: string, headers: Headers): Promise<void> {
    headers.set("x-zernio-signature", await lateSignature(this.webhookSecret, body));
  }

  // ---- scripting (tests) ----

  /** The next `times` publishes come back failed with `message` (per platform, as Late reports). */
  failNextPublish(message = "The platform rejected the post", times = 1): this {
    for (let i = 0; i < times; i++) this.#failPublish.push(message);
    return this;
  }

  setAnalytics(postId: string, metrics: Partial<LateMetrics>): this {
    this.#metrics.set(postId, { ...(this.#metrics.get(postId) ?? ZERO), ...metrics });
    this.#pendingAnalytics.delete(postId);
    return this;
  }

  /** GET /v1/analytics?postId answers 202 (sync pending) until setAnalytics. */
  analyticsPending(postId: string): this {
    this.#pendingAnalytics.add(postId);
    return this;
  }

  setFollowers(accountId: string, followers: number): this {
    this.#followers.set(accountId, followers);
    return this;
  }

  /** Connects an account under a profile directly (what the OAuth round trip does). */
  connectAccount(profileId: string, platform: string, username?: string): LateSandboxAccount {
    const id = objectId();
    const name = username ?? `sandbox_${platform}_${id.slice(-6)}`;
    const account: LateSandboxAccount = {
      _id: id,
      platform,
      profileId,
      username: name,
      displayName: `Sandbox ${platform} ${id.slice(-6)}`,
      profilePicture: `${this.baseUrl}/_sandbox/avatar/${id}.png`,
      profileUrl: `https://${platform}.example/${name}`,
      isActive: true,
      followersCount: 0,
      createdAt: new Date().toISOString(),
    };
    this.accounts.set(id, account);
    return account;
  }

  /** Waits for the webhooks the stand-in sent on its own. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Sends one event, signed (`sign: false` to send it unsigned); the envelope gets id and timestamp. */
  async sendEvent(
    event: string,
    data: Obj,
    opts: { id?: string; timestamp?: string; sign?: boolean } = {},
  ): Promise<CallbackResult & { payload: Obj }> {
    if (!this.webhookUrl) throw new Error("the Late sandbox has no webhook URL (code does not use it)");
    const payload: Obj = {
      id: opts.id ?? `evt_${objectId()}`,
      event,
      ...data,
      timestamp: opts.timestamp ?? new Date().toISOString(),
    };
    const r = await this.sendCallback(this.webhookUrl, payload, { sign: opts.sign });
    const postId =
      ((data.post as Obj | undefined)?.id ?? (data.comment as Obj | undefined)?.postId ?? null) as
        | string
        | null;
    this.events.push({
      id: payload.id as string,
      event,
      postId,
      status: r.status,
      at: payload.timestamp as string,
    });
    return { ...r, payload };
  }

  /** The post.* event payload for a stored post, as Late sends it. */
  postPayload(postId: string): Obj {
    const post = this.posts.get(postId);
    if (!post) throw new Error(`the Late sandbox has no post ${postId}`);
    return {
      post: {
        id: post._id,
        content: post.content,
        status: post.status,
        scheduledFor: post.scheduledFor,
        publishedAt: post.platforms.find((p) => p.publishedAt)?.publishedAt,
        platforms: post.platforms.map((p) => ({
          platform: p.platform,
          status: p.status,
          platformPostId: p.platformPostId,
          publishedUrl: p.platformPostUrl,
          error: p.errorMessage,
        })),
      },
    };
  }

  postEvent(postId: string, event: string, opts: { id?: string; timestamp?: string; sign?: boolean } = {}) {
    return this.sendEvent(event, this.postPayload(postId), opts);
  }

  commentEvent(postId: string, text: string, opts: { id?: string; timestamp?: string } = {}) {
    const post = this.posts.get(postId);
    if (!post) throw new Error(`the Late sandbox has no post ${postId}`);
    return this.sendEvent("comment.received", {
      comment: { id: objectId(), postId, platform: post.platforms[0]?.platform, text, author: "sandbox_fan" },
    }, opts);
  }

  /** The sandbox page's panel: profiles, accounts, posts and events. */
  panel(_query: URLSearchParams): string {
    return renderLatePanel({
      profiles: [...this.profiles.values()],
      accounts: [...this.accounts.values()].reverse(),
      posts: [...this.posts.values()].reverse(),
      events: [...this.events].reverse(),
      webhookUrl: this.webhookUrl,
    });
  }

  // ---- the API ----

  protected override async route(req: StandInRequest): Promise<Response> {
    const parts = req.path.replace(/\/+$/, "").split("/").filter(Boolean);
    if (parts[0] === "oauth" && parts[1] === "authorize" && req.method === "GET") return this.#authorize(req);
    if (parts[0] === "_sandbox" && parts[1] === "posts" && parts[3] === "events" && req.method === "POST") {
      // The panel's "send event" form (not part of Late's API).
      const event = new URLSearchParams(req.text).get("event") ?? "";
      if (!this.posts.has(parts[2]) || !/^post\.(published|failed|partial|cancelled)$/.test(event)) {
        return this.errorResponse(400, "unknown post or event");
      }
      await this.postEvent(parts[2], event);
      return new Response(null, { status: 303, headers: { location: "/?provider=late" } });
    }
    if (!/^Bearer\s+\S+/i.test(req.headers.get("authorization") ?? "")) {
      return this.errorResponse(401, "Unauthorized");
    }
    if (parts[0] !== "v1") return this.errorResponse(404, `Not found: ${req.method} ${req.path}`);
    const [, resource, id, sub] = parts;
    const q = req.url.searchParams;
    if (resource === "profiles" && !id) {
      if (req.method === "GET") return Response.json({ profiles: [...this.profiles.values()] });
      if (req.method === "POST") {
        const b = req.json() as Obj | undefined;
        if (!b || typeof b.name !== "string" || !b.name.trim()) {
          return this.errorResponse(400, "name is required");
        }
        const profile = {
          _id: objectId(),
          name: b.name,
          color: "#4f46e5",
          isDefault: this.profiles.size === 0,
        };
        this.profiles.set(profile._id, profile);
        return Response.json({ message: "Profile created successfully", profile }, { status: 201 });
      }
    }
    if (resource === "connect" && id && req.method === "GET") {
      if (!LATE_PLATFORMS.includes(id)) return this.errorResponse(400, `Unsupported platform: ${id}`);
      const profileId = q.get("profileId") ?? "";
      if (!this.profiles.has(profileId)) return this.errorResponse(404, "Profile not found");
      const redirectUrl = q.get("redirect_url");
      if (!redirectUrl || !URL.canParse(redirectUrl)) {
        return this.errorResponse(400, "redirect_url is required");
      }
      const state = objectId();
      this.#connects.set(state, { platform: id, profileId, redirectUrl });
      return Response.json({ authUrl: `${this.baseUrl}/oauth/authorize?state=${state}`, state });
    }
    if (resource === "accounts") {
      if (id === "follower-stats" && req.method === "GET") return this.#followerStats(q);
      if (!id && req.method === "GET") {
        const accounts = [...this.accounts.values()].filter((a) =>
          a.isActive && (!q.get("profileId") || a.profileId === q.get("profileId")) &&
          (!q.get("platform") || a.platform === q.get("platform"))
        ).map((a) => ({ ...a, followersCount: this.#followers.get(a._id) ?? a.followersCount }));
        return Response.json({ accounts, hasAnalyticsAccess: true });
      }
      if (id && !sub && req.method === "DELETE") {
        const account = this.accounts.get(id);
        if (!account || !account.isActive) return this.errorResponse(404, "Account not found");
        account.isActive = false;
        return Response.json({ message: "Account disconnected successfully" });
      }
    }
    if (resource === "posts") {
      if (!id && req.method === "POST") return this.#createPost(req);
      if (id && req.method === "GET") {
        const post = this.posts.get(id);
        return post ? Response.json({ post: this.#shown(post) }) : this.errorResponse(404, "Post not found");
      }
    }
    if (resource === "analytics" && !id && req.method === "GET") return this.#analytics(q);
    return this.errorResponse(404, `Not found: ${req.method} ${req.path}`);
  }

  #authorize(req: StandInRequest): Response {
    const state = req.url.searchParams.get("state") ?? "";
    const pending = this.#connects.get(state);
    if (!pending) return this.errorResponse(400, "Invalid or expired OAuth state");
    this.#connects.delete(state);
    const account = this.connectAccount(
      pending.profileId,
      pending.platform,
      req.url.searchParams.get("username") ?? undefined,
    );
    const to = new URL(pending.redirectUrl);
    to.searchParams.set("connected", pending.platform);
    to.searchParams.set("profileId", pending.profileId);
    to.searchParams.set("accountId", account._id);
    to.searchParams.set("username", account.username);
    return new Response(null, { status: 302, headers: { location: to.toString() } });
  }

  #followerStats(q: URLSearchParams): Response {
    const ids = (q.get("accountIds") ?? "").split(",").filter(Boolean);
    const date = new Date().toISOString().slice(0, 10);
    const known = ids.map((i) => this.accounts.get(i)).filter((a): a is LateSandboxAccount => !!a);
    const stats = Object.fromEntries(known.map((a) => [a._id, [{
      date,
      followers: this.#followers.get(a._id) ?? a.followersCount,
    }]]));
    return Response.json({
      accounts: known.map((a) => ({ _id: a._id, platform: a.platform, username: a.username })),
      stats,
    });
  }

  #shown(post: LateSandboxPost): Obj {
    const { requestId: _, ...rest } = post;
    return rest;
  }

  #createPost(req: StandInRequest): Response {
    const b = req.json() as Obj | undefined;
    if (!b || typeof b !== "object") return this.errorResponse(400, "Invalid JSON body");
    const platforms = b.platforms as { platform?: string; accountId?: string }[] | undefined;
    if (!Array.isArray(platforms) || platforms.length === 0) {
      return this.errorResponse(400, "At least one platform is required");
    }
    for (const p of platforms) {
      const account = this.accounts.get(p.accountId ?? "");
      if (!account || !account.isActive || account.platform !== p.platform) {
        return this.errorResponse(400, `Account ${p.accountId} not found for ${p.platform}`);
      }
    }
    const content = typeof b.content === "string" ? b.content : "";
    const media = Array.isArray(b.mediaItems) ? b.mediaItems as { type: string; url: string }[] : [];
    if (!content && media.length === 0) return this.errorResponse(400, "content or mediaItems is required");
    const now = Date.now();
    const requestId = req.headers.get("x-request-id");
    const seen = requestId ? this.#requestIds.get(requestId) : undefined;
    if (seen && now - seen.at < REQUEST_ID_WINDOW_MS) {
      return Response.json({
        message: "Post already exists",
        existingPost: this.#shown(this.posts.get(seen.postId)!),
      });
    }
    for (const other of this.posts.values()) {
      if (
        other.content === content && now - Date.parse(other.createdAt) < DUPLICATE_WINDOW_MS &&
        other.platforms.some((op) => platforms.some((p) => p.accountId === op.accountId))
      ) {
        return Response.json({
          error: "This exact content was already posted to this account within the last 24 hours",
          existingPostId: other._id,
        }, { status: 409 });
      }
    }
    const id = objectId();
    const publishNow = b.publishNow === true;
    const scheduledFor = typeof b.scheduledFor === "string" ? b.scheduledFor : null;
    const failure = publishNow ? this.#failPublish.shift() : undefined;
    const at = new Date(now).toISOString();
    const post: LateSandboxPost = {
      _id: id,
      content,
      mediaItems: media,
      status: b.isDraft === true
        ? "draft"
        : publishNow
        ? (failure ? "failed" : "published")
        : scheduledFor
        ? "scheduled"
        : "draft",
      platforms: platforms.map((p) => {
        const account = this.accounts.get(p.accountId!)!;
        if (!publishNow) return { platform: p.platform!, accountId: p.accountId!, status: "pending" };
        if (failure) {
          return { platform: p.platform!, accountId: p.accountId!, status: "failed", errorMessage: failure };
        }
        const platformPostId = `${p.platform}_${objectId().slice(0, 12)}`;
        return {
          platform: p.platform!,
          accountId: p.accountId!,
          status: "published",
          platformPostId,
          platformPostUrl: `https://${p.platform}.example/${account.username}/posts/${platformPostId}`,
          publishedAt: at,
        };
      }),
      scheduledFor,
      createdAt: at,
      requestId,
    };
    this.posts.set(id, post);
    if (requestId) this.#requestIds.set(requestId, { postId: id, at: now });
    if (publishNow && this.autoWebhooks && this.webhookUrl) {
      const event = failure ? "post.failed" : "post.published";
      // After the answer is on its way, as the provider's queue would.
      const sent = new Promise((resolve) => setTimeout(resolve, 10)).then(() => this.postEvent(id, event))
        .catch((err) => console.error(`late sandbox: sending ${event} failed: ${err}`));
      this.#inFlight.add(sent);
      sent.finally(() => this.#inFlight.delete(sent));
    }
    return Response.json({ message: "Post created successfully", post: this.#shown(post) }, { status: 201 });
  }

  #analytics(q: URLSearchParams): Response {
    const postId = q.get("postId");
    if (postId) {
      const post = this.posts.get(postId);
      if (!post) return this.errorResponse(404, "Post not found");
      if (this.#pendingAnalytics.has(postId)) {
        return Response.json({
          postId,
          status: post.status,
          syncStatus: "pending",
          message: "Analytics sync in progress",
        }, {
          status: 202,
        });
      }
      const m = this.#metrics.get(postId) ?? ZERO;
      const engagementRate = m.impressions > 0
        ? Math.round(((m.likes + m.comments + m.shares + m.saves) / m.impressions) * 10_000) / 100
        : 0;
      return Response.json({
        postId,
        status: post.status,
        analytics: { ...m, engagementRate, lastUpdated: new Date().toISOString() },
        platformAnalytics: post.platforms.map((p) => ({ platform: p.platform, ...m })),
        platformPostUrl: post.platforms[0]?.platformPostUrl ?? null,
        syncStatus: "synced",
      });
    }
    const accountId = q.get("accountId");
    const from = q.get("fromDate") ? Date.parse(q.get("fromDate")!) : 0;
    const to = q.get("toDate") ? Date.parse(q.get("toDate")!) + 86_400_000 : Infinity;
    const posts = [...this.posts.values()].filter((p) =>
      (!accountId || p.platforms.some((x) => x.accountId === accountId)) &&
      Date.parse(p.createdAt) >= from && Date.parse(p.createdAt) < to
    );
    const sum = (k: keyof LateMetrics) => posts.reduce((n, p) => n + (this.#metrics.get(p._id)?.[k] ?? 0), 0);
    return Response.json({
      overview: {
        totalPosts: posts.length,
        totalImpressions: sum("impressions"),
        totalReach: sum("reach"),
        totalLikes: sum("likes"),
        totalComments: sum("comments"),
        totalShares: sum("shares"),
      },
      posts: posts.map((p) => ({
        _id: p._id,
        status: p.status,
        analytics: this.#metrics.get(p._id) ?? ZERO,
      })),
      pagination: { page: 1, limit: posts.length, total: posts.length, pages: 1 },
    });
  }
}
