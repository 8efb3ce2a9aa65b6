/**
 * zod schemas of recommendations-api (spec "Recommendations"; defaults from its "Limits"):
 * for-user 20, similar-materials 10, analytics days 30. Limits mirror the table checks in
 * supabase/migrations/20260204000100_recommendations.sql. The track-interaction body is strict
 * (an undeclared key is a 400 naming it); `metadata` is the client's own free-form object.
 */
import { z } from "zod";

export const Uuid = z.guid();

export const INTERACTION_TYPES = [
  "view",
  "click",
  "save",
  "purchase",
  "rate",
  "add_to_quote",
  "share",
] as const;
export type InteractionType = (typeof INTERACTION_TYPES)[number];

const bool = z.enum(["true", "false"]).transform((v) => v === "true");

export const TrackInteractionBody = z.strictObject({
  workspace_id: Uuid,
  material_id: Uuid,
  interaction_type: z.enum(INTERACTION_TYPES),
  // rate: the stars, 1 to 5; the other types: a count (quantity, seconds ...), 1 by default.
  interaction_value: z.number().min(0).max(1e9).optional(),
  session_id: z.string().trim().min(1).max(200).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
}).superRefine((b, ctx) => {
  if (b.interaction_type !== "rate") return;
  if (b.interaction_value === undefined || b.interaction_value < 1 || b.interaction_value > 5) {
    ctx.addIssue({
      code: "custom",
      path: ["interaction_value"],
      message: "a rate interaction needs interaction_value between 1 and 5 (stars)",
    });
  }
});

export const ForUserQuery = z.object({
  workspace_id: Uuid,
  limit: z.coerce.number().int().min(1).max(100).default(20),
  algorithm: z.enum(["user_user", "item_item"]).default("user_user"),
  // Materials the caller purchased are left out unless this is true.
  include_purchased: bool.default(false),
});

export const SimilarQuery = z.object({
  workspace_id: Uuid,
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

export const AnalyticsQuery = z.object({
  days: z.coerce.number().int().min(1).max(365).default(30),
});

export const CacheQuery = z.object({
  workspace_id: Uuid.optional(),
  material_id: Uuid.optional(),
});

// ---- responses ----

export const RecommendationSchema = z.object({
  material_id: z.uuid(),
  score: z.number().min(0).max(1),
  confidence: z.number().min(0).max(1),
  algorithm: z.enum(["user_user", "item_item", "popularity"]),
}).meta({ id: "Recommendation" });

export const RecommendationList = z.object({ data: z.array(RecommendationSchema), cached: z.boolean() });

export const InteractionRow = z.looseObject({
  id: z.uuid(),
  workspace_id: z.uuid(),
  user_id: z.uuid(),
  material_id: z.uuid(),
  interaction_type: z.enum(INTERACTION_TYPES),
  interaction_value: z.number(),
  weight: z.number(),
  session_id: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
}).meta({ id: "MaterialInteraction" });

export const TrackInteractionResponse = z.object({ data: InteractionRow, message: z.string() });

export const Analytics = z.looseObject({
  workspace_id: z.uuid(),
  days: z.number().int(),
  since: z.string(),
  total_interactions: z.number().int(),
  unique_users: z.number().int(),
  unique_materials: z.number().int(),
  total_weight: z.number(),
  by_type: z.record(z.string(), z.number().int()),
  daily: z.array(z.object({ date: z.string(), interactions: z.number().int() })),
  top_materials: z.array(z.looseObject({ material_id: z.uuid(), name: z.string() })),
}).meta({ id: "RecommendationAnalytics" });

export const CacheCleared = z.object({ data: z.object({ deleted: z.number().int() }), message: z.string() });
