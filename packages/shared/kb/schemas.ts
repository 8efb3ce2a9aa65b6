/**
 * Request schemas of the knowledge-base API (the spec's payloads), shared by the AI backend's
 * validation and its OpenAPI document. Plain zod 4 with `.meta()`, so this package does not
 * depend on the HTTP framework. Every schema is strict: a payload key the action does not declare
 * (a misspelling, a made-up option) is a 400 naming it (`unknown field "top-k"`), through the
 * gateway as directly.
 */
import { z } from "zod";
import { PriceDocTypeSchema } from "../pricing/schemas.ts";

export const ACCESS_LEVELS = ["public", "member", "admin"] as const;
const DOC_STATUSES = ["draft", "published", "archived"] as const;
const SEARCH_TYPES = ["products", "entities", "chunks", "kb_docs"] as const;
export const KB_CALLERS = ["admin", "agent", "public"] as const;
const RELATIONSHIP_TYPES = [
  "primary",
  "supplementary",
  "related",
  "certificate",
  "specification",
] as const;

/** The Pricing category's slug (spec: kb_categories). */
export const PRICING_SLUG = "pricing";

/**
 * Default minimum relevance_score of a search hit (see the hybrid formula in
 * 20260102000300_kb_hybrid_search.sql). Calibrated on the local provider, where an unrelated
 * chunk scores about 0 to 0.1 and a chunk sharing the query's product words 0.2 and up.
 */
const DEFAULT_MATCH_THRESHOLD = 0.15;

const uuid = z.uuid();
const priceDocType = PriceDocTypeSchema.meta({
  description: "Pricing document type (Pricing category only)",
});
const metadata = z.record(z.string(), z.unknown()).meta({ description: "Free-form metadata" });

const slugSchema = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "lower-case words joined by hyphens")
  .max(100);

export const categoryCreateSchema = z.strictObject({
  workspace_id: uuid,
  name: z.string().trim().min(1).max(200),
  slug: slugSchema.optional().meta({
    description: "Defaults to the name, slugified; `pricing` is the Pricing category",
  }),
  description: z.string().max(2000).optional(),
  access_level: z.enum(ACCESS_LEVELS).optional().meta({
    description: "public, member (default) or admin (owners and admins only; forced for pricing)",
  }),
  trigger_keyword: z.string().max(200).nullish(),
}).meta({ id: "KbCategoryCreate" });

export const categoryListSchema = z.strictObject({ workspace_id: uuid.optional() }).meta({
  id: "KbCategoryListQuery",
});

export const documentCreateSchema = z.strictObject({
  workspace_id: uuid,
  title: z.string().trim().min(1).max(500),
  category_id: uuid.nullish(),
  status: z.enum(DOC_STATUSES).optional().meta({ description: "Default published" }),
  price_doc_type: priceDocType.nullish(),
  content: z.string().min(1).max(1_000_000).meta({ description: "Markdown" }),
  metadata: metadata.optional(),
}).meta({ id: "KbDocumentCreate" });

/** Documents per POST /api/kb/documents/batch, and the request body's cap in bytes. */
export const KB_BATCH_MAX_DOCUMENTS = 100;
export const KB_BATCH_MAX_BYTES = 10 * 1024 * 1024;

export const documentBatchSchema = z.strictObject({
  workspace_id: uuid,
  documents: z.array(documentCreateSchema.omit({ workspace_id: true })).min(1).max(KB_BATCH_MAX_DOCUMENTS)
    .meta({
      description:
        `1-${KB_BATCH_MAX_DOCUMENTS} documents, each as kb_create_document's body without workspace_id`,
    }),
}).superRefine((body, ctx) => {
  // Two entries with one (title, category_id) would write one document twice.
  const first = new Map<string, number>();
  body.documents.forEach((d, i) => {
    const key = `${d.category_id ?? ""}\u0000${d.title}`;
    const j = first.get(key);
    if (j === undefined) first.set(key, i);
    else {
      ctx.addIssue({
        code: "custom",
        path: ["documents", i, "title"],
        message: `repeats documents[${j}] (same title and category_id)`,
      });
    }
  });
}).meta({ id: "KbDocumentBatch" });

export const documentUpdateSchema = z.strictObject({
  title: z.string().trim().min(1).max(500).optional(),
  category_id: uuid.nullable().optional(),
  status: z.enum(DOC_STATUSES).optional(),
  price_doc_type: priceDocType.nullable().optional(),
  content: z.string().min(1).max(1_000_000).optional(),
  metadata: metadata.optional(),
}).refine((v) => Object.keys(v).length > 0, { message: "at least one field to change is required" })
  .meta({ id: "KbDocumentUpdate" });

export const documentFromPdfSchema = z.strictObject({
  workspace_id: uuid,
  pdf_base64: z.string().min(1).meta({
    description: "The PDF file, base64 (a data: URL prefix is accepted)",
  }),
  filename: z.string().max(300).optional(),
  title: z.string().trim().min(1).max(500).optional().meta({
    description: "Defaults to the PDF's title or file name",
  }),
  category_id: uuid.nullish(),
  status: z.enum(DOC_STATUSES).optional(),
  price_doc_type: priceDocType.nullish(),
  metadata: metadata.optional(),
}).meta({ id: "KbDocumentFromPdf" });

export const attachmentCreateSchema = z.strictObject({
  doc_id: uuid,
  product_id: uuid,
  relationship_type: z.enum(RELATIONSHIP_TYPES).default("related"),
  notes: z.string().max(2000).optional(),
}).meta({ id: "KbAttachmentCreate" });

const priceDocTypes = z.union([priceDocType, z.array(priceDocType).min(1)]);

export const kbSearchSchema = z.strictObject({
  workspace_id: uuid,
  query: z.string().trim().min(1).max(2000),
  category_id: uuid.optional(),
  category_slug: slugSchema.optional(),
  price_doc_type: priceDocTypes.optional(),
  require_published: z.boolean().default(false),
  allowed_access_levels: z.array(z.enum(ACCESS_LEVELS)).min(1).optional(),
  match_threshold: z.number().min(-1).max(1).default(DEFAULT_MATCH_THRESHOLD),
  limit: z.number().int().min(1).max(50).default(10),
}).meta({ id: "KbSearch" });

export const searchKnowledgeBaseSchema = z.strictObject({
  workspace_id: uuid,
  query: z.string().trim().min(1).max(2000),
  search_types: z.array(z.enum(SEARCH_TYPES)).min(1).default(["kb_docs"]),
  top_k: z.number().int().min(1).max(50).default(8),
  similarity_threshold: z.number().min(-1).max(1).default(DEFAULT_MATCH_THRESHOLD),
  caller: z.enum(KB_CALLERS).default("agent"),
  category_slug: slugSchema.optional(),
  category_id: uuid.optional(),
  price_doc_type: priceDocTypes.optional(),
}).meta({ id: "SearchKnowledgeBase" });

export type AccessLevel = (typeof ACCESS_LEVELS)[number];
