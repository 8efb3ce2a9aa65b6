/**
 * Retrieval over processed documents as the caller: the database side of the strategies in
 * search.ts (which holds the pure parts and the strategy table). rag_search_chunks and
 * rag_search_images run with the caller's client, so results come only from documents the
 * caller may read (their uploads and their workspaces' documents; the SQL resolves that from the
 * JWT); with `workspaceId` only that workspace is searched (the HTTP layer has checked the caller
 * is a member: outsiders 404).
 *
 *   ragSearch      rag_search: one of the six strategies
 *   mmrSearch      rag_search_mmr: hybrid candidates (fetch_k) re-ranked by MMR
 *   advancedSearch rag_search_advanced: a text strategy with every filter
 *   searchChunks   the text strategies' one query (grounded answers retrieve with it too)
 */
import { DomainError } from "../errors.ts";
import { type EmbeddingProvider, toPgVector } from "../embeddings/provider.ts";
import { IMAGE_EMBEDDING_KINDS, type ImageEmbeddingKind, LocalImageEmbeddings } from "../embeddings/image.ts";
import { decodeImage, ImageInputError } from "../embeddings/decode.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { dbError } from "../supabase/postgrest.ts";
import type { Filters, RagSearchInput, TextMode } from "./schemas.ts";
import type { ragAdvancedSchema, ragMmrSchema } from "./schemas.ts";
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
} from "./search.ts";
import type { z } from "zod";

/** What retrieval needs: the caller's client (RLS decides what is found) and the text embeddings. */
export interface RetrievalDeps {
  db: SupabaseClient;
  embeddings: EmbeddingProvider;
}

type ImageQuery = Partial<Record<ImageEmbeddingKind, number[]>>;

