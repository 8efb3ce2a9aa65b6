/**
 * KB documents: create (upsert by workspace, title, category), get, update (re-embeds only when
 * the content changed), delete, and create from a PDF. Writes run as the caller (RLS), after
 * the Pricing gate: pricing documents and admin-level categories are for owners and admins.
 *
 * POST /api/kb/documents/batch is ours, beyond the spec's gateway table: an import of up to 100
 * documents with kb_create_document's semantics each, in one transaction (docs/kb-performance.md).
 */
import { createRoute } from "@hono/zod-openapi";
import { HttpError } from "@shared/http/errors.ts";
import {
  documentBatchSchema,
  documentCreateSchema,
  documentFromPdfSchema,
  documentUpdateSchema,
} from "@shared/kb/schemas.ts";
import { checkPriceDocument, type UnparsedLine } from "@shared/kb/pricing.ts";
import { db, requireWorkspaceRole, WRITER_ROLES } from "@shared/auth/context.ts";
import { dbError, rows } from "@shared/supabase/postgrest.ts";
import { authorizeDocumentWrite, invisibleDocument } from "../kb/access.ts";
import { type KbDocument, updateDocument, upsertDocument, upsertDocuments } from "../kb/store.ts";
import { storePriceEntries } from "@shared/pricing/store.ts";
import { decodeBase64, pdfText } from "../kb/pdf.ts";
import { errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { router } from "../env.ts";

const tags = ["Knowledge base"];

/**
 * A price document must be readable by the pricing engine (a promotion needs its date range).
 * The answer's `warnings` name each skipped line; `unparsed_lines` ({line, text, reason}, ours,
 * additive) lists every line not understood or not used in prices (issue 32: every line with an
 * amount or a percentage is understood or listed).
 */
function checkPricing(
  priceDocType: string | null | undefined,
  content: string,
): { warnings: string[]; unparsed_lines: UnparsedLine[] } {
  if (!priceDocType) return { warnings: [], unparsed_lines: [] };
  const r = checkPriceDocument(priceDocType, content);
  if (!r.ok) {
    throw HttpError.badRequest(
      `content is not a valid ${priceDocType}: ${r.errors.join("; ")}`,
      r.errors.map((message) => ({ path: ["content"], message })),
    );
  }
  return { warnings: r.warnings, unparsed_lines: r.unparsed_lines };
}

/** Runs a check of documents[i], naming the document in the error it throws. */
async function forDocument<T>(i: number, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    const details = Array.isArray(err.details)
      ? err.details.map((d) => ({ ...d, path: ["documents", i, ...(Array.isArray(d?.path) ? d.path : [])] }))
      : err.details;
    throw new HttpError(err.status, err.code, `documents[${i}]: ${err.message}`, details);
  }
}

