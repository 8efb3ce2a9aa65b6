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
 * Answers (rag_query, rag_chat) are one structured call of the model layer (packages/shared/llm:
 * the tool answer_from_sources, whose citations must name retrieved sources; RAG_MODEL, default
 * SONNET): a provider failure is `model_unavailable` (502; 503 when no model is configured), an
 * answer unusable twice `model_bad_output` (502).
 */
import { createRoute } from "@hono/zod-openapi";
import { db, requireWorkspaceRole } from "@shared/auth/context.ts";
import { HttpError } from "@shared/http/errors.ts";
import { dbError } from "@shared/supabase/postgrest.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { toPgVector } from "@shared/embeddings/provider.ts";
import {
  IMAGE_EMBEDDING_KINDS,
  type ImageEmbeddingKind,
  LocalImageEmbeddings,
} from "@shared/embeddings/image.ts";
import { decodeImage, ImageInputError } from "@shared/embeddings/decode.ts";
import {
  type Filters,
  ragAdvancedSchema,
  ragChatSchema,
  ragMmrSchema,
  ragQuerySchema,
  type RagSearchInput,
  ragSearchSchema,
  type TextMode,
} from "@shared/rag/schemas.ts";
import {
  chunkResult,
  type ChunkRow,
  fuseMultiVector,
  imageResult,
  type ImageRow,
  meanVectors,
  mmr,
  parseVector,
  resolveWeights,
  round,
  type SearchResult,
} from "@shared/rag/search.ts";
import {
  ANSWER_TOOL,
  answerSchema,
  chatRetrievalQuery,
  citationProblem,
  contextOf,
  groundAnswer,
  NOT_FOUND_ANSWER,
  type Source,
  SYSTEM_PROMPT,
  userPrompt,
} from "@shared/rag/answer.ts";
import { SONNET } from "@shared/llm/mod.ts";
import { type Ctx, router } from "../env.ts";
import { backendLlm, settings } from "../ai/models.ts";

const tags = ["RAG search"];

type ImageQuery = Partial<Record<ImageEmbeddingKind, number[]>>;

interface ChunkSearch {
  query: string;
  mode: TextMode;
  count: number;
  workspaceId?: string;
  filters: Filters;
  withEmbedding?: boolean;
}

/** With workspace_id the caller must be a member (outsiders 404). */
async function checkWorkspace(c: Ctx, workspaceId: string | undefined): Promise<void> {
  if (workspaceId) await requireWorkspaceRole(c, workspaceId, null);
}

