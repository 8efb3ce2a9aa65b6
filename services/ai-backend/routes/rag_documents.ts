/**
 * The RAG group's reads of what the pipeline produced, as the caller (row-level security: a
 * document is seen by its uploader and its workspace's members): documents and their content,
 * chunks, images, products, embeddings, the pipeline's health and the caller's statistics, and
 * deleting a document the caller uploaded. Domain: packages/shared/rag/documents.ts; the
 * deletion is the pipeline's (pipeline/admin.ts deleteJob).
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { HttpError } from "@shared/http/errors.ts";
import { caller, db, serviceDb } from "@shared/auth/context.ts";
import { errorResponse, errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { paginationSchema } from "@shared/http/pagination.ts";
import {
  documentContent,
  documentEmbeddings,
  documentRows,
  listDocuments,
  ragHealth,
  ragStats,
  uploadedDocumentJob,
} from "@shared/rag/documents.ts";
import { router } from "../env.ts";
import { settings } from "../deps.ts";
import { deleteJob } from "../pipeline/admin.ts";
import { readJob } from "../pipeline/run.ts";
import { STAGES } from "../pipeline/config.ts";

const tags = ["RAG documents"];
const byDocument = paginationSchema(100).extend({ document_id: z.uuid() });

export function ragDocumentRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/rag/documents",
      tags,
      summary: "The processed documents the caller can see, newest first",
      request: { query: paginationSchema(50) },
      responses: { ...okJson("{documents, total}"), ...errorResponses },
    }),
    async (c) => c.json(await listDocuments(db(c), c.req.valid("query")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/rag/documents/{document_id}/content",
      tags,
      summary: "A document with its products, chunks and images",
      request: { params: idParam("document_id") },
      responses: { ...okJson("{document, products, chunks, images}"), ...errorResponses },
    }),
    async (c) => c.json(await documentContent(db(c), c.req.valid("param").document_id), 200),
  );

  for (const kind of ["chunks", "images", "products"] as const) {
    app.openapi(
      createRoute({
        method: "get",
        path: `/api/rag/${kind}`,
        tags,
        summary: `The ${kind} of a document`,
        request: { query: byDocument },
        responses: { ...okJson("{document_id, items, total}"), ...errorResponses },
      }),
      async (c) => {
        const { document_id, ...page } = c.req.valid("query");
        return c.json(await documentRows(db(c), kind, document_id, page), 200);
      },
    );
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/rag/embeddings",
      tags,
      summary: "The embeddings of a document: chunk text vectors (1024) and the five image vectors (768)",
      request: { query: byDocument.extend({ include_vectors: z.enum(["true", "false"]).default("false") }) },
      responses: { ...okJson("{document_id, text: {...}, image: {...}}"), ...errorResponses },
    }),
    async (c) => {
      const { document_id, include_vectors, ...page } = c.req.valid("query");
      return c.json(await documentEmbeddings(db(c), document_id, page, include_vectors === "true"), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/rag/health",
      tags,
      summary: "The pipeline's providers and whether its language model is configured",
      responses: {
        ...okJson("{status, stages, text_embeddings, image_embeddings, llm_configured}"),
        ...errorResponses,
      },
    }),
    (c) => {
      const llmConfigured = Boolean(settings(c)("ANTHROPIC_API_KEY"));
      return c.json(ragHealth({ stages: STAGES, embeddings: c.get("cfg").embeddings, llmConfigured }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/rag/stats",
      tags,
      summary: "Counts over what the caller can see: jobs by status, documents, products, chunks, images",
      responses: { ...okJson("{jobs_by_status, documents, products, chunks, images}"), ...errorResponses },
    }),
    async (c) => c.json(await ragStats(db(c)), 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/rag/documents/{document_id}",
      tags,
      summary: "Delete a document the caller uploaded, with its job, rows and stored files",
      request: { params: idParam("document_id") },
      responses: {
        ...okJson("{document_id, deleted: true, removed_files}"),
        ...errorResponses,
        409: errorResponse("Its job is running"),
      },
    }),
    async (c) => {
      const { document_id } = c.req.valid("param");
      const jobId = await uploadedDocumentJob(db(c), caller(c).userId, document_id);
      const job = await readJob(serviceDb(c), jobId);
      if (!job) throw HttpError.notFound("Document not found");
      return c.json({ document_id, deleted: true, ...(await deleteJob(serviceDb(c), job)) }, 200);
    },
  );

  return app;
}
