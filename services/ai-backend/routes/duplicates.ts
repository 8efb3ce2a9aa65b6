/**
 * Duplicate-material detection and merge (spec "Duplicate detection (AI backend)"), API 1.0. The
 * work is packages/shared/duplicates (store.ts over the pure detection; schemas.ts).
 *
 * Everything acts as the caller, through their JWT: RLS scopes every read and write to the
 * workspaces they belong to, and merge_products / undo_merge check the caller's role again from
 * auth.uid(). workspace_id in a request is only ever a filter the caller must hold a role in
 * (outsiders 404, too low a role 403), and product ids must belong to it.
 *
 *   detect, cached                 any member of the workspace (viewers too)
 *   batch-detect, update-status    owner, admin or member: both write detections
 *   merge, undo-merge, history     owner or admin: a merge deletes products
 *
 * user_id (update-status, merge, undo-merge) is accepted for the spec's sake but never trusted:
 * the acting user is the JWT's. A user_id other than the caller's is a 403; with the
 * service-role key there is no user to compare it with, and nothing is recorded in its name.
 */
import { createRoute } from "@hono/zod-openapi";
import { caller, db, PRICING_ROLES, WRITER_ROLES } from "@shared/auth/context.ts";
import { workspaceScope } from "@shared/auth/scope.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import {
  batchDetectAndStore,
  cachedDetections,
  checkUserId,
  detectForProduct,
  mergeHistory,
  mergeProducts,
  undoMerge,
  updateStatus,
} from "@shared/duplicates/store.ts";
import {
  batchSchema,
  cachedQuery,
  detectSchema,
  historyQuery,
  mergeSchema,
  statusSchema,
  undoSchema,
} from "@shared/duplicates/schemas.ts";
import { router } from "../env.ts";

const tags = ["Duplicate detection"];

export function duplicateRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/detect",
      tags,
      summary: "Duplicates of one product in its workspace, best first (empty when it has no factory)",
      request: jsonBody(detectSchema),
      responses: {
        ...okJson("{product_id, factory, similarity_threshold, matches: [...]}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const scope = await workspaceScope(c, body.workspace_id);
      return c.json(await detectForProduct(scope, body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/batch-detect",
      tags,
      summary:
        "Every duplicate pair of the workspace, stored in the detection cache (status kept on re-runs)",
      request: jsonBody(batchSchema),
      responses: { ...okJson("{pairs: [...], duplicates_found, stats}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const scope = await workspaceScope(
        c,
        body.workspace_id,
        WRITER_ROLES,
        "Detecting and storing duplicates",
      );
      return c.json(await batchDetectAndStore(scope, body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/duplicates/cached",
      tags,
      summary: "Stored detections of a workspace, best first; filter by status and minimum similarity",
      request: { query: cachedQuery },
      responses: { ...okJson("{detections: [...], total, limit, offset}"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      return c.json(await cachedDetections(await workspaceScope(c, q.workspace_id), q), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/update-status",
      tags,
      summary: "Set a detection's status (pending, reviewed, merged, dismissed); the reviewer is the caller",
      request: jsonBody(statusSchema),
      responses: { ...okJson("{detection}"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await updateStatus(db(c), caller(c).userId, body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/merge",
      tags,
      summary: "Merge source products into a target (one transaction); returns the merge history record",
      request: jsonBody(mergeSchema),
      responses: {
        ...okJson("{history}"),
        ...errorResponses,
        409: { description: "A row cannot be moved to the target (see the message)" },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      checkUserId(caller(c).userId, body.user_id);
      const scope = await workspaceScope(c, body.workspace_id, PRICING_ROLES, "Merging products");
      return c.json(await mergeProducts(scope, body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/duplicates/undo-merge",
      tags,
      summary: "Undo a merge: sources restored with their ids, relationships moved back, target reverted",
      request: jsonBody(undoSchema),
      responses: {
        ...okJson("{history}"),
        ...errorResponses,
        409: { description: "Already undone, or the products changed so that it cannot be undone" },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await undoMerge(db(c), caller(c).userId, body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/duplicates/merge-history",
      tags,
      summary: "Merges of a workspace, newest first (owners and admins)",
      request: { query: historyQuery },
      responses: { ...okJson("{history: [...], total, limit, offset}"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const scope = await workspaceScope(c, q.workspace_id, PRICING_ROLES, "Reading the merge history");
      return c.json(await mergeHistory(scope, q), 200);
    },
  );

  return app;
}
