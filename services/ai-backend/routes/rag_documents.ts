/**
 * The RAG group's reads of what the pipeline produced, as the caller (row-level security: a
 * document is seen by its uploader and its workspace's members): documents and their content,
 * chunks, images, products, embeddings, the pipeline's health and the caller's statistics, and
 * deleting a document the caller uploaded.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import type { SupabaseClient } from "@supabase/supabase-js";
import { HttpError } from "@shared/http/errors.ts";
import { db, requireUser, serviceDb } from "@shared/auth/context.ts";
import { dbError, readPages, rows } from "@shared/supabase/postgrest.ts";
import { errorResponse, errorResponses, idParam, okJson } from "@shared/http/openapi.ts";
import { pageRange, paginationSchema } from "@shared/http/pagination.ts";
import { IMAGE_EMBEDDING_DIMENSIONS, IMAGE_EMBEDDING_KINDS } from "@shared/embeddings/image.ts";
import { router } from "../env.ts";
import type { Ctx } from "../env.ts";
import { deleteJob } from "../pipeline/admin.ts";
import { readJob } from "../pipeline/run.ts";
import { STAGES } from "../pipeline/config.ts";

const tags = ["RAG documents"];
const byDocument = paginationSchema(100).extend({ document_id: z.uuid() });

async function visibleDocument(c: Ctx, id: string): Promise<Record<string, unknown>> {
  const doc = rows(await db(c).from("pipeline_documents").select("*").eq("id", id).maybeSingle(), "Document");
  if (!doc) throw HttpError.notFound("Document not found");
  return doc as Record<string, unknown>;
}

/**
 * The most rows of each kind (products, chunks, images) /content answers in one response: 100,000
 * chunks of the smallest chunk size is more text than a 50 MB upload holds. Past it the endpoint
 * answers 413 naming the paged lists instead of a truncated document.
 */
const CONTENT_CAP = 100_000;

const IMAGE_COLUMNS =
  "id, document_id, filename, storage_url, page_number, width, height, category, confidence, created_at";

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
    async (c) => {
      const page = c.req.valid("query");
      const res = await db(c).from("pipeline_documents").select("*", { count: "exact" })
        .order("created_at", { ascending: false }).range(...pageRange(page));
      const documents = rows(res, "Document");
      return c.json({ documents, total: res.count ?? documents.length, ...page }, 200);
    },
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
    async (c) => {
      const { document_id } = c.req.valid("param");
      const document = await visibleDocument(c, document_id);
      // Each read pages through max_rows (1,000) ordered by a key unique within the document, so
      // the answer is the whole document, not its first 1,000 chunks or images.
      const all = async (what: string, query: () => unknown) => {
        const r = await readPages<Record<string, unknown>>(query, CONTENT_CAP + 1);
        if (r.error) throw dbError(r.error, what);
        if (r.data.length > CONTENT_CAP) {
          throw new HttpError(
            413,
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
            db(c).from("pipeline_products").select("*").eq("document_id", document_id).order("page_start")
              .order("name"),
        ),
        all(
          "Chunk",
          () =>
            db(c).from("document_chunks").select("id, chunk_index, content, page_start, page_end, product_id")
              .eq("document_id", document_id).order("chunk_index"),
        ),
        all(
          "Image",
          () =>
            db(c).from("document_images").select(IMAGE_COLUMNS).eq("document_id", document_id).order(
              "filename",
            ),
        ),
      ]);
      return c.json({ document, products, chunks, images }, 200);
    },
  );

  const list = (
    path: "/api/rag/chunks" | "/api/rag/images" | "/api/rag/products",
    table: string,
    columns: string,
    order: string,
  ) =>
    app.openapi(
      createRoute({
        method: "get",
        path,
        tags,
        summary: `The ${path.split("/").pop()} of a document`,
        request: { query: byDocument },
        responses: { ...okJson("{document_id, items, total}"), ...errorResponses },
      }),
      async (c) => {
        const { document_id, ...page } = c.req.valid("query");
        await visibleDocument(c, document_id);
        // A table named at run time: the untyped client (the typed one wants a literal table name).
        const res = await (db(c) as SupabaseClient).from(table).select(columns, { count: "exact" }).eq(
          "document_id",
          document_id,
        )
          .order(order).range(...pageRange(page));
        const items = rows(res, "Row");
        return c.json(
          { document_id, [path.split("/").pop()!]: items, total: res.count ?? items.length },
          200,
        );
      },
    );
  list(
    "/api/rag/chunks",
    "document_chunks",
    "id, chunk_index, content, page_start, page_end, product_id, embedding_model",
    "chunk_index",
  );
  list("/api/rag/images", "document_images", IMAGE_COLUMNS, "filename");
  list("/api/rag/products", "pipeline_products", "*", "page_start");

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
      await visibleDocument(c, document_id);
      const withVectors = include_vectors === "true";
      const chunkCols = `id, chunk_index, embedding_model${withVectors ? ", embedding" : ""}`;
      const imageCols = `id, filename${
        withVectors ? ", " + IMAGE_EMBEDDING_KINDS.map((k) => `${k}_slig_768`).join(", ") : ""
      }`;
      const [chunks, images] = await Promise.all([
        db(c).from("document_chunks").select(chunkCols).eq("document_id", document_id).order("chunk_index")
          .range(...pageRange(page)),
        db(c).from("document_images").select(imageCols).eq("document_id", document_id).order("filename")
          .range(...pageRange(page)),
      ]);
      return c.json({
        document_id,
        text: { dimensions: 1024, input_type: "document", chunks: rows(chunks, "Chunk") },
        image: {
          dimensions: IMAGE_EMBEDDING_DIMENSIONS,
          kinds: IMAGE_EMBEDDING_KINDS.map((k) => `${k}_slig_768`),
          images: rows(images, "Image"),
        },
      }, 200);
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
      const cfg = c.get("cfg");
      const secrets = cfg.secrets ?? ((n: string) => Deno.env.get(n));
      const llm = Boolean(secrets("ANTHROPIC_API_KEY"));
      return c.json({
        status: llm ? "healthy" : "degraded",
        stages: STAGES,
        text_embeddings: {
          provider: cfg.embeddings.name,
          model: cfg.embeddings.model,
          dimensions: cfg.embeddings.dimensions,
        },
        image_embeddings: { provider: "local", dimensions: IMAGE_EMBEDDING_DIMENSIONS },
        llm_configured: llm,
      }, 200);
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
    async (c) => {
      const count = async (table: string) => {
        const res = await (db(c) as SupabaseClient).from(table).select("*", { count: "exact", head: true });
        if (res.error) rows(res, table);
        return res.count ?? 0;
      };
      // Counted in SQL over the jobs RLS lets the caller see (a read of ai_jobs would stop at
      // max_rows, 1,000 rows, without an error).
      const jobs_by_status = rows(await db(c).rpc("ai_jobs_status_counts"), "Job counts") as Record<
        string,
        number
      >;
      const [documents, products, chunks, images] = await Promise.all(
        ["pipeline_documents", "pipeline_products", "document_chunks", "document_images"].map(count),
      );
      return c.json({ jobs_by_status, documents, products, chunks, images }, 200);
    },
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
      const doc = await visibleDocument(c, document_id);
      const who = requireUser(c);
      if (doc.user_id !== who.userId) throw HttpError.forbidden("Only the uploader can delete a document");
      const job = await readJob(serviceDb(c), doc.job_id as string);
      if (!job) throw HttpError.notFound("Document not found");
      const out = await deleteJob(serviceDb(c), job);
      return c.json({ document_id, deleted: true, ...out }, 200);
    },
  );

  return app;
}
