/**
 * KB categories, document-product attachments, a product's documents, and the KB health report.
 * Categories are managed by workspace owners and admins; the Pricing category (slug pricing) is
 * always admin-level, so only they see it.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { HttpError } from "@shared/http/errors.ts";
import {
  attachmentCreateSchema,
  categoryCreateSchema,
  categoryListSchema,
  PRICING_SLUG,
} from "@shared/kb/schemas.ts";
import { slugify } from "@shared/kb/search.ts";
import { caller, db, PRICING_ROLES, requireWorkspaceRole } from "@shared/auth/context.ts";
import { dbError, readInGroups, readPages, rows } from "@shared/supabase/postgrest.ts";
import { invisibleDocument } from "../kb/access.ts";
import { errorResponses, idParam, jsonBody, okJson } from "@shared/http/openapi.ts";
import { router } from "../env.ts";

const tags = ["Knowledge base"];

export function kbCatalogRoutes() {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/kb/categories",
      tags,
      summary: "Create a KB category (owners and admins); slug pricing makes the admin-only Pricing category",
      request: jsonBody(categoryCreateSchema),
      responses: {
        ...okJson("The category", 201),
        ...errorResponses,
        409: { description: "Slug already used" },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await requireWorkspaceRole(c, body.workspace_id, PRICING_ROLES, "Managing KB categories");
      const slug = body.slug ?? slugify(body.name);
      if (slug === PRICING_SLUG && body.access_level && body.access_level !== "admin") {
        throw HttpError.badRequest("The Pricing category is admin-level: access_level must be admin", [
          { path: ["access_level"], message: "must be admin for slug pricing" },
        ]);
      }
      const row = {
        workspace_id: body.workspace_id,
        name: body.name,
        slug,
        description: body.description ?? null,
        access_level: body.access_level ?? (slug === PRICING_SLUG ? "admin" : "member"),
        trigger_keyword: body.trigger_keyword ?? null,
      };
      const { data, error } = await db(c).from("kb_categories").insert(row).select("*").single();
      if (error) throw dbError(error, `Creating category ${slug}`);
      return c.json({ category: data }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/kb/categories",
      tags,
      summary: "List the KB categories the caller can see (admin-level ones only for owners and admins)",
      request: { query: categoryListSchema },
      responses: { ...okJson("{categories: [...]}"), ...errorResponses },
    }),
    async (c) => {
      const { workspace_id } = c.req.valid("query");
      if (workspace_id) await requireWorkspaceRole(c, workspace_id, null);
      let q = db(c).from("kb_categories").select("*").order("name");
      if (workspace_id) q = q.eq("workspace_id", workspace_id);
      return c.json({ categories: rows(await q, "Category") }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/kb/attachments",
      tags,
      summary: "Attach a KB document to a product of the same workspace",
      request: jsonBody(attachmentCreateSchema),
      responses: {
        ...okJson("The attachment", 201),
        ...errorResponses,
        409: { description: "Already attached" },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const doc = rows(
        await db(c).from("kb_docs").select("id, workspace_id").eq("id", body.doc_id).maybeSingle(),
        "Document",
      ) as { id: string; workspace_id: string } | null;
      if (!doc) throw await invisibleDocument(c, body.doc_id);
      const product = rows(
        await db(c).from("products").select("id").eq("id", body.product_id).eq(
          "workspace_id",
          doc.workspace_id,
        )
          .maybeSingle(),
        "Product",
      );
      if (!product) throw HttpError.notFound("Product not found in the document's workspace");
      const { data, error } = await db(c).from("kb_doc_attachments")
        .insert({ workspace_id: doc.workspace_id, ...body }).select("*").single();
      if (error) throw dbError(error, "Attachment");
      return c.json({ attachment: data }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/kb/documents/{doc_id}/attachments",
      tags,
      summary: "The products a KB document is attached to",
      request: { params: idParam("doc_id") },
      responses: { ...okJson("{attachments: [...]}"), ...errorResponses },
    }),
    async (c) => {
      const { doc_id } = c.req.valid("param");
      const doc = rows(
        await db(c).from("kb_docs").select("id").eq("id", doc_id).maybeSingle(),
        "Document",
      );
      if (!doc) throw await invisibleDocument(c, doc_id);
      // A document may be attached to any number of products: the attachments are read in pages
      // (one read stops at max_rows, 1,000) and their products in `in` groups (one list of them all
      // would be an over-long URL).
      const attachments = rows(
        await readPages<{ product_id: string }>(() =>
          db(c).from("kb_doc_attachments").select("*").eq("doc_id", doc_id).order("created_at").order("id")
        ),
        "Attachment",
      );
      const products = rows(
        await readInGroups(
          attachments.map((a) => a.product_id),
          (list) => db(c).from("products").select("id, name, sku").filter("id", "in", list),
        ),
        "Product",
      ) as { id: string }[];
      const byId = new Map(products.map((p) => [p.id, p]));
      return c.json({
        attachments: attachments.map((a) => ({ ...a, product: byId.get(a.product_id) ?? null })),
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/kb/products/{product_id}/documents",
      tags,
      summary: "The KB documents attached to a product (those the caller can see)",
      request: { params: idParam("product_id") },
      responses: { ...okJson("{documents: [...]}"), ...errorResponses },
    }),
    async (c) => {
      const { product_id } = c.req.valid("param");
      const product = rows(
        await db(c).from("products").select("id").eq("id", product_id).maybeSingle(),
        "Reading",
      );
      if (!product) throw HttpError.notFound("Product not found");
      const links = rows(
        await db(c).from("kb_doc_attachments").select("doc_id, relationship_type, notes").eq(
          "product_id",
          product_id,
        ),
        "Attachment",
      ) as { doc_id: string; relationship_type: string; notes: string | null }[];
      const docs = links.length
        ? rows(
          await db(c).from("kb_docs")
            .select("id, workspace_id, category_id, title, status, price_doc_type, chunk_count, updated_at")
            .in("id", links.map((l) => l.doc_id)).order("title"),
          "Reading documents",
        ) as { id: string }[]
        : [];
      const link = new Map(links.map((l) => [l.doc_id, l]));
      return c.json({
        product_id,
        documents: docs.map((d) => ({
          ...d,
          relationship_type: link.get(d.id)!.relationship_type,
          notes: link.get(d.id)!.notes,
        })),
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/kb/health",
      tags,
      summary: "KB health: database reachable, counts the caller can see, embedding provider",
      request: { query: z.strictObject({ workspace_id: z.uuid().optional() }) },
      responses: { ...okJson("Health report"), ...errorResponses, ...okJson("Database unreachable", 503) },
    }),
    async (c) => {
      const { workspace_id } = c.req.valid("query");
      const t0 = performance.now();
      const { data, error } = await db(c).rpc("kb_stats", { p_workspace_id: workspace_id ?? undefined });
      const latency = Math.round((performance.now() - t0) * 10) / 10;
      const e = c.get("cfg").embeddings;
      const embedding_provider = { name: e.name, model: e.model, dimensions: e.dimensions };
      if (error) {
        console.error("ai-backend: kb_health database check failed", error);
        return c.json({
          status: "unhealthy",
          database: { reachable: false, error: error.message },
          embedding_provider,
        }, 503);
      }
      return c.json({
        status: "healthy",
        database: { reachable: true, latency_ms: latency },
        scope: caller(c).kind === "service" ? "all workspaces" : "visible to the caller",
        counts: data,
        embedding_provider,
      }, 200);
    },
  );

  return app;
}
