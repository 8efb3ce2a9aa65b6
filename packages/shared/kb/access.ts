/**
 * Authorisation decisions of the KB that RLS alone cannot phrase: RLS hides a Pricing document
 * from a member, which reads as "not found", but the spec answers a member of the workspace 403
 * and an outsider nothing (404). These look-ups use the service client to see past RLS and only
 * ever return a verdict, never the data.
 *
 * The workspace itself is authorised by the HTTP layer (`workspaceScope`, outsiders 404); these
 * add what depends on the data: the category's access level and pricing documents.
 */
import { DomainError } from "../errors.ts";
import { PRICING_ROLES, type WorkspaceRoleName } from "../auth/context.ts";
import type { CallerScope, WorkspaceScope } from "../auth/scope.ts";
import { rows } from "../supabase/postgrest.ts";
import { PRICING_SLUG } from "./schemas.ts";

export interface CategoryFacts {
  id: string;
  workspace_id: string;
  slug: string;
  name: string;
  access_level: string;
}

/**
 * The scope's role must be one of `roles` (the service role passes): 403 "<what> requires the
 * ... role in the workspace", as the HTTP layer's requireWorkspaceRole says it.
 */
export function requireRole(scope: WorkspaceScope, roles: readonly WorkspaceRoleName[], what: string): void {
  if (scope.role !== "service" && !roles.includes(scope.role)) {
    throw DomainError.forbidden(`${what} requires the ${roles.join(" or ")} role in the workspace`);
  }
}

/** Pricing data (admin-level categories, price_doc_type) needs owner or admin. */
export function requirePricingRole(scope: WorkspaceScope): void {
  requireRole(scope, PRICING_ROLES, "Pricing data");
}

/** A category of the scope's workspace (as the system sees it), or 404. */
export async function categoryOf(scope: WorkspaceScope, categoryId: string): Promise<CategoryFacts> {
  const row = rows(
    await scope.service.from("kb_categories").select("id, workspace_id, slug, name, access_level")
      .eq("id", categoryId).eq("workspace_id", scope.workspaceId).maybeSingle(),
    "Category",
  );
  if (!row) throw DomainError.notFound("Category not found in this workspace");
  return row as CategoryFacts;
}

/**
 * May the scope's caller (already a writer of the workspace) write a document into this category
 * with this price_doc_type? Members 403 for admin-level categories and pricing documents; a
 * price_doc_type outside the Pricing category 400.
 */
export async function authorizeDocumentWrite(
  scope: WorkspaceScope,
  categoryId: string | null | undefined,
  priceDocType: string | null | undefined,
): Promise<CategoryFacts | null> {
  const category = categoryId ? await categoryOf(scope, categoryId) : null;
  if (category?.access_level === "admin" || priceDocType) requirePricingRole(scope);
  if (priceDocType && category?.slug !== PRICING_SLUG) {
    throw DomainError.invalid(
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
export async function invisibleDocument(who: CallerScope, docId: string): Promise<DomainError> {
  const doc = rows(
    await who.service.from("kb_docs").select("workspace_id").eq("id", docId).maybeSingle(),
    "Document",
  ) as { workspace_id: string } | null;
  if (doc && (await who.roleIn(doc.workspace_id)) !== null) {
    return DomainError.forbidden("This document belongs to an admin-level category (owners and admins only)");
  }
  return DomainError.notFound("Document not found");
}
