/**
 * KB search: kb_search (POST /api/kb/search) and search_knowledge_base
 * (POST /api/rag/search/knowledge-base). Both embed the query (input type `query`) and call the
 * hybrid SQL function as the caller, so RLS decides what is visible. With category_slug pricing,
 * search_knowledge_base is the quick-pick mode: no language model, results with exactly the
 * spec's seven fields, ordered by relevance_score.
 *
 * Pricing data (the Pricing category, admin-level categories, price_doc_type filters) is for
 * owners and admins of the workspace: a member gets 403, an outsider 404.
 */
import { createRoute } from "@hono/zod-openapi";
import { HttpError } from "@shared/http/errors.ts";
import {
  type AccessLevel,
  kbSearchSchema,
  PRICING_SLUG,
  searchKnowledgeBaseSchema,
} from "@shared/kb/schemas.ts";
import {
  allowedAccessLevels,
  type HybridRow,
  isQuickPick,
  toQuickPick,
  toSearchHit,
} from "@shared/kb/search.ts";
import { toPgVector } from "@shared/embeddings/provider.ts";
import { db, requireWorkspaceRole } from "@shared/auth/context.ts";
import { type Ctx, router } from "../env.ts";
import { dbError } from "@shared/supabase/postgrest.ts";
import { categoryOf, requirePricingRole } from "../kb/access.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";

interface SearchParams {
  workspace_id: string;
  query: string;
  limit: number;
  threshold: number;
  category_id?: string;
  category_slug?: string;
  price_doc_type?: string | string[];
  require_published: boolean;
  access_levels: AccessLevel[] | null;
}

/** Authorises, embeds the query, runs kb_hybrid_search. */
async function hybridSearch(c: Ctx, p: SearchParams): Promise<HybridRow[]> {
  await requireWorkspaceRole(c, p.workspace_id, null);
  const pricing = p.category_slug === PRICING_SLUG || p.price_doc_type !== undefined ||
    (p.access_levels?.length === 1 && p.access_levels[0] === "admin");
  if (pricing) await requirePricingRole(c, p.workspace_id);
  else if (p.category_id && (await categoryOf(c, p.workspace_id, p.category_id)).access_level === "admin") {
    await requirePricingRole(c, p.workspace_id);
  }
  const [vector] = await c.get("cfg").embeddings.embed([p.query], "query");
  const { data, error } = await db(c).rpc("kb_hybrid_search", {
    p_workspace_id: p.workspace_id,
    p_query_text: p.query,
    p_query_embedding: toPgVector(vector),
    p_match_count: p.limit,
    p_match_threshold: p.threshold,
    p_category_id: p.category_id ?? null,
    p_category_slug: p.category_slug ?? null,
    p_price_doc_types: p.price_doc_type === undefined ? null : [p.price_doc_type].flat(),
    p_require_published: p.require_published,
    p_access_levels: p.access_levels,
  });
  if (error) throw dbError(error, "Knowledge-base search");
  return (data ?? []) as HybridRow[];
}

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
        ...okJson("{mode, results: [...]}; quick-pick results carry exactly the spec's seven fields"),
        ...errorResponses,
        501: { description: "Only search types that are not built yet were requested" },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      // Products, entities and document chunks are searched by the RAG pipeline, a later part.
      const skipped = body.search_types.filter((t) => t !== "kb_docs");
      if (skipped.length === body.search_types.length) {
        throw HttpError.notImplemented(
          `search_types ${
            skipped.join(", ")
          } are served by the RAG pipeline, which is not built yet; use kb_docs`,
        );
      }
      const quick = isQuickPick(body.category_slug);
      const rows = await hybridSearch(c, {
        workspace_id: body.workspace_id,
        query: body.query,
        limit: body.top_k,
        threshold: body.similarity_threshold,
        category_id: body.category_id,
        category_slug: body.category_slug,
        price_doc_type: body.price_doc_type,
        require_published: false,
        access_levels: allowedAccessLevels(body.caller, undefined),
      });
      return c.json({
        mode: quick ? "quick_pick" : "hybrid",
        query: body.query,
        results: quick ? rows.map(toQuickPick) : rows.map(toSearchHit),
        total_results: rows.length,
        ...(skipped.length ? { skipped_search_types: skipped } : {}),
      }, 200);
    },
  );

  return app;
}
