/**
 * /functions/v1/recommendations-api (spec "Recommendations"): interactions of signed-in users
 * and collaborative-filtering recommendations over them (packages/shared/recommendations/).
 *
 * Who may do what: a user tracks interactions only as themself, only in workspaces they belong
 * to, and only for that workspace's materials; recommendations and similar materials are for
 * members of the workspace; analytics for its owners and admins; DELETE /cache clears only the
 * caller's own lists. A workspace the caller is not a member of is a 404.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import {
  db,
  MEMBER_ROLES,
  requireUser,
  requireWorkspaceRole,
  serviceDb,
  userOnly,
} from "@shared/auth/context.ts";
import {
  Analytics,
  analytics,
  AnalyticsQuery,
  CacheCleared,
  CacheQuery,
  clearCache,
  ForUserQuery,
  RecommendationList,
  recommendForUser,
  requireMaterial,
  similarMaterials,
  SimilarQuery,
  trackInteraction,
  TrackInteractionBody,
  TrackInteractionResponse,
  Uuid,
} from "@shared/recommendations/mod.ts";

const tags = ["Recommendations"];
const ANALYTICS_ROLES = ["owner", "admin"] as const;
const app = createFunctionApp("recommendations-api");
for (const path of ["/track-interaction", "/for-user", "/similar-materials/*", "/cache"]) {
  app.use(path, userOnly);
}

app.openapi(
  createRoute({
    method: "post",
    path: "/track-interaction",
    tags,
    summary: "Record the caller's interaction with a material (invalidates the affected cached lists)",
    request: jsonBody(TrackInteractionBody),
    responses: { ...okJson("The interaction", 201, TrackInteractionResponse), ...errorResponses },
  }),
  async (c) => {
    const who = requireUser(c);
    const body = c.req.valid("json");
    await requireWorkspaceRole(c, body.workspace_id, MEMBER_ROLES);
    const data = await trackInteraction(db(c), who.userId, body);
    return c.json({ data, message: "Interaction tracked" }, 201);
  },
);

app.openapi(
  createRoute({
    method: "get",
    path: "/for-user",
    tags,
    summary: "Recommendations for the caller (user_user or item_item; limit 20; popularity on cold start)",
    request: { query: ForUserQuery },
    responses: { ...okJson("Recommendations, best first", 200, RecommendationList), ...errorResponses },
  }),
  async (c) => {
    const who = requireUser(c);
    const q = c.req.valid("query");
    await requireWorkspaceRole(c, q.workspace_id, MEMBER_ROLES);
    const r = await recommendForUser(serviceDb(c), {
      workspaceId: q.workspace_id,
      userId: who.userId,
      algorithm: q.algorithm,
      limit: q.limit,
      includePurchased: q.include_purchased,
    });
    return c.json(r, 200);
  },
);

app.openapi(
  createRoute({
    method: "get",
    path: "/similar-materials/{material_id}",
    tags,
    summary: "Materials similar to one material (item-item cosine; limit 10)",
    request: { params: z.object({ material_id: Uuid }), query: SimilarQuery },
    responses: { ...okJson("Similar materials, best first", 200, RecommendationList), ...errorResponses },
  }),
  async (c) => {
    const who = requireUser(c);
    const { material_id } = c.req.valid("param");
    const q = c.req.valid("query");
    await requireWorkspaceRole(c, q.workspace_id, MEMBER_ROLES);
    await requireMaterial(db(c), q.workspace_id, material_id);
    const r = await similarMaterials(serviceDb(c), {
      workspaceId: q.workspace_id,
      userId: who.userId,
      materialId: material_id,
      limit: q.limit,
    });
    return c.json(r, 200);
  },
);

app.openapi(
  createRoute({
    method: "get",
    path: "/analytics/{workspace_id}",
    tags,
    summary: "Interaction analytics of a workspace over the last `days` days (owners and admins)",
    request: { params: z.object({ workspace_id: Uuid }), query: AnalyticsQuery },
    responses: { ...okJson("Analytics", 200, z.object({ data: Analytics })), ...errorResponses },
  }),
  async (c) => {
    const { workspace_id } = c.req.valid("param");
    const { days } = c.req.valid("query");
    await requireWorkspaceRole(c, workspace_id, ANALYTICS_ROLES, "Recommendation analytics");
    const data = await analytics(serviceDb(c), workspace_id, days);
    return c.json({ data: data as z.infer<typeof Analytics> }, 200);
  },
);

app.openapi(
  createRoute({
    method: "delete",
    path: "/cache",
    tags,
    summary: "Clear the caller's cached lists, optionally only of one workspace or material",
    request: { query: CacheQuery },
    responses: { ...okJson("How many lists were cleared", 200, CacheCleared), ...errorResponses },
  }),
  async (c) => {
    const who = requireUser(c);
    const filter = c.req.valid("query");
    const deleted = await clearCache(db(c), who.userId, filter);
    return c.json({ data: { deleted }, message: "Recommendation cache cleared" }, 200);
  },
);

export default app;
