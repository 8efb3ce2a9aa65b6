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
 *
 * Every chunk carries its embedding's SimHash sketch (embeddings/simhash.ts), which the vector
 * index is built on. upsertDocuments is the batch form (POST /api/kb/documents/batch): many
 * documents, one embedding call, one kb_upsert_documents transaction.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { chunkMarkdown, embeddingInput } from "./chunking.ts";
import { contentHash } from "../content_hash.ts";
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import { embeddingSketch } from "../embeddings/simhash.ts";
import { DomainError } from "../errors.ts";
import { dbError, readInGroups } from "../supabase/postgrest.ts";
import { priceEntriesRow } from "../pricing/store.ts";

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
  /** SimHash sketch of the embedding for the vector index (simhash.ts). */
  embedding_sketch: string;
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
  return (await embedDocuments(embeddings, [content]))[0];
}

/**
 * Chunks several documents and embeds all their chunks in one provider call (the remote adapters
 * split it into their batch size), so a batch of documents costs one round trip, not one each.
 */
export async function embedDocuments(
  embeddings: EmbeddingProvider,
  contents: readonly string[],
): Promise<ChunkRow[][]> {
  const chunked = contents.map((content) => chunkMarkdown(content));
  const texts = chunked.flatMap((chunks) => chunks.map(embeddingInput));
  const vectors = texts.length ? await embeddings.embed(texts, "document") : [];
  let next = 0;
  return chunked.map((chunks) =>
    chunks.map((ch) => {
      // float32 is what pgvector stores: seven significant digits lose nothing and halve the payload.
      const embedding = vectors[next++].map((x) => Number(x.toPrecision(7)));
      return { ...ch, embedding, embedding_sketch: embeddingSketch(embedding) };
    })
  );
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

/** kb_upsert_document's arguments for one document, without the `p_` prefix (kb_upsert_documents' form). */
function writeArgs(
  input: UpsertInput,
  hash: string,
  chunks: ChunkRow[] | null,
  model: string,
  assumedId: string,
  syncPrice: boolean,
): Record<string, unknown> {
  const price = syncPrice
    ? priceEntriesRow({
      id: assumedId,
      workspace_id: input.workspace_id,
      title: input.title,
      content: input.content,
      content_hash: hash,
      price_doc_type: input.price_doc_type ?? null,
    })
    : null;
  return {
    title: input.title,
    category_id: input.category_id,
    content: input.content,
    content_hash: hash,
    status: input.status ?? null,
    price_doc_type: input.price_doc_type ?? null,
    source: input.source,
    metadata: input.metadata ?? null,
    chunks,
    embedding_model: chunks ? model : null,
    sync_price: syncPrice,
    price,
    assumed_id: syncPrice ? assumedId : null,
  };
}

type Existing = { id: string; content_hash: string };

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
    return existing.data as Existing | null;
  };
  let existing = await readExisting();
  let chunks = existing?.content_hash === hash ? null : await embedDocument(deps.embeddings, input.content);
  const placeholder = crypto.randomUUID();
  for (let attempt = 0;; attempt++) {
    const args = writeArgs(
      input,
      hash,
      chunks,
      deps.embeddings.model,
      existing?.id ?? placeholder,
      opts.syncPrice ?? false,
    );
    const { data, error, status } = await deps.db.rpc("kb_upsert_document", {
      p_workspace_id: input.workspace_id,
      ...Object.fromEntries(Object.entries(args).map(([k, v]) => [`p_${k}`, v])),
    });
    if (!error) return data as WriteResult;
    if (attempt === 0 && error.code && RETRYABLE.has(error.code)) {
      chunks ??= await embedDocument(deps.embeddings, input.content);
      // Another writer created or changed it: its id is the one the entries must name.
      if (opts.syncPrice) existing = await readExisting();
      continue;
    }
    throw dbError(error, "Document", status);
  }
}

/**
 * The batch form of upsertDocument (POST /api/kb/documents/batch): every document of one
 * workspace written by one kb_upsert_documents call, in one transaction, after one existing-rows
 * read per ~6 kB of titles and one embedding call for all the changed documents. Results in input
 * order. Callers have rejected repeated (title, category_id) pairs.
 */
export async function upsertDocuments(
  deps: KbDeps,
  workspaceId: string,
  inputs: readonly UpsertInput[],
  opts: { syncPrice?: boolean } = {},
): Promise<WriteResult[]> {
  const hashes = await Promise.all(inputs.map((d) => contentHash(d.content)));
  const key = (title: string, category: string | null) => `${category ?? ""}\u0000${title}`;
  const readExisting = async () => {
    // A GET per ~6 kB of encoded titles: a 500-character title alone can take ~4.5 kB.
    const { data, error } = await readInGroups<Existing & { title: string; category_id: string | null }>(
      [...new Set(inputs.map((d) => d.title))],
      (list) =>
        deps.db.from("kb_docs").select("id, title, category_id, content_hash").eq("workspace_id", workspaceId)
          .filter("title", "in", list),
    );
    if (error) throw dbError(error, "Document");
    const found = new Map(data.map((r) => [key(r.title, r.category_id), r]));
    return inputs.map((d) => found.get(key(d.title, d.category_id)) ?? null);
  };
  const embedWhere = async (need: boolean[], into: (ChunkRow[] | null)[]) => {
    const which = inputs.map((_, i) => i).filter((i) => need[i]);
    const embedded = await embedDocuments(deps.embeddings, which.map((i) => inputs[i].content));
    which.forEach((i, k) => into[i] = embedded[k]);
  };
  let existing = await readExisting();
  const chunks: (ChunkRow[] | null)[] = inputs.map(() => null);
  await embedWhere(existing.map((e, i) => e?.content_hash !== hashes[i]), chunks);
  const placeholders = inputs.map(() => crypto.randomUUID());
  for (let attempt = 0;; attempt++) {
    const documents = inputs.map((d, i) =>
      writeArgs(
        d,
        hashes[i],
        chunks[i],
        deps.embeddings.model,
        existing[i]?.id ?? placeholders[i],
        opts.syncPrice ?? false,
      )
    );
    const { data, error, status } = await deps.db.rpc("kb_upsert_documents", {
      p_workspace_id: workspaceId,
      p_documents: documents,
    });
    if (!error) return data as WriteResult[];
    if (attempt === 0 && error.code && RETRYABLE.has(error.code)) {
      // Another writer created or changed some of them: embed the rest and read their ids again.
      await embedWhere(chunks.map((c) => c === null), chunks);
      existing = await readExisting();
      continue;
    }
    throw dbError(error, status === 413 || error.code === "PGRST102" ? "The batch" : "Document", status);
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
    const { data, error, status } = await deps.db.rpc("kb_update_document", {
      p_doc_id: current.id,
      p_patch: patch,
      p_content_hash: hash,
      p_chunks: chunks,
      p_embedding_model: chunks ? deps.embeddings.model : null,
    });
    if (!error) {
      if (data === null) throw DomainError.notFound("Document not found");
      return data as WriteResult;
    }
    if (attempt === 0 && error.code === "40001" && patch.content !== undefined) {
      chunks = await embedDocument(deps.embeddings, patch.content);
      continue;
    }
    throw dbError(error, "Document", status);
  }
}