/** A date alone as a lower bound is its first instant, as an upper bound its last (UTC). */
function bound(v: string | undefined, end: boolean): string | undefined {
  if (!v) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v}T${end ? "23:59:59.999" : "00:00:00.000"}Z`;
  return v;
}

/** The filters as RPC arguments; a filter not given is left out (its SQL default, null, applies). */
function filterArgs(f: Filters) {
  return {
    p_document_ids: f.document_ids,
    p_product_ids: f.product_ids,
    p_page_from: f.page_range?.from,
    p_page_to: f.page_range?.to,
    p_date_from: bound(f.date_from, false),
    p_date_to: bound(f.date_to, true),
    p_min_score: f.min_score,
  };
}

async function searchChunks(c: Ctx, s: ChunkSearch): Promise<ChunkRow[]> {
  const [vector] = await c.get("cfg").embeddings.embed([s.query], "query");
  const { data, error } = await db(c).rpc("rag_search_chunks", {
    p_query_text: s.query,
    p_query_embedding: toPgVector(vector),
    p_mode: s.mode,
    p_match_count: s.count,
    p_workspace_id: s.workspaceId,
    p_categories: s.filters.categories,
    p_with_embedding: s.withEmbedding ?? false,
    ...filterArgs(s.filters),
  });
  if (error) throw dbError(error, "Document search");
  return (data ?? []) as ChunkRow[];
}

async function searchImages(
  c: Ctx,
  q: ImageQuery,
  weights: Record<ImageEmbeddingKind, number>,
  count: number,
  workspaceId: string | undefined,
  filters: Filters,
  excludeImage: string | null,
): Promise<ImageRow[]> {
  const v = (k: ImageEmbeddingKind) => (q[k] ? toPgVector(q[k]!) : undefined);
  const { data, error } = await db(c).rpc("rag_search_images", {
    p_visual: v("visual"),
    p_color: v("color"),
    p_texture: v("texture"),
    p_style: v("style"),
    p_material: v("material"),
    p_weights: IMAGE_EMBEDDING_KINDS.map((k) => weights[k]),
    p_match_count: count,
    p_workspace_id: workspaceId,
    ...filterArgs(filters),
    p_exclude_image: excludeImage ?? undefined,
  });
  if (error) throw dbError(error, "Image search");
  return (data ?? []) as ImageRow[];
}

const VECTOR_COLUMNS = IMAGE_EMBEDDING_KINDS.map((k) => `${k}_slig_768`).join(", ");
/** The most images whose mean vector seeds a text-only image search. */
const SEEDS = 20;

function vectorsOf(row: Record<string, unknown>): Record<ImageEmbeddingKind, number[]> {
  return Object.fromEntries(
    IMAGE_EMBEDDING_KINDS.map((k) => [k, parseVector(row[`${k}_slig_768`] as string)!]),
  ) as Record<ImageEmbeddingKind, number[]>;
}

/**
 * The image side of a visual / multi-vector query: the example image's vectors, a decoded
 * picture's, a given visual vector, or (text only) the pseudo-relevance-feedback seed.
 */
async function imageQueryOf(
  c: Ctx,
  input: RagSearchInput,
): Promise<{ query: ImageQuery | null; exclude: string | null; seeds: string[] }> {
  if (input.image_id) {
    const { data, error } = await db(c).from("document_images").select(`id, ${VECTOR_COLUMNS}`)
      .eq("id", input.image_id).maybeSingle();
    if (error) throw dbError(error, "Image");
    if (!data) throw HttpError.notFound("Image not found");
    return {
      query: vectorsOf(data as unknown as Record<string, unknown>),
      exclude: input.image_id,
      seeds: [input.image_id],
    };
  }
  if (input.image_base64) {
    const b64 = input.image_base64.replace(/^data:[^,]*,/, "");
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    } catch {
      throw HttpError.badRequest("image_base64 is not valid base64", [{
        path: ["image_base64"],
        message: "not base64",
      }]);
    }
    try {
      const decoded = await decodeImage(bytes, { maxSide: 512 });
      return { query: await new LocalImageEmbeddings().embedImage(decoded.raster), exclude: null, seeds: [] };
    } catch (err) {
      if (err instanceof ImageInputError) {
        throw HttpError.badRequest(`image_base64: ${err.message}`, [{
          path: ["image_base64"],
          message: err.message,
        }]);
      }
      throw err;
    }
  }
  if (input.image_embedding) return { query: { visual: input.image_embedding }, exclude: null, seeds: [] };
  // Text only: the images linked to the best text hits seed the visual query.
  const top = await searchChunks(c, {
    query: input.query!,
    mode: "hybrid",
    count: 3,
    workspaceId: input.workspace_id,
    filters: input,
  });
  if (top.length === 0) return { query: null, exclude: null, seeds: [] };
  const rel = await db(c).from("document_relationships").select("image_id")
    .eq("kind", "chunk_image").in("source_id", top.map((t) => t.chunk_id));
  if (rel.error) throw dbError(rel.error, "Relationships");
  let ids = [...new Set((rel.data ?? []).map((r) => r.image_id as string))];
  if (ids.length === 0) {
    // The images on the pages of each hit, filtered by document and page range in the query (a
    // document may hold more than max_rows images); at most SEEDS per hit are ever used.
    const onPages = await Promise.all(top.map((t) =>
      db(c).from("document_images").select("id")
        .eq("document_id", t.document_id).gte("page_number", t.page_start).lte("page_number", t.page_end)
        .order("page_number").order("filename").limit(SEEDS)
    ));
    for (const r of onPages) if (r.error) throw dbError(r.error, "Images");
    ids = [...new Set(onPages.flatMap((r) => (r.data ?? []).map((im) => im.id as string)))];
  }
  if (ids.length === 0) return { query: null, exclude: null, seeds: [] };
  const imgs = await db(c).from("document_images").select(`id, ${VECTOR_COLUMNS}`).in(
    "id",
    ids.slice(0, SEEDS),
  );
  if (imgs.error) throw dbError(imgs.error, "Images");
  const vecs = (imgs.data ?? []).map((r) => vectorsOf(r as unknown as Record<string, unknown>));
  const query = Object.fromEntries(
    IMAGE_EMBEDDING_KINDS.map((k) => [k, meanVectors(vecs.map((v) => v[k]))!]),
  ) as ImageQuery;
  return { query, exclude: null, seeds: ids.slice(0, SEEDS) };
}

interface MmrArgs {
  query: string;
  k: number;
  fetchK: number;
  lambda: number;
  workspaceId?: string;
  filters: Filters;
}

async function searchMmr(c: Ctx, a: MmrArgs): Promise<SearchResult[]> {
  const rows = await searchChunks(c, {
    query: a.query,
    mode: "hybrid",
    count: a.fetchK,
    workspaceId: a.workspaceId,
    filters: a.filters,
    withEmbedding: true,
  });
  const byId = new Map(rows.map((r) => [r.chunk_id, r]));
  const picks = mmr(
    rows.map((r) => ({ id: r.chunk_id, relevance: r.vector_score, embedding: parseVector(r.embedding)! })),
    a.k,
    a.lambda,
  );
  return picks.map((p) => {
    const res = chunkResult(byId.get(p.id)!, "mmr");
    return {
      ...res,
      score: round(p.mmr_score)!,
      components: {
        ...res.components,
        hybrid_score: res.score,
        relevance: round(p.relevance),
        redundancy: round(p.redundancy),
      },
    };
  });
}

async function ragSearch(c: Ctx, input: RagSearchInput) {
  await checkWorkspace(c, input.workspace_id);
  const k = input.top_k;
  switch (input.strategy) {
    case "semantic":
    case "keyword":
    case "hybrid": {
      const rows = await searchChunks(c, {
        query: input.query!,
        mode: input.strategy,
        count: k,
        workspaceId: input.workspace_id,
        filters: input,
      });
      return { results: rows.map((r) => chunkResult(r, input.strategy)) };
    }
    case "mmr":
      return {
        results: await searchMmr(c, {
          query: input.query!,
          k,
          fetchK: input.fetch_k ?? Math.min(k * 4, 200),
          lambda: input.lambda,
          workspaceId: input.workspace_id,
          filters: input,
        }),
        lambda: input.lambda,
      };
    case "visual": {
      const { query, exclude, seeds } = await imageQueryOf(c, input);
      if (!query) return { results: [], seed_image_ids: seeds };
      const weights = { visual: 1, color: 0, texture: 0, style: 0, material: 0 };
      const rows = await searchImages(
        c,
        { visual: query.visual },
        weights,
        k,
        input.workspace_id,
        input,
        exclude,
      );
      return { results: rows.map(imageResult), seed_image_ids: seeds };
    }
    case "multi_vector": {
      let weights;
      try {
        weights = resolveWeights(input.weights);
      } catch (err) {
        throw HttpError.badRequest((err as Error).message, [{
          path: ["weights"],
          message: (err as Error).message,
        }]);
      }
      const image = await imageQueryOf(c, input);
      const imageSide = image.query !== null && IMAGE_EMBEDDING_KINDS.some((kind) => weights[kind] > 0);
      const [chunks, images] = await Promise.all([
        input.query && weights.text > 0
          ? searchChunks(c, {
            query: input.query,
            mode: "semantic",
            count: k * 2,
            workspaceId: input.workspace_id,
            filters: input,
          })
          : Promise.resolve([]),
        imageSide
          ? searchImages(c, image.query!, weights, k * 2, input.workspace_id, input, image.exclude)
          : Promise.resolve([]),
      ]);
      const hasText = Boolean(input.query) && weights.text > 0;
      return {
        results: fuseMultiVector(chunks, images, weights, hasText, k),
        weights,
        seed_image_ids: image.seeds,
      };
    }
  }
}

// ---- Grounded answers ----

interface AnswerArgs {
  question: string;
  retrievalQuery: string;
  history: { role: "user" | "assistant"; content: string }[];
  workspaceId?: string;
  topK: number;
  mode: TextMode;
  minSimilarity: number;
  filters: Filters;
  maxTokens: number;
}

async function answer(c: Ctx, a: AnswerArgs) {
  await checkWorkspace(c, a.workspaceId);
  const rows = await searchChunks(c, {
    query: a.retrievalQuery,
    mode: a.mode,
    count: a.topK,
    workspaceId: a.workspaceId,
    filters: a.filters,
  });
  const sources: Source[] = contextOf(rows, a.minSimilarity);
  const retrieval = {
    strategy: a.mode,
    top_k: a.topK,
    min_similarity: a.minSimilarity,
    retrieved: rows.length,
    context_chunks: sources.length,
  };
  const sourceList = sources.map((s) => ({ label: s.label, ...chunkResult(s.chunk, a.mode) }));
  if (sources.length === 0) {
    return {
      answer: NOT_FOUND_ANSWER,
      found: false,
      citations: [],
      invalid_citations: [],
      warnings: [],
      sources: [],
      model: null,
      usage: null,
      retrieval,
    };
  }
  const get = settings(c);
  const model = get("RAG_MODEL") ?? SONNET;
  const reply = await backendLlm(c).structured(answerSchema(sources), {
    model,
    system: SYSTEM_PROMPT,
    messages: [...a.history, { role: "user", content: userPrompt(a.question, sources) }],
    maxTokens: a.maxTokens,
    purpose: "Grounded answer",
    tool: ANSWER_TOOL,
    description: "Give the answer from the numbered sources, with the labels of the sources it cites.",
    check: (v) => citationProblem(v, sources),
  });
  const grounded = groundAnswer(reply.value, sources);
  return {
    ...grounded,
    sources: sourceList,
    model,
    usage: { input_tokens: reply.usage.input_tokens, output_tokens: reply.usage.output_tokens },
    retrieval,
  };
}

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
      const out = await ragSearch(c, input);
      return c.json({
        query: input.query ?? null,
        strategy: input.strategy,
        ...out,
        total_results: out.results.length,
      }, 200);
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
      await checkWorkspace(c, input.workspace_id);
      const k = input.k ?? input.top_k;
      const fetchK = input.fetch_k ?? Math.min(k * 4, 200);
      const results = await searchMmr(c, {
        query: input.query,
        k,
        fetchK,
        lambda: input.lambda,
        workspaceId: input.workspace_id,
        filters: input,
      });
      return c.json({
        query: input.query,
        strategy: "mmr",
        lambda: input.lambda,
        k,
        fetch_k: fetchK,
        results,
        total_results: results.length,
      }, 200);
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
      await checkWorkspace(c, input.workspace_id);
      const rows = await searchChunks(c, {
        query: input.query,
        mode: input.strategy,
        count: input.top_k,
        workspaceId: input.workspace_id,
        filters: input.filters,
      });
      const results = rows.map((r) => chunkResult(r, input.strategy));
      return c.json({
        query: input.query,
        strategy: input.strategy,
        filters: input.filters,
        results,
        total_results: results.length,
      }, 200);
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
      const out = await answer(c, {
        question: input.query,
        retrievalQuery: input.query,
        history: [],
        workspaceId: input.workspace_id,
        topK: input.top_k,
        mode: input.strategy,
        minSimilarity: input.min_similarity,
        filters: { document_ids: input.document_ids, product_ids: input.product_ids },
        maxTokens: input.max_tokens,
      });
      return c.json({ query: input.query, ...out }, 200);
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
      const out = await answer(c, {
        question: input.message,
        retrievalQuery: chatRetrievalQuery(input.message, input.history),
        history: input.history,
        workspaceId: input.workspace_id,
        topK: input.top_k,
        mode: input.strategy,
        minSimilarity: input.min_similarity,
        filters: { document_ids: input.document_ids, product_ids: input.product_ids },
        maxTokens: input.max_tokens,
      });
      return c.json({
        message: input.message,
        ...out,
        history: [
          ...input.history,
          { role: "user", content: input.message },
          { role: "assistant", content: out.answer },
        ],
      }, 200);
    },
  );

  return app;
}
