/**
 * Writing KB documents: chunk and embed outside the database, then one atomic RPC
 * (kb_upsert_document / kb_update_document) stores the row and, if the content changed, its
 * chunks. Embedding happens only when the content hash differs from the stored one; if another
 * writer changed the content in between, the RPC answers 40001 and we embed and retry once.
 *
 * With `syncPrice`, upsertDocument also parses a priced document's content into its
 * price_entries row and kb_upsert_document stores it in the same transaction (what the ingest
 * hook storePriceEntries did afterwards in two more round trips; a failure can no longer leave
 * a document without its entries). A new document's id is not known before the RPC, so the
 * entries are parsed with a placeholder id that the SQL replaces with the real one.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { chunkMarkdown, embeddingInput } from "@shared/kb/chunking.ts";
import { contentHash } from "@shared/content_hash.ts";
import type { EmbeddingProvider } from "@shared/embeddings/provider.ts";
import { HttpError } from "@shared/http/errors.ts";
import { dbError } from "@shared/supabase/postgrest.ts";
import { priceEntriesRow } from "@shared/pricing/store.ts";

export interface KbDeps {
  db: SupabaseClient;
  embeddings: EmbeddingProvider;
}

export interface ChunkRow {
  chunk_index: number;
  heading: string | null;
  content: string;
  char_start: number;
  char_end: number;
  embedding: number[];
}

export interface KbDocument {
  id: string;
  workspace_id: string;
  category_id: string | null;
  title: string;
  content: string;
  content_hash: string;
  status: string;
  price_doc_type: string | null;
  chunk_count: number;
  [k: string]: unknown;
}

export interface WriteResult {
  document: KbDocument;
  created?: boolean;
  re_embedded: boolean;
}

/** Chunks a document and embeds every chunk (input type `document`). */
export async function embedDocument(embeddings: EmbeddingProvider, content: string): Promise<ChunkRow[]> {
  const chunks = chunkMarkdown(content);
  if (!chunks.length) return [];
  const vectors = await embeddings.embed(chunks.map(embeddingInput), "document");
  // float32 is what pgvector stores: seven significant digits lose nothing and halve the payload.
  return chunks.map((ch, i) => ({ ...ch, embedding: vectors[i].map((x) => Number(x.toPrecision(7))) }));
}

const RETRYABLE = new Set(["40001", "23505"]);

export interface UpsertInput {
  workspace_id: string;
  title: string;
  category_id: string | null;
  content: string;
  status?: string;
  price_doc_type?: string | null;
  source: "manual" | "pdf" | "api";
  metadata?: Record<string, unknown>;
}

/**
 * kb_create_document: insert, or update in place by (workspace_id, title, category_id). With
 * `syncPrice`, the document's price_entries row is kept in step in the same transaction.
 */
export async function upsertDocument(
  deps: KbDeps,
  input: UpsertInput,
  opts: { syncPrice?: boolean } = {},
): Promise<WriteResult> {
  const hash = await contentHash(input.content);
  const readExisting = async () => {
    let q = deps.db.from("kb_docs").select("id, content_hash")
      .eq("workspace_id", input.workspace_id).eq("title", input.title);
    q = input.category_id ? q.eq("category_id", input.category_id) : q.is("category_id", null);
    const existing = await q.maybeSingle();
    if (existing.error) throw dbError(existing.error, "Document");
    return existing.data as { id: string; content_hash: string } | null;
  };
  let existing = await readExisting();
  let chunks = existing?.content_hash === hash ? null : await embedDocument(deps.embeddings, input.content);
  const placeholder = crypto.randomUUID();
  for (let attempt = 0;; attempt++) {
    const assumedId = existing?.id ?? placeholder;
    const price = opts.syncPrice
      ? priceEntriesRow({
        id: assumedId,
        workspace_id: input.workspace_id,
        title: input.title,
        content: input.content,
        content_hash: hash,
        price_doc_type: input.price_doc_type ?? null,
      })
      : null;
    const { data, error } = await deps.db.rpc("kb_upsert_document", {
      p_workspace_id: input.workspace_id,
      p_title: input.title,
      p_category_id: input.category_id,
      p_content: input.content,
      p_content_hash: hash,
      p_status: input.status ?? null,
      p_price_doc_type: input.price_doc_type ?? null,
      p_source: input.source,
      p_metadata: input.metadata ?? null,
      p_chunks: chunks,
      p_embedding_model: chunks ? deps.embeddings.model : null,
      ...(opts.syncPrice ? { p_sync_price: true, p_price: price, p_assumed_id: assumedId } : {}),
    });
    if (!error) return data as WriteResult;
    if (attempt === 0 && error.code && RETRYABLE.has(error.code)) {
      chunks ??= await embedDocument(deps.embeddings, input.content);
      // Another writer created or changed it: its id is the one the entries must name.
      if (opts.syncPrice) existing = await readExisting();
      continue;
    }
    throw dbError(error, "Document");
  }
}

export interface DocumentPatch {
  title?: string;
  category_id?: string | null;
  status?: string;
  price_doc_type?: string | null;
  content?: string;
  metadata?: Record<string, unknown>;
}

/** kb_update_document: re-embeds only when the content hash changes. */
export async function updateDocument(
  deps: KbDeps,
  current: Pick<KbDocument, "id" | "content_hash">,
  patch: DocumentPatch,
): Promise<WriteResult> {
  const hash = patch.content !== undefined ? await contentHash(patch.content) : null;
  let chunks = hash !== null && hash !== current.content_hash
    ? await embedDocument(deps.embeddings, patch.content!)
    : null;
  for (let attempt = 0;; attempt++) {
    const { data, error } = await deps.db.rpc("kb_update_document", {
      p_doc_id: current.id,
      p_patch: patch,
      p_content_hash: hash,
      p_chunks: chunks,
      p_embedding_model: chunks ? deps.embeddings.model : null,
    });
    if (!error) {
      if (data === null) throw HttpError.notFound("Document not found");
      return data as WriteResult;
    }
    if (attempt === 0 && error.code === "40001" && patch.content !== undefined) {
      chunks = await embedDocument(deps.embeddings, patch.content);
      continue;
    }
    throw dbError(error, "Document");
  }
}
