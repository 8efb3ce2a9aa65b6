/**
 * KB documents as the API offers them: create (upsert by workspace, title, category), a batch of
 * them, create from a PDF, get, update (re-embeds only when the content changed) and delete.
 * Writes run as the caller (RLS) after the Pricing gate (access.ts): pricing documents and
 * admin-level categories are for owners and admins. Storage (chunk, embed, one atomic RPC) is
 * store.ts.
 *
 * A create takes the `WorkspaceScope` of a writer of the workspace (the HTTP layer checked it:
 * outsiders 404, viewers 403); get, update and delete name a document by id, so they take the
 * `CallerScope` and scope the document's workspace once it is read.
 */
import type { z } from "zod";
import { DomainError } from "../errors.ts";
import { WRITER_ROLES } from "../auth/context.ts";
import type { CallerScope, WorkspaceScope } from "../auth/scope.ts";
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import { storePriceEntries } from "../pricing/store.ts";
import { dbError, rows } from "../supabase/postgrest.ts";
import { authorizeDocumentWrite, invisibleDocument } from "./access.ts";
import { decodeBase64, pdfText } from "./pdf.ts";
import { checkPriceDocument, type UnparsedLine } from "./pricing.ts";
import type {
  documentBatchSchema,
  documentCreateSchema,
  documentFromPdfSchema,
  documentUpdateSchema,
} from "./schemas.ts";
import { type KbDocument, updateDocument, upsertDocument, upsertDocuments } from "./store.ts";

/** The role check a document write makes, and its wording in a refusal. */
export const DOCUMENT_WRITERS = { roles: WRITER_ROLES, what: "Writing KB documents" } as const;

/** A price document's warnings and the lines the price engine did not use (see checkPricing). */
export interface PricingCheck {
  warnings: string[];
  unparsed_lines: UnparsedLine[];
}

/**
 * A price document must be readable by the pricing engine (a promotion needs its date range).
 * The answer's `warnings` name each skipped line; `unparsed_lines` ({line, text, reason}, ours,
 * additive) lists every line not understood or not used in prices (issue 32: every line with an
 * amount or a percentage is understood or listed).
 */
export function checkPricing(priceDocType: string | null | undefined, content: string): PricingCheck {
  if (!priceDocType) return { warnings: [], unparsed_lines: [] };
  const r = checkPriceDocument(priceDocType, content);
  if (!r.ok) {
    throw DomainError.invalid(
      `content is not a valid ${priceDocType}: ${r.errors.join("; ")}`,
      r.errors.map((message) => ({ path: ["content"], message })),
    );
  }
  return { warnings: r.warnings, unparsed_lines: r.unparsed_lines };
}

/** Runs a check of documents[i]; a refusal names the document (`documents[i]: ...`, its paths under it). */
export async function atDocument<T>(i: number, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const details = Array.isArray(err.details)
      ? err.details.map((d) => ({ ...d, path: ["documents", i, ...(Array.isArray(d?.path) ? d.path : [])] }))
      : err.details;
    throw new DomainError(err.kind, err.code, `documents[${i}]: ${err.message}`, details);
  }
}

/** kb_create_document: insert, or update in place by (workspace_id, title, category_id). */
export async function createDocument(
  scope: WorkspaceScope,
  embeddings: EmbeddingProvider,
  body: Omit<z.infer<typeof documentCreateSchema>, "workspace_id">,
) {
  await authorizeDocumentWrite(scope, body.category_id, body.price_doc_type);
  const checked = checkPricing(body.price_doc_type, body.content);
  const r = await upsertDocument({ db: scope.db, embeddings }, {
    ...body,
    workspace_id: scope.workspaceId,
    category_id: body.category_id ?? null,
    source: "api",
  }, { syncPrice: true });
  return { ...r, ...checked };
}

/**
 * POST /api/kb/documents/batch: every document authorised and checked as kb_create_document
 * would (a refusal names its index), then written in one transaction. Authorisation runs once
 * per distinct (category, priced) pair.
 */
