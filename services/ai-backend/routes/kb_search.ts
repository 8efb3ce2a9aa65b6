/**
 * KB search: kb_search (POST /api/kb/search) and search_knowledge_base
 * (POST /api/rag/search/knowledge-base). Both embed the query (input type `query`) and call the
 * hybrid SQL function as the caller, so RLS decides what is visible. kb_search answers `results`;
 * search_knowledge_base answers `chunks` (the spec: "Response: chunks as in Resources"), the same
 * member through the gateway (`data.chunks`). With category_slug pricing, search_knowledge_base
 * is the quick-pick mode: no language model, chunks with exactly the spec's seven fields, ordered
 * by relevance_score.
 *
 * Pricing data (the Pricing category, admin-level categories, price_doc_type filters) is for
 * owners and admins of the workspace: a member gets 403, an outsider 404.
 */
import { createRoute } from "@hono/zod-openapi";
import { kbSearchSchema, searchKnowledgeBaseSchema } from "@shared/kb/schemas.ts";
import { allowedAccessLevels, isQuickPick, toQuickPick, toSearchHit } from "@shared/kb/search.ts";
import { router } from "../env.ts";
import { hybridSearch, searchKnowledgeBase } from "../kb/knowledge_base.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";

export function kbSearchRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/kb/search",
      tags: ["Knowledge base"],
      summary: "Hybrid (vector + full text) search of KB chunks with category, type and access filters",
      request: jsonBody(kbSearchSchema),
      responses: {
        ...okJson("{results: [...]}, each with category_slug, category_name, price_doc_type"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const rows = await hybridSearch(c, {
        workspace_id: body.workspace_id,
        query: body.query,
        limit: body.limit,
        threshold: body.match_threshold,
        category_id: body.category_id,
        category_slug: body.category_slug,
        price_doc_type: body.price_doc_type,
        require_published: body.require_published,
        access_levels: body.allowed_access_levels ?? null,
      });
      return c.json({ query: body.query, results: rows.map(toSearchHit), total_results: rows.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/search/knowledge-base",
      tags: ["Knowledge base"],
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
      if (isQuickPick(body.category_slug)) {
        // Quick pick: the Pricing category's KB chunks only, with exactly the spec's fields.
        const rows = await hybridSearch(c, {
          workspace_id: body.workspace_id,
          query: body.query,
          limit: body.top_k,
          threshold: body.similarity_threshold,
          category_slug: body.category_slug,
          category_id: body.category_id,
          price_doc_type: body.price_doc_type,
          require_published: false,
          access_levels: allowedAccessLevels(body.caller, undefined),
        });
        const skipped = body.search_types.filter((t) => t !== "kb_docs");
        return c.json({
          mode: "quick_pick",
          query: body.query,
          chunks: rows.map(toQuickPick),
          total_results: rows.length,
          ...(skipped.length ? { skipped_search_types: skipped } : {}),
        }, 200);
      }
      return c.json(await searchKnowledgeBase(c, body), 200);
    },
  );

  return app;
}
