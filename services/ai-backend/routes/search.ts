/**
 * Search suggestions (gateway group Search): autocomplete, typo-correction, query-expansion,
 * trending, analytics, recommendations and track-click under /api/search. Any member of a
 * workspace (viewers included) may use them; results never leave the caller's workspaces:
 * `workspace_id` narrows to one workspace the caller belongs to (404 otherwise), without it
 * every workspace of the caller is searched; the service-role key must name one. None is
 * billable. Domain: packages/shared/suggestions.
 */
import { createRoute } from "@hono/zod-openapi";
import { access, caller, requireWorkspaceRole, serviceDb } from "@shared/auth/context.ts";
import { HttpError } from "@shared/http/errors.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import {
  AnalyticsRequest,
  autocomplete,
  AutocompleteRequest,
  ClickRequest,
  queryExpansion,
  recommendations,
  RecommendationsQuery,
  searchAnalytics,
  TextRequest,
  trackClick,
  trending,
  TrendingQuery,
  typoCorrection,
} from "@shared/suggestions/mod.ts";
import { type Ctx, router } from "../env.ts";

const tags = ["Search suggestions"];

/** The workspaces a request may read (see the module doc). */
async function scope(c: Ctx, workspaceId: string | undefined): Promise<string[]> {
  if (workspaceId) {
    await requireWorkspaceRole(c, workspaceId, null);
    return [workspaceId];
  }
  if (caller(c).kind === "service") {
    throw HttpError.badRequest("workspace_id is required with the service-role key", [
      { path: ["workspace_id"], message: "required" },
    ]);
  }
  return (await access(c)).workspaces.map((w) => w.workspace_id);
}

export function searchRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/search/autocomplete",
      tags,
      summary: "Suggestions for a prefix: recent queries, then product names (trigram-backed)",
      request: jsonBody(AutocompleteRequest),
      responses: { ...okJson("{query, suggestions: [{text, type, ...}], took_ms}"), ...errorResponses },
    }),
    async (c) => {
      const r = c.req.valid("json");
      return c.json(await autocomplete(serviceDb(c), await scope(c, r.workspace_id), r.query, r.limit), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/search/typo-correction",
      tags,
      summary: "Correct misspelled words from the product-name vocabulary",
      request: jsonBody(TextRequest),
      responses: {
        ...okJson("{original_query, corrected_query, has_corrections, corrections: [...]}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const r = c.req.valid("json");
      return c.json(await typoCorrection(serviceDb(c), await scope(c, r.workspace_id), r.query), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/search/query-expansion",
      tags,
      summary: "Synonyms and related terms of a query",
      request: jsonBody(TextRequest),
      responses: {
        ...okJson("{original_query, expanded_query, expanded_terms, synonyms, related_terms}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const r = c.req.valid("json");
      return c.json(await queryExpansion(serviceDb(c), await scope(c, r.workspace_id), r.query), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/search/trending",
      tags,
      summary: "The most frequent searches of the last `days`, with growth against the period before",
      request: { query: TrendingQuery },
      responses: {
        ...okJson("{days, trending: [{query, count, previous_count, growth_percent, ...}]}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const r = c.req.valid("query");
      return c.json(await trending(serviceDb(c), await scope(c, r.workspace_id), r.days, r.limit), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/search/analytics",
      tags,
      summary: "Record a search (with query and workspace_id) and read the period's search analytics",
      request: jsonBody(AnalyticsRequest),
      responses: { ...okJson("{recorded: {id, created_at} | null, analytics: {...}}"), ...errorResponses },
    }),
    async (c) => {
      const r = c.req.valid("json");
      const workspaces = await scope(c, r.workspace_id);
      return c.json(await searchAnalytics(serviceDb(c), workspaces, caller(c).userId, r), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/search/recommendations",
      tags,
      summary: "Suggested searches: the caller's recent ones, popular ones, most clicked products",
      request: { query: RecommendationsQuery },
      responses: { ...okJson("{recent: [...], popular: [...], products: [...]}"), ...errorResponses },
    }),
    async (c) => {
      const r = c.req.valid("query");
      const workspaces = await scope(c, r.workspace_id);
      return c.json(await recommendations(serviceDb(c), workspaces, caller(c).userId, r.limit), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/search/track-click",
      tags,
      summary: "Record which suggestion the user picked",
      request: jsonBody(ClickRequest),
      responses: { ...okJson("{tracked: true, click: {id, created_at}}", 201), ...errorResponses },
    }),
    async (c) => {
      const r = c.req.valid("json");
      await scope(c, r.workspace_id);
      return c.json(await trackClick(serviceDb(c), caller(c).userId, r), 201);
    },
  );

  return app;
}
