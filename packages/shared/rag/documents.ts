/**
 * The RAG group's reads of what the PDF pipeline produced, as the caller (row-level security: a
 * document is seen by its uploader and its workspace's members): documents and their content,
 * chunks, images, products, embeddings, the pipeline's health and the caller's statistics, and
 * which job a document the caller uploaded belongs to (for its deletion).
 */
import { DomainError } from "../errors.ts";
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import { IMAGE_EMBEDDING_DIMENSIONS, IMAGE_EMBEDDING_KINDS } from "../embeddings/image.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { dbError, readPages, rows } from "../supabase/postgrest.ts";

/** A page of a list: `limit` rows from `offset`. */
export interface Page {
  limit: number;
  offset: number;
}

const range = (p: Page): [number, number] => [p.offset, p.offset + p.limit - 1];

/**
 * The most rows of each kind (products, chunks, images) /content answers in one response: 100,000
 * chunks of the smallest chunk size is more text than a 50 MB upload holds. Past it the endpoint
 * answers 413 naming the paged lists instead of a truncated document.
 */
const CONTENT_CAP = 100_000;

const IMAGE_COLUMNS =
  "id, document_id, filename, storage_url, page_number, width, height, category, confidence, created_at";

/** A processed document the caller can see, or 404. */
export async function visibleDocument(db: SupabaseClient, id: string): Promise<Record<string, unknown>> {
  const doc = rows(await db.from("pipeline_documents").select("*").eq("id", id).maybeSingle(), "Document");
  if (!doc) throw DomainError.notFound("Document not found");
  return doc as Record<string, unknown>;
}

/** The processed documents the caller can see, newest first. */
export async function listDocuments(db: SupabaseClient, page: Page) {
  const res = await db.from("pipeline_documents").select("*", { count: "exact" })
    .order("created_at", { ascending: false }).range(...range(page));
  const documents = rows(res, "Document");
  return { documents, total: res.count ?? documents.length, ...page };
}

/** A document with all its products, chunks and images (413 past CONTENT_CAP of one kind). */
export async function documentContent(db: SupabaseClient, documentId: string) {
  const document = await visibleDocument(db, documentId);
  // Each read pages through max_rows (1,000) ordered by a key unique within the document, so
  // the answer is the whole document, not its first 1,000 chunks or images.
  const all = async (what: string, query: () => unknown) => {
    const r = await readPages<Record<string, unknown>>(query, CONTENT_CAP + 1);
    if (r.error) throw dbError(r.error, what);
    if (r.data.length > CONTENT_CAP) {
      throw new DomainError(
        "too_large",
        "content_too_large",
        `The document has more than ${CONTENT_CAP} ${what.toLowerCase()} rows; ` +
          "read them page by page from /api/rag/chunks, /api/rag/images or /api/rag/products",
      );
    }
    return r.data;
  };
  const [products, chunks, images] = await Promise.all([
    all(
      "Product",
      () =>
        db.from("pipeline_products").select("*").eq("document_id", documentId).order("page_start").order(
          "name",
        ),
    ),
    all(
      "Chunk",
      () =>
        db.from("document_chunks").select("id, chunk_index, content, page_start, page_end, product_id")
          .eq("document_id", documentId).order("chunk_index"),
    ),
    all(
      "Image",
      () => db.from("document_images").select(IMAGE_COLUMNS).eq("document_id", documentId).order("filename"),
    ),
  ]);
  return { document, products, chunks, images };
}

/** The per-document lists: the answer's key, the table, its columns and order. */
export const DOCUMENT_LISTS = {
  chunks: {
    table: "document_chunks",
    columns: "id, chunk_index, content, page_start, page_end, product_id, embedding_model",
    order: "chunk_index",
  },
  images: { table: "document_images", columns: IMAGE_COLUMNS, order: "filename" },
  products: { table: "pipeline_products", columns: "*", order: "page_start" },
} as const;

/** A page of a document's chunks, images or products: `{document_id, <kind>: [...], total}`. */
export async function documentRows(
  db: SupabaseClient,
  kind: keyof typeof DOCUMENT_LISTS,
  documentId: string,
  page: Page,
) {
  await visibleDocument(db, documentId);
  const { table, columns, order } = DOCUMENT_LISTS[kind];
  const res = await db.from(table).select(columns, { count: "exact" }).eq("document_id", documentId)
    .order(order).range(...range(page));
  const items = rows(res, "Row");
  return { document_id: documentId, [kind]: items, total: res.count ?? items.length };
}

/** A page of a document's embeddings: chunk text vectors (1024) and the five image vectors (768). */
export async function documentEmbeddings(
  db: SupabaseClient,
  documentId: string,
  page: Page,
  withVectors: boolean,
) {
  await visibleDocument(db, documentId);
  const chunkCols = `id, chunk_index, embedding_model${withVectors ? ", embedding" : ""}`;
  const imageCols = `id, filename${
    withVectors ? ", " + IMAGE_EMBEDDING_KINDS.map((k) => `${k}_slig_768`).join(", ") : ""
  }`;
  const [chunks, images] = await Promise.all([
    db.from("document_chunks").select(chunkCols).eq("document_id", documentId).order("chunk_index")
      .range(...range(page)),
    db.from("document_images").select(imageCols).eq("document_id", documentId).order("filename")
      .range(...range(page)),
  ]);
  return {
    document_id: documentId,
    text: { dimensions: 1024, input_type: "document", chunks: rows(chunks, "Chunk") },
    image: {
      dimensions: IMAGE_EMBEDDING_DIMENSIONS,
      kinds: IMAGE_EMBEDDING_KINDS.map((k) => `${k}_slig_768`),
      images: rows(images, "Image"),
    },
  };
}

/** The pipeline's providers and whether its language model is configured (else `degraded`). */
export function ragHealth(
  o: { stages: readonly string[]; embeddings: EmbeddingProvider; llmConfigured: boolean },
) {
  return {
    status: o.llmConfigured ? "healthy" : "degraded",
    stages: o.stages,
    text_embeddings: {
      provider: o.embeddings.name,
      model: o.embeddings.model,
      dimensions: o.embeddings.dimensions,
    },
    image_embeddings: { provider: "local", dimensions: IMAGE_EMBEDDING_DIMENSIONS },
    llm_configured: o.llmConfigured,
  };
}

/** Counts over what the caller can see: jobs by status, documents, products, chunks, images. */
export async function ragStats(db: SupabaseClient) {
  const count = async (table: string) => {
    const res = await db.from(table).select("*", { count: "exact", head: true });
    if (res.error) rows(res, table);
    return res.count ?? 0;
  };
  // Counted in SQL over the jobs RLS lets the caller see (a read of ai_jobs would stop at
  // max_rows, 1,000 rows, without an error).
  const jobs_by_status = rows(await db.rpc("ai_jobs_status_counts"), "Job counts") as Record<string, number>;
  const [documents, products, chunks, images] = await Promise.all(
    ["pipeline_documents", "pipeline_products", "document_chunks", "document_images"].map(count),
  );
  return { jobs_by_status, documents, products, chunks, images };
}

/**
 * The job of a document the caller uploaded: 404 unseen, 401 without a user (the service role
 * uploads nothing), 403 for a reader who did not upload it.
 */
export async function uploadedDocumentJob(
  db: SupabaseClient,
  userId: string | null,
  documentId: string,
): Promise<string> {
  const doc = await visibleDocument(db, documentId);
  if (userId === null) throw DomainError.unauthenticated("A signed-in user is required");
  if (doc.user_id !== userId) throw DomainError.forbidden("Only the uploader can delete a document");
  return doc.job_id as string;
}