export interface ChunkSearch {
  query: string;
  mode: TextMode;
  count: number;
  workspaceId?: string;
  filters: Filters;
  withEmbedding?: boolean;
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

/** The chunks nearest the query by one text strategy (rag_search_chunks). */
export async function searchChunks(deps: RetrievalDeps, s: ChunkSearch): Promise<ChunkRow[]> {
  const [vector] = await deps.embeddings.embed([s.query], "query");
  const { data, error } = await deps.db.rpc("rag_search_chunks", {
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
  db: SupabaseClient,
  q: ImageQuery,
  weights: Record<ImageEmbeddingKind, number>,
  count: number,
  workspaceId: string | undefined,
  filters: Filters,
  excludeImage: string | null,
): Promise<ImageRow[]> {
  const v = (k: ImageEmbeddingKind) => (q[k] ? toPgVector(q[k]!) : undefined);
  const { data, error } = await db.rpc("rag_search_images", {
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

/** A picture sent as base64 (optionally a data: URL), embedded by the local image provider. */
async function embedPicture(imageBase64: string): Promise<ImageQuery> {
  const b64 = imageBase64.replace(/^data:[^,]*,/, "");
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
  } catch {
    throw DomainError.invalid("image_base64 is not valid base64", [{
      path: ["image_base64"],
      message: "not base64",
    }]);
  }
  try {
    const decoded = await decodeImage(bytes, { maxSide: 512 });
    return await new LocalImageEmbeddings().embedImage(decoded.raster);
  } catch (err) {
    if (err instanceof ImageInputError) {
      throw DomainError.invalid(`image_base64: ${err.message}`, [{
        path: ["image_base64"],
        message: err.message,
      }]);
    }
    throw err;
  }
}

/**
 * The image side of a visual / multi-vector query: the example image's vectors, a decoded
 * picture's, a given visual vector, or (text only) the pseudo-relevance-feedback seed.
 */
async function imageQueryOf(
  deps: RetrievalDeps,
  input: RagSearchInput,
): Promise<{ query: ImageQuery | null; exclude: string | null; seeds: string[] }> {
  const db = deps.db;
  if (input.image_id) {
    const { data, error } = await db.from("document_images").select(`id, ${VECTOR_COLUMNS}`)
      .eq("id", input.image_id).maybeSingle();
    if (error) throw dbError(error, "Image");
    if (!data) throw DomainError.notFound("Image not found");
    return {
      query: vectorsOf(data as unknown as Record<string, unknown>),
      exclude: input.image_id,
      seeds: [input.image_id],
    };
  }
  if (input.image_base64) return { query: await embedPicture(input.image_base64), exclude: null, seeds: [] };
  if (input.image_embedding) return { query: { visual: input.image_embedding }, exclude: null, seeds: [] };
  // Text only: the images linked to the best text hits seed the visual query.
  const top = await searchChunks(deps, {
    query: input.query!,
    mode: "hybrid",
    count: 3,
    workspaceId: input.workspace_id,
    filters: input,
  });
  if (top.length === 0) return { query: null, exclude: null, seeds: [] };
  const rel = await db.from("document_relationships").select("image_id")
    .eq("kind", "chunk_image").in("source_id", top.map((t) => t.chunk_id));
  if (rel.error) throw dbError(rel.error, "Relationships");
  let ids = [...new Set((rel.data ?? []).map((r) => r.image_id as string))];
  if (ids.length === 0) {
    // The images on the pages of each hit, filtered by document and page range in the query (a
    // document may hold more than max_rows images); at most SEEDS per hit are ever used.
    const onPages = await Promise.all(top.map((t) =>
      db.from("document_images").select("id")
        .eq("document_id", t.document_id).gte("page_number", t.page_start).lte("page_number", t.page_end)
        .order("page_number").order("filename").limit(SEEDS)
    ));
    for (const r of onPages) if (r.error) throw dbError(r.error, "Images");
    ids = [...new Set(onPages.flatMap((r) => (r.data ?? []).map((im) => im.id as string)))];
  }
  if (ids.length === 0) return { query: null, exclude: null, seeds: [] };
  const imgs = await db.from("document_images").select(`id, ${VECTOR_COLUMNS}`).in("id", ids.slice(0, SEEDS));
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

async function searchMmr(deps: RetrievalDeps, a: MmrArgs): Promise<SearchResult[]> {
  const rows = await searchChunks(deps, {
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

/** The default candidate count of MMR: four per result, at most 200. */
const defaultFetchK = (k: number) => Math.min(k * 4, 200);

async function strategyResults(deps: RetrievalDeps, input: RagSearchInput) {
  const k = input.top_k;
  switch (input.strategy) {
    case "semantic":
    case "keyword":
    case "hybrid": {
      const rows = await searchChunks(deps, {
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
        results: await searchMmr(deps, {
          query: input.query!,
          k,
          fetchK: input.fetch_k ?? defaultFetchK(k),
          lambda: input.lambda,
          workspaceId: input.workspace_id,
          filters: input,
        }),
        lambda: input.lambda,
      };
    case "visual": {
      const { query, exclude, seeds } = await imageQueryOf(deps, input);
      if (!query) return { results: [], seed_image_ids: seeds };
      const weights = { visual: 1, color: 0, texture: 0, style: 0, material: 0 };
      const rows = await searchImages(
        deps.db,
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
        throw DomainError.invalid((err as Error).message, [{
          path: ["weights"],
          message: (err as Error).message,
        }]);
      }
      const image = await imageQueryOf(deps, input);
      const imageSide = image.query !== null && IMAGE_EMBEDDING_KINDS.some((kind) => weights[kind] > 0);
      const [chunks, images] = await Promise.all([
        input.query && weights.text > 0
          ? searchChunks(deps, {
            query: input.query,
            mode: "semantic",
            count: k * 2,
            workspaceId: input.workspace_id,
            filters: input,
          })
          : Promise.resolve([]),
        imageSide
          ? searchImages(deps.db, image.query!, weights, k * 2, input.workspace_id, input, image.exclude)
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

/** rag_search: `{query, strategy, results, ...the strategy's extras, total_results}`. */
export async function ragSearch(deps: RetrievalDeps, input: RagSearchInput) {
  const out = await strategyResults(deps, input);
  return { query: input.query ?? null, strategy: input.strategy, ...out, total_results: out.results.length };
}

/** rag_search_mmr: `k` (default top_k) of `fetch_k` hybrid candidates, re-ranked by MMR. */
export async function mmrSearch(deps: RetrievalDeps, input: z.infer<typeof ragMmrSchema>) {
  const k = input.k ?? input.top_k;
  const fetchK = input.fetch_k ?? defaultFetchK(k);
  const results = await searchMmr(deps, {
    query: input.query,
    k,
    fetchK,
    lambda: input.lambda,
    workspaceId: input.workspace_id,
    filters: input,
  });
  return {
    query: input.query,
    strategy: "mmr",
    lambda: input.lambda,
    k,
    fetch_k: fetchK,
    results,
    total_results: results.length,
  };
}

/** rag_search_advanced: a text strategy with document, product, page, category, date and score filters. */
export async function advancedSearch(deps: RetrievalDeps, input: z.infer<typeof ragAdvancedSchema>) {
  const rows = await searchChunks(deps, {
    query: input.query,
    mode: input.strategy,
    count: input.top_k,
    workspaceId: input.workspace_id,
    filters: input.filters,
  });
  const results = rows.map((r) => chunkResult(r, input.strategy));
  return {
    query: input.query,
    strategy: input.strategy,
    filters: input.filters,
    results,
    total_results: results.length,
  };
}
