/**
 * Search shaping: which access levels a caller kind may search, when search_knowledge_base is
 * the quick-pick mode, and the exact fields of a quick-pick result (spec: "Quick-pick search
 * result chunk").
 */
import { ACCESS_LEVELS, type AccessLevel, KB_CALLERS, PRICING_SLUG } from "./schemas.ts";

/**
 * Access levels each `caller` of search_knowledge_base searches. RLS still decides: an `admin`
 * or `agent` caller who is not an owner or admin of the workspace sees no admin-level chunks.
 */
const CALLER_ACCESS_LEVELS: Record<(typeof KB_CALLERS)[number], readonly AccessLevel[]> = {
  admin: ACCESS_LEVELS,
  agent: ACCESS_LEVELS,
  public: ["public"],
};

/** Intersection of the caller kind's levels and an explicit allowed_access_levels filter. */
export function allowedAccessLevels(
  caller: (typeof KB_CALLERS)[number] | null,
  explicit: readonly AccessLevel[] | undefined,
): AccessLevel[] | null {
  const base = caller ? CALLER_ACCESS_LEVELS[caller] : null;
  if (!base && !explicit) return null;
  if (!base) return [...explicit!];
  if (!explicit) return [...base];
  return base.filter((l) => explicit.includes(l));
}

export function isQuickPick(categorySlug: string | undefined | null): boolean {
  return categorySlug === PRICING_SLUG;
}

/** A row of public.kb_hybrid_search. */
export interface HybridRow {
  chunk_id: string;
  doc_id: string;
  document_title: string;
  content: string;
  chunk_index: number;
  heading: string | null;
  category_id: string | null;
  category_slug: string | null;
  category_name: string | null;
  access_level: string;
  price_doc_type: string | null;
  status: string;
  vector_score: number;
  text_score: number;
  relevance_score: number;
}

/** The spec's quick-pick result: exactly these seven fields, id being kb_docs.id. */
export interface QuickPickResult {
  id: string;
  document_title: string;
  content: string;
  category_slug: string;
  category_name: string;
  price_doc_type: string | null;
  relevance_score: number;
}

export const QUICK_PICK_FIELDS = [
  "id",
  "document_title",
  "content",
  "category_slug",
  "category_name",
  "price_doc_type",
  "relevance_score",
] as const;

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function toQuickPick(row: HybridRow): QuickPickResult {
  return {
    id: row.doc_id,
    document_title: row.document_title,
    content: row.content,
    category_slug: row.category_slug ?? PRICING_SLUG,
    category_name: row.category_name ?? "",
    price_doc_type: row.price_doc_type,
    relevance_score: round(row.relevance_score),
  };
}

/** A kb_search / hybrid-mode hit: the quick-pick fields plus where the chunk sits and why it ranked. */
export function toSearchHit(row: HybridRow) {
  return {
    id: row.doc_id,
    chunk_id: row.chunk_id,
    document_title: row.document_title,
    content: row.content,
    chunk_index: row.chunk_index,
    heading: row.heading,
    category_id: row.category_id,
    category_slug: row.category_slug,
    category_name: row.category_name,
    access_level: row.access_level,
    price_doc_type: row.price_doc_type,
    status: row.status,
    vector_score: round(row.vector_score),
    text_score: round(row.text_score),
    relevance_score: round(row.relevance_score),
  };
}

/** `Tiles & Adhesives 2026` -> `tiles-adhesives-2026`. */
export function slugify(name: string): string {
  return name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 100) || "category";
}
