/**
 * Retrieval over processed documents (document_chunks, document_images): the six strategies of
 * rag_search, what each does, and the pure parts of them (result shaping, MMR re-ranking,
 * multi-vector fusion). The SQL is in supabase/migrations/20260214000100_rag_search.sql.
 *
 * | strategy     | what it does                                                                            | score                                   |
 * |--------------|-----------------------------------------------------------------------------------------|-----------------------------------------|
 * | semantic     | k nearest chunks by text embedding (1024-d, HNSW, cosine)                               | vector_score = 1 - cosine distance      |
 * | keyword      | full-text match of any query word (GIN, 'simple' config), cover-density rank            | text_score = ts_rank_cd(fts, q, 32)     |
 * | hybrid       | both lists (4 x k candidates each) fused by reciprocal rank fusion, k = 60              | (1/(60+r_vec) + 1/(60+r_text)) x 61/2   |
 * | visual       | images nearest to an image query in the visual space (768-d, HNSW), with their chunk    | visual_score                            |
 * | multi_vector | the text space and all five image spaces, weighted; images vote for their chunks         | sum(w x component) / sum(w)             |
 * | mmr          | hybrid candidates (fetch_k) re-ranked by maximal marginal relevance (lambda)            | mmr_score                               |
 *
 * The image query of visual / multi_vector is one of: image_id (query by example, the image
 * itself left out), image_base64 (embedded by the local pixel-feature image provider, the same
 * one the pipeline stores with), image_embedding (a 768-d vector, e.g. from CLIP). A text-only
 * visual query has no text encoder into the image spaces in this backend, so it is answered by
 * visual pseudo-relevance feedback: the images linked to the best text hits (chunk_image
 * relationships, else images on the chunks' pages) are averaged per space into the query (the
 * `seed_image_ids` of the answer say which). No linked image: no visual results.
 *
 * Every result carries chunk_id, document_id, content, page_start/page_end, products (the
 * chunk's product link), score and the strategy's component scores.
 */
import { l2Normalize } from "../embeddings/provider.ts";
import { IMAGE_EMBEDDING_KINDS, type ImageEmbeddingKind } from "../embeddings/image.ts";
import type { Strategy } from "./schemas.ts";

/** A row of public.rag_search_chunks. */
export interface ChunkRow {
  chunk_id: string;
  document_id: string;
  workspace_id: string | null;
  document_filename: string | null;
  chunk_index: number;
  content: string;
  page_start: number;
  page_end: number;
  product_id: string | null;
  product_name: string | null;
  vector_score: number;
  text_score: number;
  vector_rank: number | null;
  text_rank: number | null;
  score: number;
  embedding: string | number[] | null;
}

/** A row of public.rag_search_images. */
export interface ImageRow {
  image_id: string;
  document_id: string;
  workspace_id: string | null;
  document_filename: string | null;
  filename: string;
  storage_url: string;
  page_number: number;
  category: string | null;
  visual_score: number | null;
  color_score: number | null;
  texture_score: number | null;
  style_score: number | null;
  material_score: number | null;
  score: number;
  chunk_id: string | null;
  chunk_index: number | null;
  content: string | null;
  page_start: number | null;
  page_end: number | null;
  product_id: string | null;
  product_name: string | null;
}

export interface ProductLink {
  id: string;
  name: string | null;
}

/** One search result: the chunk, where it is, what it is about, and why it ranked. */
export interface SearchResult {
  chunk_id: string | null;
  document_id: string;
  workspace_id: string | null;
  document_filename: string | null;
  chunk_index: number | null;
  content: string | null;
  page_start: number | null;
  page_end: number | null;
  products: ProductLink[];
  score: number;
  strategy: Strategy;
  components: Record<string, number | null>;
  /** Visual and multi-vector results: the images that matched. */
  images?: ImageHit[];
}

export interface ImageHit {
  image_id: string;
  filename: string;
  storage_url: string;
  page_number: number;
  category: string | null;
  score: number;
}

