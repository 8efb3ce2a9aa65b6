/**
 * KB categories, document-product attachments, a product's documents, and the KB health report.
 * Categories are managed by workspace owners and admins (the HTTP layer scopes them); the Pricing
 * category (slug pricing) is always admin-level, so only they see it. Reads run as the caller:
 * RLS decides which categories, documents and products are visible.
 */
import type { z } from "zod";
import { DomainError } from "../errors.ts";
import type { CallerScope, WorkspaceScope } from "../auth/scope.ts";
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import type { SupabaseClient } from "../supabase/clients.ts";
import { dbError, readInGroups, readPages, rows } from "../supabase/postgrest.ts";
import { invisibleDocument } from "./access.ts";
import { type attachmentCreateSchema, type categoryCreateSchema, PRICING_SLUG } from "./schemas.ts";
import { slugify } from "./search.ts";

/** kb_create_category in the scope's workspace; slug pricing makes the admin-only Pricing category. */
export async function createCategory(
  scope: WorkspaceScope,
  body: Omit<z.infer<typeof categoryCreateSchema>, "workspace_id">,
) {
  const slug = body.slug ?? slugify(body.name);
  if (slug === PRICING_SLUG && body.access_level && body.access_level !== "admin") {
    throw DomainError.invalid("The Pricing category is admin-level: access_level must be admin", [
      { path: ["access_level"], message: "must be admin for slug pricing" },
    ]);
  }
  const row = {
    workspace_id: scope.workspaceId,
    name: body.name,
    slug,
    description: body.description ?? null,
    access_level: body.access_level ?? (slug === PRICING_SLUG ? "admin" : "member"),
    trigger_keyword: body.trigger_keyword ?? null,
  };
  const { data, error } = await scope.db.from("kb_categories").insert(row).select("*").single();
  if (error) throw dbError(error, `Creating category ${slug}`);
  return { category: data };
}

/** The categories the caller's client sees, by name; with a workspace only that workspace's. */
export async function listCategories(db: SupabaseClient, workspaceId: string | undefined) {
  let q = db.from("kb_categories").select("*").order("name");
  if (workspaceId) q = q.eq("workspace_id", workspaceId);
  return { categories: rows(await q, "Category") };
}

/** A KB document the caller can see (else 403 or 404), with its workspace. */
async function visibleDocument(
  who: CallerScope,
  docId: string,
): Promise<{ id: string; workspace_id: string }> {
  const doc = rows(
    await who.db.from("kb_docs").select("id, workspace_id").eq("id", docId).maybeSingle(),
    "Document",
  ) as { id: string; workspace_id: string } | null;
  if (!doc) throw await invisibleDocument(who, docId);
  return doc;
}

/** kb_attach_document: a document to a product of the same workspace (409 when attached already). */
export async function attachDocument(who: CallerScope, body: z.infer<typeof attachmentCreateSchema>) {
  const doc = await visibleDocument(who, body.doc_id);
  const product = rows(
    await who.db.from("products").select("id").eq("id", body.product_id).eq("workspace_id", doc.workspace_id)
      .maybeSingle(),
    "Product",
  );
  if (!product) throw DomainError.notFound("Product not found in the document's workspace");
  const { data, error } = await who.db.from("kb_doc_attachments")
    .insert({ workspace_id: doc.workspace_id, ...body }).select("*").single();
  if (error) throw dbError(error, "Attachment");
  return { attachment: data };
}

/** The products a document is attached to: each attachment with its product ({id, name, sku} or null). */
export async function documentAttachments(who: CallerScope, docId: string) {
  await visibleDocument(who, docId);
  // A document may be attached to any number of products: the attachments are read in pages
  // (one read stops at max_rows, 1,000) and their products in `in` groups (one list of them all
  // would be an over-long URL).
  const attachments = rows(
    await readPages<{ product_id: string }>(() =>
      who.db.from("kb_doc_attachments").select("*").eq("doc_id", docId).order("created_at").order("id")
    ),
    "Attachment",
  );
  const products = rows(
    await readInGroups(
      attachments.map((a) => a.product_id),
      (list) => who.db.from("products").select("id, name, sku").filter("id", "in", list),
    ),
    "Product",
  ) as { id: string }[];
  const byId = new Map(products.map((p) => [p.id, p]));
  return { attachments: attachments.map((a) => ({ ...a, product: byId.get(a.product_id) ?? null })) };
}

/** The KB documents attached to a product that the caller can see, by title. */
export async function productDocuments(db: SupabaseClient, productId: string) {
  const product = rows(await db.from("products").select("id").eq("id", productId).maybeSingle(), "Reading");
  if (!product) throw DomainError.notFound("Product not found");
  const links = rows(
    await db.from("kb_doc_attachments").select("doc_id, relationship_type, notes").eq(
      "product_id",
      productId,
    ),
    "Attachment",
  ) as { doc_id: string; relationship_type: string; notes: string | null }[];
  const docs = links.length
    ? rows(
      await db.from("kb_docs")
        .select("id, workspace_id, category_id, title, status, price_doc_type, chunk_count, updated_at")
        .in("id", links.map((l) => l.doc_id)).order("title"),
      "Reading documents",
    ) as { id: string }[]
    : [];
  const link = new Map(links.map((l) => [l.doc_id, l]));
  return {
    product_id: productId,
    documents: docs.map((d) => ({
      ...d,
      relationship_type: link.get(d.id)!.relationship_type,
      notes: link.get(d.id)!.notes,
    })),
  };
}

/**
 * kb_health: the database reachable (kb_stats as the caller: counts it can see, all workspaces
 * for the service role) and the embedding provider. `healthy: false` is answered 503.
 */
export async function kbHealth(
  db: SupabaseClient,
  embeddings: EmbeddingProvider,
  opts: { workspaceId?: string; service: boolean },
) {
  const t0 = performance.now();
  const { data, error } = await db.rpc("kb_stats", { p_workspace_id: opts.workspaceId ?? undefined });
  const latency = Math.round((performance.now() - t0) * 10) / 10;
  const embedding_provider = {
    name: embeddings.name,
    model: embeddings.model,
    dimensions: embeddings.dimensions,
  };
  if (error) {
    console.error("ai-backend: kb_health database check failed", error);
    return {
      healthy: false,
      report: {
        status: "unhealthy",
        database: { reachable: false, error: error.message },
        embedding_provider,
      },
    } as const;
  }
  return {
    healthy: true,
    report: {
      status: "healthy",
      database: { reachable: true, latency_ms: latency },
      scope: opts.service ? "all workspaces" : "visible to the caller",
      counts: data,
      embedding_provider,
    },
  } as const;
}
