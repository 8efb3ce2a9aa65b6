/**
 * Publishing (social-publish, social-publish-cron). Stages: check the post against its
 * platform's rules (platforms.ts) -> record it (social_posts) -> send it to the provider with
 * publishNow -> record the provider's outcome. Publishing costs no credits (spec Limits).
 *
 * - publish_now: the post is recorded `publishing`, sent at once, and answered with the
 *   provider's status (published; `publishing` when the provider publishes asynchronously, its
 *   webhook finishes it). A provider refusal marks it failed and answers 502.
 * - schedule: scheduled_at must be in the future; the post is recorded `scheduled` (no provider
 *   call yet, so late_post_id is null) and the per-minute tick (runDuePosts) claims it with
 *   social_claim_due_posts once it is due and publishes it exactly once: overlapping ticks never
 *   claim the same row, and the post id goes out as x-request-id.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { accountById, actingUser } from "./accounts.ts";
import { createPost, type LateClient } from "./late.ts";
import { checkPlatformLimits, type MediaKind, mediaKindOf, type Platform } from "./platforms.ts";
import type { PublishBody } from "./schemas.ts";
import { runTick } from "../scheduling/tick.ts";

export interface PostRow {
  id: string;
  workspace_id: string;
  social_account_id: string;
  platform: Platform;
  content: string;
  media_url: string | null;
  media_type: MediaKind | null;
  status: string;
  scheduled_at: string | null;
  late_post_id: string | null;
}

export interface PublishAnswer {
  success: true;
  post_id: string;
  late_post_id: string | null;
  status: string;
  scheduled_at?: string | null;
  platform_post_url?: string | null;
}

const POST_COLUMNS =
  "id, workspace_id, social_account_id, platform, content, media_url, media_type, status, scheduled_at, late_post_id";

export async function publishPost(s: WorkspaceScope, late: LateClient, req: PublishBody, now = new Date()) {
  const account = await accountById(s.service, req.social_account_id);
  if (account.workspace_id !== s.workspaceId) {
    throw DomainError.notFound("Social account not found", "account_not_found");
  }
  if (!account.is_active) {
    throw DomainError.conflict(
      "The social account is disconnected: connect it again",
      undefined,
      "account_disconnected",
    );
  }
  const mediaUrl = req.media_url ?? null;
  const kind = mediaUrl ? mediaKindOf(mediaUrl, req.media_type ?? null) : null;
  checkPlatformLimits({
    platform: account.platform,
    content: req.content,
    media: mediaUrl ? { url: mediaUrl, kind } : null,
  });
  const base = {
    workspace_id: s.workspaceId,
    social_account_id: account.id,
    platform: account.platform,
    content: req.content,
    media_url: mediaUrl,
    media_type: kind,
    created_by: actingUser(s),
  };
  if (req.action === "schedule") {
    if (!req.scheduled_at) {
      throw DomainError.invalid(
        "scheduled_at is required to schedule a post",
        undefined,
        "validation_failed",
      );
    }
    const at = new Date(req.scheduled_at);
    if (at.getTime() <= now.getTime()) {
      throw DomainError.invalid(
        "scheduled_at must be in the future",
        { scheduled_at: req.scheduled_at },
        "validation_failed",
      );
    }
    const { data, error } = await s.service.from("social_posts")
      .insert({ ...base, status: "scheduled", scheduled_at: at.toISOString() }).select(POST_COLUMNS).single();
    if (error) throw DomainError.internal(`Could not schedule the post: ${error.message}`);
    const row = data as PostRow;
    return {
      success: true,
      post_id: row.id,
      late_post_id: null,
      status: "scheduled",
      scheduled_at: row.scheduled_at,
    };
  }
  if (req.scheduled_at) {
    throw DomainError.invalid(
      "publish_now takes no scheduled_at (use action schedule)",
      undefined,
      "validation_failed",
    );
  }
  const { data, error } = await s.service.from("social_posts")
    .insert({ ...base, status: "publishing", claimed_at: now.toISOString(), publish_attempts: 1 })
    .select(POST_COLUMNS).single();
  if (error) throw DomainError.internal(`Could not record the post: ${error.message}`);
  const done = await sendPost(s.service, late, data as PostRow, account.late_account_id);
  if (done.status === "failed") {
    throw new DomainError(
      "upstream",
      "publish_failed",
      `The provider could not publish the post: ${done.error}`,
      {
        post_id: done.post_id,
        late_post_id: done.late_post_id,
      },
    );
  }
  return {
    success: true,
    post_id: done.post_id,
    late_post_id: done.late_post_id,
    status: done.status,
    platform_post_url: done.platform_post_url,
  };
}

export interface SendOutcome {
  post_id: string;
  late_post_id: string | null;
  status: string;
  platform_post_url: string | null;
  error: string | null;
}

const STATUS_OF: Record<string, string> = { published: "published", failed: "failed", partial: "partial" };

/** Sends a claimed (`publishing`) post to the provider and records the outcome; never throws. */
export async function sendPost(
  service: SupabaseClient,
  late: LateClient,
  post: PostRow,
  lateAccountId: string,
): Promise<SendOutcome> {
  let patch: Record<string, unknown>;
  try {
    const made = await createPost(late, {
      content: post.content,
      ...(post.media_url ? { mediaItems: [{ type: post.media_type ?? "image", url: post.media_url }] } : {}),
      platforms: [{ platform: post.platform, accountId: lateAccountId }],
      publishNow: true,
    }, post.id);
    if ("duplicateOf" in made) {
      patch = { late_post_id: made.duplicateOf, status: "published", published_at: new Date().toISOString() };
    } else {
      const mine = made.post.platforms?.find((p) => p.platform === post.platform);
      const status = STATUS_OF[mine?.status ?? made.post.status] ?? STATUS_OF[made.post.status] ??
        "publishing";
      patch = {
        late_post_id: made.post._id,
        status,
        platform_post_id: mine?.platformPostId ?? null,
        platform_post_url: mine?.platformPostUrl ?? null,
        published_at: status === "published" ? (mine?.publishedAt ?? new Date().toISOString()) : null,
        error_message: status === "failed" || status === "partial"
          ? (mine?.errorMessage ?? "The provider reported a failure")
          : null,
      };
    }
  } catch (err) {
    const message = err instanceof DomainError ? err.message : "The social provider failed";
    patch = { status: "failed", error_message: message.slice(0, 1000) };
  }
  // Only a post still `publishing` takes the answer: a webhook that already finished it wins.
  const { error } = await service.from("social_posts").update(patch).eq("id", post.id).eq(
    "status",
    "publishing",
  );
  if (error) console.error(`social-publish: recording post ${post.id} failed: ${error.message}`);
  const { data } = await service.from("social_posts").select(
    "status, late_post_id, platform_post_url, error_message",
  )
    .eq("id", post.id).maybeSingle();
  const row = (data ?? patch) as Record<string, string | null>;
  return {
    post_id: post.id,
    late_post_id: row.late_post_id ?? null,
    status: row.status ?? String(patch.status),
    platform_post_url: row.platform_post_url ?? null,
    error: row.error_message ?? null,
  };
}