export async function createDocuments(
  scope: WorkspaceScope,
  embeddings: EmbeddingProvider,
  documents: z.infer<typeof documentBatchSchema>["documents"],
) {
  const authorised = new Set<string>();
  const checked: PricingCheck[] = [];
  for (const [i, d] of documents.entries()) {
    const pair = `${d.category_id ?? ""}|${d.price_doc_type ?? ""}`;
    if (!authorised.has(pair)) {
      await atDocument(i, () => authorizeDocumentWrite(scope, d.category_id, d.price_doc_type));
      authorised.add(pair);
    }
    checked.push(await atDocument(i, () => checkPricing(d.price_doc_type, d.content)));
  }
  const results = await upsertDocuments(
    { db: scope.db, embeddings },
    scope.workspaceId,
    documents.map((d) => ({
      ...d,
      workspace_id: scope.workspaceId,
      category_id: d.category_id ?? null,
      source: "api" as const,
    })),
    { syncPrice: true },
  );
  return { documents: results.map((r, i) => ({ ...r, ...checked[i] })) };
}

/** kb_create_from_pdf: the PDF's text (pdf.ts) as a document; `pages` says how many were read. */
export async function createDocumentFromPdf(
  scope: WorkspaceScope,
  deps: { embeddings: EmbeddingProvider; maxPdfBytes: number },
  body: Omit<z.infer<typeof documentFromPdfSchema>, "workspace_id">,
) {
  await authorizeDocumentWrite(scope, body.category_id, body.price_doc_type);
  const pdf = await pdfText(decodeBase64(body.pdf_base64, deps.maxPdfBytes));
  const title = body.title ?? pdf.title ?? body.filename?.replace(/\.pdf$/i, "") ?? null;
  if (!title) {
    throw DomainError.invalid("title is required when the PDF has no title and no filename is given");
  }
  const checked = checkPricing(body.price_doc_type, pdf.text);
  const r = await upsertDocument({ db: scope.db, embeddings: deps.embeddings }, {
    workspace_id: scope.workspaceId,
    title,
    category_id: body.category_id ?? null,
    content: pdf.text,
    status: body.status,
    price_doc_type: body.price_doc_type,
    source: "pdf",
    metadata: { ...body.metadata, pdf: { filename: body.filename ?? null, pages: pdf.pages } },
  }, { syncPrice: true });
  return { ...r, pages: pdf.pages, ...checked };
}

/** A document the caller can read, with `columns`; else 403 or 404 (invisibleDocument). */
async function visibleDocument<T>(who: CallerScope, docId: string, columns: string): Promise<T> {
  const doc = rows(
    await who.db.from("kb_docs").select(columns).eq("id", docId).maybeSingle(),
    "Document",
  ) as T | null;
  if (!doc) throw await invisibleDocument(who, docId);
  return doc;
}

/** kb_get_document. */
export async function readDocument(who: CallerScope, docId: string) {
  return { document: await visibleDocument<Record<string, unknown>>(who, docId, "*") };
}

/** kb_update_document: the Pricing gate on the result's category and type, then store.ts's update. */
export async function patchDocument(
  who: CallerScope,
  embeddings: EmbeddingProvider,
  docId: string,
  patch: z.infer<typeof documentUpdateSchema>,
) {
  const current = await visibleDocument<KbDocument>(
    who,
    docId,
    "id, workspace_id, category_id, content, content_hash, price_doc_type",
  );
  const categoryId = patch.category_id !== undefined ? patch.category_id : current.category_id;
  const priceDocType = patch.price_doc_type !== undefined ? patch.price_doc_type : current.price_doc_type;
  const scope = await who.workspace(current.workspace_id, DOCUMENT_WRITERS.roles, DOCUMENT_WRITERS.what);
  await authorizeDocumentWrite(scope, categoryId, priceDocType);
  const checked = checkPricing(priceDocType, patch.content ?? current.content);
  const r = await updateDocument({ db: scope.db, embeddings }, current, patch);
  await storePriceEntries(scope.db, r.document);
  return { ...r, ...checked };
}

/** kb_delete_document: with its chunks and attachments (writers of its workspace). */
export async function deleteDocument(who: CallerScope, docId: string) {
  const current = await visibleDocument<{ id: string; workspace_id: string }>(who, docId, "id, workspace_id");
  const scope = await who.workspace(current.workspace_id, WRITER_ROLES, "Deleting KB documents");
  const { data, error } = await scope.db.from("kb_docs").delete().eq("id", docId).select("id");
  if (error) throw dbError(error, "Document");
  if (!data?.length) throw DomainError.forbidden("Not allowed to delete this document");
  return { deleted: true, id: docId };
}
