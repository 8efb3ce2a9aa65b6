/**
 * KB documents: create (upsert by workspace, title, category), get, update (re-embeds only when
 * the content changed), delete, and create from a PDF. Writes run as the caller (RLS), after
 * the Pricing gate: pricing documents and admin-level categories are for owners and admins.
 * Domain: packages/shared/kb/documents.ts (storage in kb/store.ts, the gate in kb/access.ts).
 *
 * POST /api/kb/documents/batch is ours, beyond the spec's gateway table: an import of up to 100
 * documents with kb_create_document's semantics each, in one transaction (docs/kb-performance.md).
 */
import { createRoute } from "@hono/zod-openapi";
import { HttpError, toHttpError } from "@shared/http/errors.ts";
import { callerScope, workspaceScope } from "@shared/auth/scope.ts";
import {
  documentBatchSchema,
  documentCreateSchema,
  documentFromPdfSchema,
  documentUpdateSchema,
} from "@shared/kb/schemas.ts";
import {
  createDocument,
  createDocumentFromPdf,
  createDocuments,
  deleteDocument,
  DOCUMENT_WRITERS,
  patchDocument,
  readDocument,
} from "@shared/kb/documents.ts";
import { errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { type Ctx, router } from "../env.ts";

const tags = ["Knowledge base"];
const DEFAULT_MAX_PDF_BYTES = 20 * 1024 * 1024;

/** A writer of the workspace (outsiders 404, viewers 403). */
const writerScope = (c: Ctx, workspaceId: string) =>
  workspaceScope(c, workspaceId, DOCUMENT_WRITERS.roles, DOCUMENT_WRITERS.what);

/** The batch's writer check: a refusal names documents[0], as every refusal of a batch names its document. */
const batchScope = (c: Ctx, workspaceId: string) =>
  writerScope(c, workspaceId).catch((err) => {
    const refusal = toHttpError(err);
    if (!refusal) throw err;
    throw new HttpError(refusal.status, refusal.code, `documents[0]: ${refusal.message}`, refusal.details);
  });

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
      const scope = await writerScope(c, body.workspace_id);
      return c.json(await createDocument(scope, c.get("cfg").embeddings, body), 200);
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
      const scope = await batchScope(c, body.workspace_id);
      return c.json(await createDocuments(scope, c.get("cfg").embeddings, body.documents), 200);
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
      const scope = await writerScope(c, body.workspace_id);
      const { embeddings, maxPdfBytes = DEFAULT_MAX_PDF_BYTES } = c.get("cfg");
      return c.json(await createDocumentFromPdf(scope, { embeddings, maxPdfBytes }, body), 200);
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
    async (c) => c.json(await readDocument(callerScope(c), c.req.valid("param").doc_id), 200),
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
      const r = await patchDocument(callerScope(c), c.get("cfg").embeddings, doc_id, c.req.valid("json"));
      return c.json(r, 200);
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
    async (c) => c.json(await deleteDocument(callerScope(c), c.req.valid("param").doc_id), 200),
  );

  return app;
}
