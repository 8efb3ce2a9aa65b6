/**
 * Request schemas of the RAG retrieval actions (rag_search, rag_search_mmr, rag_search_advanced,
 * rag_query, rag_chat). The spec names the actions and says rag_search has six strategies
 * "incl. semantic, visual, hybrid"; the payloads are ours (written down in the module docs of
 * ./search.ts and ./answer.ts and in the notes).
 */
import { z } from "zod";
import { IMAGE_EMBEDDING_DIMENSIONS } from "../embeddings/image.ts";

export const STRATEGIES = ["semantic", "keyword", "hybrid", "visual", "multi_vector", "mmr"] as const;
export type Strategy = (typeof STRATEGIES)[number];
/** The text strategies the SQL function rag_search_chunks runs in one round trip. */
export const TEXT_MODES = ["semantic", "keyword", "hybrid"] as const;
export type TextMode = (typeof TEXT_MODES)[number];

const uuid = z.uuid();
const imageVector = z.array(z.number().finite()).length(IMAGE_EMBEDDING_DIMENSIONS);

/** Weights of multi-vector search: the text space and the five image spaces. */
export const weightsSchema = z.object({
  text: z.number().min(0).max(10).optional(),
  visual: z.number().min(0).max(10).optional(),
  color: z.number().min(0).max(10).optional(),
  texture: z.number().min(0).max(10).optional(),
  style: z.number().min(0).max(10).optional(),
  material: z.number().min(0).max(10).optional(),
}).strict().meta({
  description: "Multi-vector weights (defaults: text 0.5, visual 0.2, the other four 0.075)",
});

/** What narrows a search (rag_search_advanced; most also accepted by rag_search). */
export const filtersSchema = z.object({
  document_ids: z.array(uuid).min(1).max(500).optional(),
  product_ids: z.array(uuid).min(1).max(500).optional(),
  page_range: z.object({ from: z.number().int().min(1).optional(), to: z.number().int().min(1).optional() })
    .strict().refine((r) => r.from === undefined || r.to === undefined || r.from <= r.to, {
      message: "from must not be after to",
    }).optional().meta({ description: "Chunks overlapping these pages (images on them)" }),
  categories: z.array(z.string().trim().min(1).max(100)).min(1).max(50).optional().meta({
    description: "The chunk's product: metadata.category or one of metadata.materials (case-insensitive)",
  }),
  date_from: z.iso.datetime({ offset: true }).or(z.iso.date()).optional().meta({
    description: "Documents processed at or after (created_at)",
  }),
  date_to: z.iso.datetime({ offset: true }).or(z.iso.date()).optional().meta({
    description: "Documents processed at or before (a date alone means the end of that day, UTC)",
  }),
  min_score: z.number().min(-1).max(1).optional().meta({ description: "Minimum score of the strategy" }),
}).strict();
export type Filters = z.infer<typeof filtersSchema>;

const imageQuery = {
  image_id: uuid.optional().meta({ description: "Query by example: a document image the caller can see" }),
  image_base64: z.string().min(1).max(14_000_000).optional().meta({
    description: "A PNG/JPEG/GIF/WebP picture, base64 (data: URL prefix accepted)",
  }),
  image_embedding: imageVector.optional().meta({
    description: "A 768-d query vector in the visual space (e.g. from embeddings_clip_image)",
  }),
};

const base = {
  workspace_id: uuid.optional().meta({
    description: "Search this workspace only (the caller must be a member); default: every document the " +
      "caller can see (their uploads and their workspaces' documents)",
  }),
  query: z.string().trim().min(1).max(2000).optional(),
  top_k: z.number().int().min(1).max(50).default(10),
};

