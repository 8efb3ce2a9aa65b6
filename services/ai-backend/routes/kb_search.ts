/**
 * KB search: kb_search (POST /api/kb/search) and search_knowledge_base
 * (POST /api/rag/search/knowledge-base). Both embed the query (input type `query`) and call the
 * hybrid SQL function as the caller, so RLS decides what is visible. kb_search answers `results`;
 * search_knowledge_base answers `chunks` (the spec: "Response: chunks as in Resources"), the same
 * member through the gateway (`data.chunks`). With category_slug pricing, search_knowledge_base
 * is the quick-pick mode: no language model, chunks with exactly the spec's seven fields, ordered
 * by relevance_score. Domain: packages/shared/kb/knowledge_base.ts.
 *
 * Any member of the workspace may search (outsiders 404); pricing data (the Pricing category,
 * admin-level categories, price_doc_type filters) is for owners and admins: a member gets 403.
 */
import { createRoute } from "@hono/zod-openapi";
import { workspaceScope } from "@shared/auth/scope.ts";
import { kbSearchSchema, searchKnowledgeBaseSchema } from "@shared/kb/schemas.ts";
import { kbSearch, knowledgeBase } from "@shared/kb/knowledge_base.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { router } from "../env.ts";

const tags = ["Knowledge base"];

export function kbSearchRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/kb/search",
      tags,
      summary: "Hybrid (vector + full text) search of KB chunks with category, type and access filters",
      request: jsonBody(kbSearchSchema),
      responses: {
        ...okJson("{results: [...]}, each with category_slug, category_name, price_doc_type"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const scope = await workspaceScope(c, body.workspace_id);
      return c.json(await kbSearch(scope, c.get("cfg").embeddings, body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/search/knowledge-base",
      tags,
      summary: "search_knowledge_base; with category_slug pricing the quick-pick mode (no language model)",
      request: jsonBody(searchKnowledgeBaseSchema),
      responses: {
        ...okJson(
          "{mode, query, chunks: [...], total_results}; quick-pick chunks carry exactly the spec's seven fields",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const scope = await workspaceScope(c, body.workspace_id);
      return c.json(await knowledgeBase(scope, c.get("cfg").embeddings, body), 200);
    },
  );

  return app;
}
