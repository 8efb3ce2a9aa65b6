/**
 * Authorisation decisions of the KB routes that RLS alone cannot phrase: RLS hides a Pricing
 * document from a member, which reads as "not found", but the spec answers a member of the
 * workspace 403 and an outsider nothing (404). These look-ups use the service client to see
 * past RLS and only ever return a verdict, never the data.
 */
import { HttpError } from "@shared/http/errors.ts";
import { PRICING_SLUG } from "@shared/kb/schemas.ts";
import {
  PRICING_ROLES,
  requireWorkspaceRole,
  serviceDb,
  workspaceRole,
  WRITER_ROLES,
} from "@shared/auth/context.ts";
import { type Ctx } from "../env.ts";
import { rows } from "@shared/supabase/postgrest.ts";

export interface CategoryFacts {
  id: string;
  workspace_id: string;
  slug: string;
  name: string;
  access_level: string;
}

/** A category of the workspace (as the system sees it), or 404. */
export async function categoryOf(c: Ctx, workspaceId: string, categoryId: string): Promise<CategoryFacts> {
  const row = rows(
    await serviceDb(c).from("kb_categories").select("id, workspace_id, slug, name, access_level")
      .eq("id", categoryId).eq("workspace_id", workspaceId).maybeSingle(),
    "Category",
  );
  if (!row) throw HttpError.notFound("Category not found in this workspace");
  return row as CategoryFacts;
}

/** A category by slug, or null. */
export async function categoryBySlug(
  c: Ctx,
  workspaceId: string,
  slug: string,
): Promise<CategoryFacts | null> {
  return rows(
    await serviceDb(c).from("kb_categories").select("id, workspace_id, slug, name, access_level")
      .eq("slug", slug).eq("workspace_id", workspaceId).maybeSingle(),
    "Category",
  ) as CategoryFacts | null;
}

/** Pricing data (admin-level categories, price_doc_type) needs owner or admin. */
export async function requirePricingRole(c: Ctx, workspaceId: string): Promise<void> {
  await requireWorkspaceRole(c, workspaceId, PRICING_ROLES, "Pricing data");
}

/**
 * May the caller write a document into this workspace and category with this price_doc_type?
 * Outsiders 404, viewers 403, members 403 for admin-level categories and pricing documents.
 */
export async function authorizeDocumentWrite(
  c: Ctx,
  workspaceId: string,
  categoryId: string | null | undefined,
  priceDocType: string | null | undefined,
): Promise<CategoryFacts | null> {
  await requireWorkspaceRole(c, workspaceId, WRITER_ROLES, "Writing KB documents");
  const category = categoryId ? await categoryOf(c, workspaceId, categoryId) : null;
  if (category?.access_level === "admin" || priceDocType) await requirePricingRole(c, workspaceId);
  if (priceDocType && category?.slug !== PRICING_SLUG) {
    throw HttpError.badRequest(
      "price_doc_type is only allowed on documents of the Pricing category (slug pricing)",
      [{ path: ["price_doc_type"], message: "requires category_id of the Pricing category" }],
    );
  }
  return category;
}

/**
 * A document the caller's client could not see: 403 when it exists in a workspace the caller
 * belongs to (an admin-level category), else 404.
 */
export async function invisibleDocument(c: Ctx, docId: string): Promise<HttpError> {
  const doc = rows(
    await serviceDb(c).from("kb_docs").select("workspace_id").eq("id", docId).maybeSingle(),
    "Document",
  ) as { workspace_id: string } | null;
  if (doc && (await workspaceRole(c, doc.workspace_id)) !== null) {
    return HttpError.forbidden("This document belongs to an admin-level category (owners and admins only)");
  }
  return HttpError.notFound("Document not found");
}
