/**
 * Retrieval and grounded answers over processed documents (issue 25):
 *
 *   POST /api/rag/search           rag_search: six strategies (packages/shared/rag/search.ts)
 *   POST /api/rag/search/mmr       rag_search_mmr: hybrid candidates re-ranked by MMR (lambda, k, fetch_k)
 *   POST /api/rag/search/advanced  rag_search_advanced: a text strategy with every filter
 *   POST /api/rag/query            rag_query: an answer grounded in retrieved chunks, with citations
 *   POST /api/rag/chat             rag_chat: the same with client-sent conversation history
 *
 * Tenancy: results come only from documents the caller may read (their uploads and their
 * workspaces' documents; the SQL functions resolve that from the JWT); with workspace_id the
 * caller must be a member (404 otherwise) and only that workspace is searched. Billing is the
 * backend's billing middleware (billing.ts): a user pays the action's price before the route
 * runs and is refunded on any non-2xx answer (model failure, bad reply, bad input).
 *
 * Domain: packages/shared/rag/retrieval.ts (search) and rag/grounded.ts (answers: one structured
 * call of the model layer, RAG_MODEL, default SONNET).
 */
import { createRoute } from "@hono/zod-openapi";
import { db, requireWorkspaceRole } from "@shared/auth/context.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import {
  ragAdvancedSchema,
  ragChatSchema,
  ragMmrSchema,
  ragQuerySchema,
  ragSearchSchema,
} from "@shared/rag/schemas.ts";
import { advancedSearch, mmrSearch, ragSearch, type RetrievalDeps } from "@shared/rag/retrieval.ts";
import { type AnswerDeps, ragChat, ragQuery } from "@shared/rag/grounded.ts";
import { SONNET } from "@shared/llm/mod.ts";
import { type Ctx, router } from "../env.ts";
import { backendLlm, settings } from "../deps.ts";

const tags = ["RAG search"];

/** Retrieval as the caller (RLS decides which documents are found). */
const retrieval = (c: Ctx): RetrievalDeps => ({ db: db(c), embeddings: c.get("cfg").embeddings });

/** Retrieval plus the model answers come from (RAG_MODEL, default SONNET). */
const answering = (c: Ctx): AnswerDeps => ({
  ...retrieval(c),
  llm: () => backendLlm(c),
  model: settings(c)("RAG_MODEL") ?? SONNET,
});

export function ragSearchRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/search",
      tags,
      summary:
        "rag_search: semantic, keyword, hybrid, visual, multi_vector or mmr search of processed documents",
      request: jsonBody(ragSearchSchema),
      responses: { ...okJson("{query, strategy, results: [...], total_results}"), ...errorResponses },
    }),
    async (c) => {
      const input = c.req.valid("json");
      if (input.workspace_id) await requireWorkspaceRole(c, input.workspace_id, null);
      return c.json(await ragSearch(retrieval(c), input), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/search/mmr",
      tags,
      summary: "rag_search_mmr: hybrid candidates (fetch_k) re-ranked by maximal marginal relevance",
      request: jsonBody(ragMmrSchema),
      responses: { ...okJson("{query, lambda, k, fetch_k, results}"), ...errorResponses },
    }),
    async (c) => {
      const input = c.req.valid("json");
      if (input.workspace_id) await requireWorkspaceRole(c, input.workspace_id, null);
      return c.json(await mmrSearch(retrieval(c), input), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/search/advanced",
      tags,
      summary:
        "rag_search_advanced: a text strategy with document, product, page, category, date and score filters",
      request: jsonBody(ragAdvancedSchema),
      responses: { ...okJson("{query, strategy, filters, results}"), ...errorResponses },
    }),
    async (c) => {
      const input = c.req.valid("json");
      if (input.workspace_id) await requireWorkspaceRole(c, input.workspace_id, null);
      return c.json(await advancedSearch(retrieval(c), input), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/query",
      tags,
      summary:
        "rag_query: an answer grounded in retrieved chunks, with citations (not found without context)",
      request: jsonBody(ragQuerySchema),
      responses: {
        ...okJson(
          "{answer, found, citations, invalid_citations, warnings, sources, model, usage, retrieval}",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const input = c.req.valid("json");
      if (input.workspace_id) await requireWorkspaceRole(c, input.workspace_id, null);
      return c.json(await ragQuery(answering(c), input), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/rag/chat",
      tags,
      summary: "rag_chat: a grounded answer to the next message of a client-kept conversation",
      request: jsonBody(ragChatSchema),
      responses: {
        ...okJson("{message, answer, found, citations, ..., history (with this turn appended)}"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const input = c.req.valid("json");
      if (input.workspace_id) await requireWorkspaceRole(c, input.workspace_id, null);
      return c.json(await ragChat(answering(c), input), 200);
    },
  );

  return app;
}