export const round = (x: number | null | undefined): number | null =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 1e6) / 1e6;

const products = (id: string | null, name: string | null): ProductLink[] => id ? [{ id, name }] : [];

export function chunkResult(row: ChunkRow, strategy: Strategy): SearchResult {
  return {
    chunk_id: row.chunk_id,
    document_id: row.document_id,
    workspace_id: row.workspace_id,
    document_filename: row.document_filename,
    chunk_index: row.chunk_index,
    content: row.content,
    page_start: row.page_start,
    page_end: row.page_end,
    products: products(row.product_id, row.product_name),
    score: round(row.score)!,
    strategy,
    components: {
      vector_score: round(row.vector_score),
      text_score: round(row.text_score),
      vector_rank: row.vector_rank,
      text_rank: row.text_rank,
    },
  };
}

const imageHit = (r: ImageRow): ImageHit => ({
  image_id: r.image_id,
  filename: r.filename,
  storage_url: r.storage_url,
  page_number: r.page_number,
  category: r.category,
  score: round(r.score)!,
});

/** A visual result: the image, its chunk (if any) and its per-space similarities. */
export function imageResult(r: ImageRow): SearchResult {
  return {
    chunk_id: r.chunk_id,
    document_id: r.document_id,
    workspace_id: r.workspace_id,
    document_filename: r.document_filename,
    chunk_index: r.chunk_index,
    content: r.content,
    page_start: r.page_start ?? r.page_number,
    page_end: r.page_end ?? r.page_number,
    products: products(r.product_id, r.product_name),
    score: round(r.score)!,
    strategy: "visual",
    components: {
      visual_score: round(r.visual_score),
      color_score: round(r.color_score),
      texture_score: round(r.texture_score),
      style_score: round(r.style_score),
      material_score: round(r.material_score),
    },
    images: [imageHit(r)],
  };
}

/** pgvector's text form (`[1,2,3]`) or an array, as numbers. */
export function parseVector(v: string | number[] | null | undefined): number[] | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v;
  const s = v.trim();
  if (!s.startsWith("[") || !s.endsWith("]")) throw new Error("not a pgvector value");
  return s.slice(1, -1).split(",").map(Number);
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export interface MmrCandidate {
  id: string;
  /** Similarity to the query (the relevance term). */
  relevance: number;
  /** Unit-length embedding (cosine = dot product). */
  embedding: readonly number[];
}

export interface MmrPick {
  id: string;
  relevance: number;
  /** Highest similarity to an already selected item (0 for the first). */
  redundancy: number;
  mmr_score: number;
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein 1998): repeatedly picks the candidate
 * maximising lambda x sim(q, d) - (1 - lambda) x max over selected s of sim(d, s); ties go to
 * the earlier candidate. lambda 1 is plain relevance order; 0 maximal diversity.
 */
export function mmr(candidates: readonly MmrCandidate[], k: number, lambda: number): MmrPick[] {
  const left = candidates.map((c) => ({ ...c, maxSim: -Infinity }));
  const out: MmrPick[] = [];
  while (out.length < k && left.length > 0) {
    let best = 0, bestScore = -Infinity;
    for (let i = 0; i < left.length; i++) {
      const red = out.length === 0 ? 0 : left[i].maxSim;
      const s = lambda * left[i].relevance - (1 - lambda) * red;
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    }
    const [pick] = left.splice(best, 1);
    out.push({
      id: pick.id,
      relevance: pick.relevance,
      redundancy: out.length === 0 ? 0 : pick.maxSim,
      mmr_score: bestScore,
    });
    for (const c of left) c.maxSim = Math.max(c.maxSim, dot(c.embedding, pick.embedding));
  }
  return out;
}

export type Weights = Record<"text" | ImageEmbeddingKind, number>;

export const DEFAULT_WEIGHTS: Weights = {
  text: 0.5,
  visual: 0.2,
  color: 0.075,
  texture: 0.075,
  style: 0.075,
  material: 0.075,
};

