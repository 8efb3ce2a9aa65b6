/**
 * Request bodies of the social functions (spec "Social functions"), reused for OpenAPI. Where
 * the spec is silent: `redirect_url` (connect; where the provider sends the browser back, with
 * our `state` added), `media_type` (publish; when the URL's extension does not tell), `post_id`
 * and `late_post_id` in answers (late_post_id is null for a post still waiting for its tick).
 * Bodies are strict, nested objects too: a key an action does not declare (another action's key
 * included) is a 400 naming it (docs/request-bodies.md).
 */
import { z } from "@hono/zod-openapi";
import { PLATFORMS } from "./platforms.ts";

export const PlatformName = z.enum(PLATFORMS);
const Uuid = z.uuid();

const HttpUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const OAuthBody = z.discriminatedUnion("action", [
  z.strictObject({
    action: z.literal("connect"),
    platform: PlatformName,
    workspace_id: Uuid,
    redirect_url: HttpUrl.optional(),
  }),
  z.strictObject({
    action: z.literal("callback"),
    late_account_id: z.string().min(1).max(200),
    platform: PlatformName,
    workspace_id: Uuid,
    state: z.string().min(10).max(2000),
  }),
  z.strictObject({ action: z.literal("disconnect"), social_account_id: Uuid }),
]);
export type OAuthBody = z.infer<typeof OAuthBody>;

export const OAuthListQuery = z.object({ action: z.literal("list"), workspace_id: Uuid });

export const PublishBody = z.strictObject({
  action: z.enum(["publish_now", "schedule"]),
  social_account_id: Uuid,
  workspace_id: Uuid,
  content: z.string().trim().min(1, "content must not be empty").max(70_000),
  media_url: HttpUrl.nullish(),
  media_type: z.enum(["image", "video"]).nullish(),
  scheduled_at: z.iso.datetime({ offset: true }).nullish(),
});
export type PublishBody = z.infer<typeof PublishBody>;

export const AnalyticsBody = z.discriminatedUnion("action", [
  z.strictObject({
    action: z.literal("get_post_analytics"),
    post_ids: z.array(Uuid).min(1).max(100),
    workspace_id: Uuid,
  }),
  z.strictObject({ action: z.literal("get_account_insights"), social_account_id: Uuid }),
  z.strictObject({ action: z.literal("get_best_time"), social_account_id: Uuid, platform: PlatformName }),
]);
export type AnalyticsBody = z.infer<typeof AnalyticsBody>;

export const ContentBody = z.strictObject({
  topic: z.string().trim().min(1).max(500),
  platform: PlatformName,
  tone: z.string().trim().min(1).max(60).default("professional"),
  product_info: z.strictObject({
    name: z.string().trim().min(1).max(200),
    category: z.string().trim().max(200).optional(),
  }).optional(),
  include_hashtags: z.boolean().default(true),
  hashtag_count: z.number().int().min(1).max(30).default(5),
  workspace_id: Uuid,
});
export type ContentBody = z.infer<typeof ContentBody>;

export const IMAGE_TYPES = ["lifestyle", "people", "product", "interior", "artistic", "textured"] as const;
export const ASPECT_RATIOS = ["1:1", "4:5", "9:16", "16:9"] as const;

export const ImageBody = z.strictObject({
  prompt: z.string().trim().min(1).max(4000),
  image_type: z.enum(IMAGE_TYPES),
  aspect_ratio: z.enum(ASPECT_RATIOS).default("1:1"),
  workspace_id: Uuid,
  model: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "model must be a model name").optional(),
});
export type ImageBody = z.infer<typeof ImageBody>;