export function kbDocumentRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/kb/documents",
      tags,
      summary: "Create a KB document, or update it in place by (workspace_id, title, category_id)",
      request: jsonBody(documentCreateSchema),
      responses: {
        ...okJson("The document; re_embedded tells whether chunks were (re)built"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await authorizeDocumentWrite(c, body.workspace_id, body.category_id, body.price_doc_type);
      const checked = checkPricing(body.price_doc_type, body.content);
      const r = await upsertDocument({ db: db(c), embeddings: c.get("cfg").embeddings }, {
        ...body,
        category_id: body.category_id ?? null,
        source: "api",
      }, { syncPrice: true });
      return c.json({ ...r, ...checked }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/kb/documents/batch",
      tags,
      summary: "Create or update up to 100 KB documents in one transaction (imports)",
      description: "Each entry is kb_create_document's body without workspace_id and is written with its " +
        "semantics (upsert by title and category, re-embedded only when the content changed, price entries " +
        "in step). All or nothing: a refused entry fails the request with its index (`documents[i]: ...`) and " +
        "nothing is written. Billed as kb_create_document per document. Not in the spec's gateway table.",
      request: jsonBody(documentBatchSchema),
      responses: {
        ...okJson("{documents: [{document, created, re_embedded, warnings}]} in input order"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      // Authorisation per distinct (category, priced) pair: the same checks as one document.
      const checked = new Set<string>();
      const warnings: Array<ReturnType<typeof checkPricing>> = [];
      for (const [i, d] of body.documents.entries()) {
        const pair = `${d.category_id ?? ""}|${d.price_doc_type ?? ""}`;
        if (!checked.has(pair)) {
          await forDocument(
            i,
            () => authorizeDocumentWrite(c, body.workspace_id, d.category_id, d.price_doc_type),
          );
          checked.add(pair);
        }
        warnings.push(await forDocument(i, () => checkPricing(d.price_doc_type, d.content)));
      }
      const results = await upsertDocuments(
        { db: db(c), embeddings: c.get("cfg").embeddings },
        body.workspace_id,
        body.documents.map((d) => ({
          ...d,
          workspace_id: body.workspace_id,
          category_id: d.category_id ?? null,
          source: "api" as const,
        })),
        { syncPrice: true },
      );
      return c.json({ documents: results.map((r, i) => ({ ...r, ...warnings[i] })) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/kb/documents/from-pdf",
      tags,
      summary: "Create a KB document from a PDF (text extracted with a PDF library)",
      request: jsonBody(documentFromPdfSchema),
      responses: { ...okJson("The document and the number of pages read"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await authorizeDocumentWrite(c, body.workspace_id, body.category_id, body.price_doc_type);
      const pdf = await pdfText(decodeBase64(body.pdf_base64, c.get("cfg").maxPdfBytes ?? 20 * 1024 * 1024));
      const title = body.title ?? pdf.title ?? body.filename?.replace(/\.pdf$/i, "") ?? null;
      if (!title) {
        throw HttpError.badRequest("title is required when the PDF has no title and no filename is given");
      }
      const checked = checkPricing(body.price_doc_type, pdf.text);
      const r = await upsertDocument({ db: db(c), embeddings: c.get("cfg").embeddings }, {
        workspace_id: body.workspace_id,
        title,
        category_id: body.category_id ?? null,
        content: pdf.text,
        status: body.status,
        price_doc_type: body.price_doc_type,
        source: "pdf",
        metadata: { ...body.metadata, pdf: { filename: body.filename ?? null, pages: pdf.pages } },
      }, { syncPrice: true });
      return c.json({ ...r, pages: pdf.pages, ...checked }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/kb/documents/{doc_id}",
      tags,
      summary: "Get a KB document",
      request: { params: idParam("doc_id") },
      responses: { ...okJson("The document"), ...errorResponses },
    }),
    async (c) => {
      const { doc_id } = c.req.valid("param");
      const doc = rows(
        await db(c).from("kb_docs").select("*").eq("id", doc_id).maybeSingle(),
        "Document",
      );
      if (!doc) throw await invisibleDocument(c, doc_id);
      return c.json({ document: doc }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/api/kb/documents/{doc_id}",
      tags,
      summary: "Update a KB document; chunks are re-embedded only when the content changed",
      request: { params: idParam("doc_id"), ...jsonBody(documentUpdateSchema) },
      responses: {
        ...okJson("The document; re_embedded tells whether chunks were rebuilt"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { doc_id } = c.req.valid("param");
      const patch = c.req.valid("json");
      const current = rows(
        await db(c).from("kb_docs").select(
          "id, workspace_id, category_id, content, content_hash, price_doc_type",
        )
          .eq("id", doc_id).maybeSingle(),
        "Document",
      ) as KbDocument | null;
      if (!current) throw await invisibleDocument(c, doc_id);
      const categoryId = patch.category_id !== undefined ? patch.category_id : current.category_id;
      const priceDocType = patch.price_doc_type !== undefined ? patch.price_doc_type : current.price_doc_type;
      await authorizeDocumentWrite(c, current.workspace_id, categoryId, priceDocType);
      const checked = checkPricing(priceDocType, patch.content ?? current.content);
      const r = await updateDocument({ db: db(c), embeddings: c.get("cfg").embeddings }, current, patch);
      await storePriceEntries(db(c), r.document);
      return c.json({ ...r, ...checked }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/kb/documents/{doc_id}",
      tags,
      summary: "Delete a KB document with its chunks and attachments",
      request: { params: idParam("doc_id") },
      responses: { ...okJson("{deleted: true, id}"), ...errorResponses },
    }),
    async (c) => {
      const { doc_id } = c.req.valid("param");
      const current = rows(
        await db(c).from("kb_docs").select("id, workspace_id").eq("id", doc_id).maybeSingle(),
        "Document",
      ) as { id: string; workspace_id: string } | null;
      if (!current) throw await invisibleDocument(c, doc_id);
      await requireWorkspaceRole(c, current.workspace_id, WRITER_ROLES, "Deleting KB documents");
      const { data, error } = await db(c).from("kb_docs").delete().eq("id", doc_id).select("id");
      if (error) throw dbError(error, "Document");
      if (!data?.length) throw HttpError.forbidden("Not allowed to delete this document");
      return c.json({ deleted: true, id: doc_id }, 200);
    },
  );

  return app;
}