/**
 * One scheduler tick: claims the due posts in batches of `batch` and publishes each once, until
 * none is due or `budgetMs` has passed (the rest wait for the next minute's tick), so a backlog
 * drains faster than one batch a minute without a tick outliving its pg_net timeout (the shared
 * tick, scheduling/tick.ts).
 */
export async function runDuePosts(
  service: SupabaseClient,
  late: () => LateClient,
  opts: { batch?: number; budgetMs?: number } = {},
) {
  const batch = opts.batch ?? 50;
  // The provider's configuration first: a tick that cannot publish claims nothing.
  const client = late();
  const t = await runTick({
    name: "social-publish",
    now: new Date(),
    claim: async () => {
      const { data, error } = await service.rpc("social_claim_due_posts", { p_limit: batch });
      if (error) throw DomainError.internal(`Could not claim the due posts: ${error.message}`);
      return (data ?? []) as PostRow[];
    },
    run: (post) => publishClaimed(service, client, post),
    batch,
    budgetMs: opts.budgetMs ?? 20_000,
  });
  return { claimed: t.claimed.length, posts: t.results };
}

async function publishClaimed(
  service: SupabaseClient,
  client: LateClient,
  post: PostRow,
): Promise<SendOutcome> {
  const acc = await service.from("social_accounts").select("late_account_id, is_active")
    .eq("id", post.social_account_id).maybeSingle();
  if (!acc.data?.is_active) {
    await service.from("social_posts")
      .update({
        status: "failed",
        error_message: "The social account was disconnected before the post was due",
      })
      .eq("id", post.id).eq("status", "publishing");
    return {
      post_id: post.id,
      late_post_id: null,
      status: "failed",
      platform_post_url: null,
      error: "account disconnected",
    };
  }
  return await sendPost(service, client, post, acc.data.late_account_id as string);
}
