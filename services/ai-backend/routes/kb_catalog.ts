/**
 * KB categories, document-product attachments, a product's documents, and the KB health report.
 * Categories are managed by workspace owners and admins; the Pricing category (slug pricing) is
 * always admin-level, so only they see it. Domain: packages/shared/kb/catalog.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { attachmentCreateSchema, categoryCreateSchema, categoryListSchema } from "@shared/kb/schemas.ts";
import {
  attachDocument,
  createCategory,
  documentAttachments,
  kbHealth,
  listCategories,
  productDocuments,
} from "@shared/kb/catalog.ts";
import { caller, db, PRICING_ROLES, requireWorkspaceRole } from "@shared/auth/context.ts";
import { callerScope, workspaceScope } from "@shared/auth/scope.ts";
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
      const scope = await workspaceScope(c, body.workspace_id, PRICING_ROLES, "Managing KB categories");
      return c.json(await createCategory(scope, body), 201);
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
      return c.json(await listCategories(db(c), workspace_id), 200);
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
    async (c) => c.json(await attachDocument(callerScope(c), c.req.valid("json")), 201),
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
    async (c) => c.json(await documentAttachments(callerScope(c), c.req.valid("param").doc_id), 200),
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
    async (c) => c.json(await productDocuments(db(c), c.req.valid("param").product_id), 200),
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
      const service = caller(c).kind === "service";
      const h = await kbHealth(db(c), c.get("cfg").embeddings, { workspaceId: workspace_id, service });
      return h.healthy ? c.json(h.report, 200) : c.json(h.report, 503);
    },
  );

  return app;
}