export const ragSearchSchema = z.object({
  ...base,
  strategy: z.enum(STRATEGIES).default("hybrid"),
  ...imageQuery,
  weights: weightsSchema.optional(),
  lambda: z.number().min(0).max(1).default(0.5),
  fetch_k: z.number().int().min(1).max(200).optional(),
  ...filtersSchema.shape,
}).strict().superRefine((v, ctx) => {
  const image = v.image_id !== undefined || v.image_base64 !== undefined || v.image_embedding !== undefined;
  const many = [v.image_id, v.image_base64, v.image_embedding].filter((x) => x !== undefined).length;
  if (many > 1) {
    ctx.addIssue({
      code: "custom",
      path: ["image_id"],
      message: "give one of image_id, image_base64, image_embedding",
    });
  }
  if (v.strategy === "visual" || v.strategy === "multi_vector") {
    if (!image && !v.query) {
      ctx.addIssue({ code: "custom", path: ["query"], message: "a query or an image is required" });
    }
  } else {
    if (!v.query) ctx.addIssue({ code: "custom", path: ["query"], message: "query is required" });
    if (image) {
      ctx.addIssue({
        code: "custom",
        path: ["strategy"],
        message: `images are searched by the visual or multi_vector strategy, not ${v.strategy}`,
      });
    }
  }
  if (v.fetch_k !== undefined && v.fetch_k < v.top_k) {
    ctx.addIssue({ code: "custom", path: ["fetch_k"], message: "fetch_k must be at least top_k" });
  }
}).meta({ id: "RagSearch" });
export type RagSearchInput = z.infer<typeof ragSearchSchema>;

export const ragMmrSchema = z.object({
  ...base,
  query: z.string().trim().min(1).max(2000),
  k: z.number().int().min(1).max(50).optional().meta({ description: "Results wanted (default top_k, 10)" }),
  fetch_k: z.number().int().min(1).max(200).optional().meta({
    description: "Candidates fetched (default 4 x k)",
  }),
  lambda: z.number().min(0).max(1).default(0.5).meta({
    description: "1 = relevance only, 0 = diversity only",
  }),
  ...filtersSchema.shape,
}).strict().refine((v) => v.fetch_k === undefined || v.fetch_k >= (v.k ?? v.top_k), {
  path: ["fetch_k"],
  message: "fetch_k must be at least k",
}).meta({ id: "RagSearchMmr" });

export const ragAdvancedSchema = z.object({
  ...base,
  query: z.string().trim().min(1).max(2000),
  strategy: z.enum(TEXT_MODES).default("hybrid"),
  filters: filtersSchema.default({}),
}).strict().meta({ id: "RagSearchAdvanced" });

/**
 * Default minimum cosine similarity of a chunk to count as context for an answer. Calibrated on
 * the local provider (an unrelated chunk scores about 0 to 0.08, one sharing the question's
 * product words 0.15 and up); set min_similarity per request for a hosted embedder.
 */
export const DEFAULT_MIN_SIMILARITY = 0.12;

const answerBase = {
  workspace_id: base.workspace_id,
  top_k: z.number().int().min(1).max(20).default(5).meta({ description: "Chunks retrieved as context" }),
  strategy: z.enum(TEXT_MODES).default("hybrid"),
  min_similarity: z.number().min(-1).max(1).default(DEFAULT_MIN_SIMILARITY).meta({
    description:
      "A chunk is context only with vector_score at least this; none: a not-found answer, no model call",
  }),
  document_ids: filtersSchema.shape.document_ids,
  product_ids: filtersSchema.shape.product_ids,
  max_tokens: z.number().int().min(64).max(4096).default(1024),
};

export const ragQuerySchema = z.object({
  ...answerBase,
  query: z.string().trim().min(1).max(4000),
}).strict().meta({ id: "RagQuery" });
export type RagQueryInput = z.infer<typeof ragQuerySchema>;

export const chatTurnSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.string().min(1).max(8000),
}).strict();

export const ragChatSchema = z.object({
  ...answerBase,
  message: z.string().trim().min(1).max(4000),
  history: z.array(chatTurnSchema).max(40).default([]).meta({
    description: "The conversation so far, oldest first, as the client keeps it (the server stores none): " +
      "user and assistant turns alternating, starting with user and ending with assistant",
  }),
}).strict().superRefine((v, ctx) => {
  v.history.forEach((t, i) => {
    const want = i % 2 === 0 ? "user" : "assistant";
    if (t.role !== want) {
      ctx.addIssue({
        code: "custom",
        path: ["history", i, "role"],
        message: `turn ${i} must be ${want} (turns alternate, user first)`,
      });
    }
  });
  if (v.history.length % 2 === 1) {
    ctx.addIssue({ code: "custom", path: ["history"], message: "history must end with an assistant turn" });
  }
}).meta({ id: "RagChat" });
export type RagChatInput = z.infer<typeof ragChatSchema>;
