/**
 * social-analytics: post metrics and account insights pulled from the provider and stored, and
 * the best times to post computed from the account's own history.
 *
 * - get_post_analytics: for each of the workspace's posts among post_ids that the provider has
 *   (late_post_id set), GET /v1/analytics?postId and upsert likes, comments, shares, reach
 *   (plus impressions, saves, clicks, views, engagement_rate) into social_post_analytics. Answer
 *   {success, analytics: [rows], pending: [post ids the provider is still syncing, or not yet
 *   published], not_found: [ids not in the workspace]}.
 * - get_account_insights: the last 30 days (UTC): follower count (follower-stats, else the
 *   account's own count), reach and impressions (the analytics overview); one row per account
 *   and day in social_account_insights.
 * - get_best_time: the account's published posts with stored metrics, grouped by UTC weekday and
 *   hour of publication; engagement = likes + comments + shares + saves; the top 3 slots by
 *   average engagement (ties: more posts, then earlier in the week). No history: an empty list.
 */
import { DomainError } from "../errors.ts";
import { readInGroups } from "../supabase/postgrest.ts";
import type { SocialAccountRow } from "./accounts.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { accountOverview, type LateClient, latestFollowers, postAnalytics } from "./late.ts";
import type { Platform } from "./platforms.ts";

export async function refreshPostAnalytics(s: WorkspaceScope, late: LateClient, postIds: string[]) {
  const ids = [...new Set(postIds)];
  const { data, error } = await s.service.from("social_posts")
    .select("id, social_account_id, late_post_id").eq("workspace_id", s.workspaceId).in("id", ids);
  if (error) throw DomainError.internal(`Could not read the posts: ${error.message}`);
  const posts = (data ?? []) as { id: string; social_account_id: string; late_post_id: string | null }[];
  const found = new Set(posts.map((p) => p.id));
  const pending: string[] = [];
  const rows: Record<string, unknown>[] = [];
  for (const post of posts) {
    const a = post.late_post_id ? await postAnalytics(late, post.late_post_id) : null;
    if (!a) {
      pending.push(post.id);
      continue;
    }
    rows.push({
      post_id: post.id,
      workspace_id: s.workspaceId,
      social_account_id: post.social_account_id,
      likes: Math.round(a.likes),
      comments: Math.round(a.comments),
      shares: Math.round(a.shares),
      reach: Math.round(a.reach),
      impressions: Math.round(a.impressions),
      saves: Math.round(a.saves),
      clicks: Math.round(a.clicks),
      views: Math.round(a.views),
      engagement_rate: Math.round(a.engagementRate * 10_000) / 10_000,
      fetched_at: new Date().toISOString(),
    });
  }
  let analytics: Record<string, unknown>[] = [];
  if (rows.length > 0) {
    const up = await s.service.from("social_post_analytics").upsert(rows, { onConflict: "post_id" }).select(
      "*",
    );
    if (up.error) throw DomainError.internal(`Could not store the analytics: ${up.error.message}`);
    analytics = up.data ?? [];
  }
  return { success: true, analytics, pending, not_found: ids.filter((id) => !found.has(id)) };
}

const day = (d: Date) => d.toISOString().slice(0, 10);

export async function refreshAccountInsights(
  s: WorkspaceScope,
  late: LateClient,
  account: SocialAccountRow,
  now = new Date(),
) {
  const to = day(now);
  const from = day(new Date(now.getTime() - 30 * 86_400_000));
  const followers = (await latestFollowers(late, account.late_account_id, from, to)) ??
    account.followers_count;
  const { reach, impressions } = await accountOverview(late, account.late_account_id, from, to);
  const { data, error } = await s.service.from("social_account_insights").upsert({
    workspace_id: account.workspace_id,
    social_account_id: account.id,
    date: to,
    followers_count: followers,
    reach,
    impressions,
    period_start: from,
    period_end: to,
    fetched_at: now.toISOString(),
  }, { onConflict: "social_account_id,date" }).select("*").single();
  if (error) throw DomainError.internal(`Could not store the insights: ${error.message}`);
  if (followers !== null) {
    await s.service.from("social_accounts").update({ followers_count: followers }).eq("id", account.id);
  }
  return { success: true, insights: data };
}

export const WEEKDAYS = [
  "sunday",
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
] as const;

export interface HistoryPost {
  published_at: string;
  likes: number;
  comments: number;
  shares: number;
  saves: number;
}

export interface BestTime {
  day: (typeof WEEKDAYS)[number];
  day_of_week: number;
  hour: number;
  avg_engagement: number;
  post_count: number;
}

/** The top `top` UTC weekday/hour slots of a post history by average engagement. */
export function bestTimesFrom(history: readonly HistoryPost[], top = 3): BestTime[] {
  const slots = new Map<string, { dow: number; hour: number; total: number; count: number }>();
  for (const p of history) {
    const at = new Date(p.published_at);
    if (Number.isNaN(at.getTime())) continue;
    const dow = at.getUTCDay();
    const hour = at.getUTCHours();
    const key = `${dow}:${hour}`;
    const slot = slots.get(key) ?? { dow, hour, total: 0, count: 0 };
    slot.total += p.likes + p.comments + p.shares + p.saves;
    slot.count += 1;
    slots.set(key, slot);
  }
  return [...slots.values()]
    .map((s) => ({ ...s, avg: s.total / s.count }))
    .sort((a, b) => b.avg - a.avg || b.count - a.count || a.dow - b.dow || a.hour - b.hour)
    .slice(0, top)
    .map((s) => ({
      day: WEEKDAYS[s.dow],
      day_of_week: s.dow,
      hour: s.hour,
      avg_engagement: Math.round(s.avg * 100) / 100,
      post_count: s.count,
    }));
}

export async function bestTimes(s: WorkspaceScope, account: SocialAccountRow, platform: Platform) {
  if (platform !== account.platform) {
    throw DomainError.invalid(
      `The account is a ${account.platform} account, not ${platform}`,
      undefined,
      "platform_mismatch",
    );
  }
  const posts = await s.service.from("social_posts").select("id, published_at")
    .eq("social_account_id", account.id).eq("status", "published").not("published_at", "is", null)
    .order("published_at", { ascending: false }).limit(1000);
  if (posts.error) throw DomainError.internal(`Could not read the post history: ${posts.error.message}`);
  const when = new Map((posts.data ?? []).map((p) => [p.id as string, p.published_at as string]));
  const history: HistoryPost[] = [];
  if (when.size > 0) {
    // Up to 1,000 post ids: one `in` list of them all would be a ~39 kB URL (414 from a hosted
    // gateway), so they are read in groups (each well under max_rows: one metrics row per post).
    const metrics = await readInGroups(
      [...when.keys()],
      (list) =>
        s.service.from("social_post_analytics").select("post_id, likes, comments, shares, saves")
          .filter("post_id", "in", list),
    );
    if (metrics.error) throw DomainError.internal(`Could not read the metrics: ${metrics.error.message}`);
    for (const m of metrics.data) {
      history.push({
        published_at: when.get(m.post_id as string)!,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        saves: m.saves,
      });
    }
  }
  return {
    success: true,
    best_times: bestTimesFrom(history),
    based_on_posts: history.length,
    timezone: "UTC",
  };
}