export function resolveWeights(w: Partial<Weights> | undefined): Weights {
  const out = { ...DEFAULT_WEIGHTS, ...(w ?? {}) };
  if (Object.values(out).every((x) => x === 0)) throw new RangeError("at least one weight must be positive");
  return out;
}

/**
 * Multi-vector fusion at chunk level. Text evidence: the chunk's cosine similarity to the query
 * (0 when it was not retrieved by text). Image evidence: per space, the best similarity among the
 * images that vote for the chunk (an image votes for its related chunk), min-max normalised over
 * the retrieved images of that space (cosines of the image spaces bunch up near 1; normalising
 * turns them into "how close, compared with the other candidates"). The score is the weighted
 * mean over the evidence the chunk has: the text weight whenever there is a text query, the
 * image weights only for chunks with at least one voting image - so a chunk without pictures is
 * judged on its text alone, neither lifted nor sunk by spaces it has nothing in. Components
 * report the raw similarities.
 */
export function fuseMultiVector(
  chunks: readonly ChunkRow[],
  images: readonly ImageRow[],
  weights: Weights,
  hasText: boolean,
  k: number,
): SearchResult[] {
  const kinds = IMAGE_EMBEDDING_KINDS;
  const range = Object.fromEntries(kinds.map((kind) => {
    const xs = images.map((im) => im[`${kind}_score` as const]).filter((x): x is number => x !== null);
    return [kind, { min: Math.min(...xs), max: Math.max(...xs) }];
  })) as Record<ImageEmbeddingKind, { min: number; max: number }>;
  const norm = (kind: ImageEmbeddingKind, x: number) => {
    const { min, max } = range[kind];
    return max - min > 1e-9 ? (x - min) / (max - min) : 1;
  };
  interface Acc {
    base: SearchResult;
    text: number | null;
    img: Record<ImageEmbeddingKind, number | null>;
    images: ImageHit[];
  }
  const by = new Map<string, Acc>();
  const empty = () =>
    Object.fromEntries(kinds.map((kind) => [kind, null])) as Record<ImageEmbeddingKind, number | null>;
  for (const c of chunks) {
    by.set(c.chunk_id, {
      base: chunkResult(c, "multi_vector"),
      text: c.vector_score,
      img: empty(),
      images: [],
    });
  }
  for (const im of images) {
    if (!im.chunk_id) continue;
    let acc = by.get(im.chunk_id);
    if (!acc) {
      const base = imageResult(im);
      base.strategy = "multi_vector";
      acc = { base, text: null, img: empty(), images: [] };
      by.set(im.chunk_id, acc);
    }
    acc.images.push(imageHit(im));
    for (const kind of kinds) {
      const s = im[`${kind}_score` as const];
      if (s !== null && (acc.img[kind] === null || s > acc.img[kind]!)) acc.img[kind] = s;
    }
  }
  const out: SearchResult[] = [];
  for (const acc of by.values()) {
    let total = 0, wsum = 0;
    if (hasText) {
      total += weights.text * (acc.text ?? 0);
      wsum += weights.text;
    }
    for (const kind of kinds) {
      const s = acc.img[kind];
      if (s === null || weights[kind] === 0) continue;
      total += weights[kind] * norm(kind, s);
      wsum += weights[kind];
    }
    out.push({
      ...acc.base,
      score: round(wsum > 0 ? total / wsum : 0)!,
      components: {
        text_score: round(acc.text),
        ...Object.fromEntries(kinds.map((kind) => [`${kind}_score`, round(acc.img[kind])])),
      },
      images: acc.images,
    });
  }
  out.sort((a, b) => b.score - a.score || (a.chunk_id ?? "").localeCompare(b.chunk_id ?? ""));
  return out.slice(0, k);
}

/** Per-space mean of image vectors, unit-normalised (the pseudo-relevance-feedback query). */
export function meanVectors(vectors: readonly (readonly number[])[]): number[] | null {
  if (vectors.length === 0) return null;
  const out = new Array<number>(vectors[0].length).fill(0);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i] += v[i];
  return l2Normalize(out);
}
