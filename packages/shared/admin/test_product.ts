/**
 * The product path, tried end to end (POST /api/admin/test-product-creation): create, read,
 * update, embed and delete a product as the caller, reporting each step.
 */
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import { productText } from "./product_embeddings.ts";
import { type Db, type Json, timed } from "./support.ts";

export interface Step {
  step: string;
  ok: boolean;
  duration_ms: number;
  detail?: Json;
  error?: string;
}

/**
 * Creates a product through the real product path - the caller's client, so PostgREST, row-level
 * security, column privileges, constraints and triggers all apply - reads it back, updates it,
 * embeds its text with the configured provider, and deletes it, reporting each step. Whatever
 * step fails, the product is removed (with the service client if the caller's delete did not
 * run) so nothing is left behind.
 */
export async function testProductCreation(
  callerDb: Db,
  service: Db,
  embeddings: EmbeddingProvider,
  workspaceId: string,
): Promise<{ success: boolean; product_id: string | null; steps: Step[] }> {
  const steps: Step[] = [];
  let productId: string | null = null;
  const run = async (step: string, fn: () => Promise<Json | undefined>) => {
    const t = await timed(fn);
    steps.push(
      t.ok
        ? { step, ok: true, duration_ms: t.ms, ...(t.value ? { detail: t.value } : {}) }
        : { step, ok: false, duration_ms: t.ms, error: t.error },
    );
    return t.ok;
  };
  const sku = `ADMIN-TEST-${crypto.randomUUID().slice(0, 8)}`;
  const ok = await run("create", async () => {
    const r = await callerDb.from("products").insert({
      workspace_id: workspaceId,
      name: "Admin test product",
      sku,
      category: "test",
      description: "Created and removed by admin_test_product",
      metadata: { admin_test: true },
      status: "draft",
    }).select("id, created_by, status").single();
    if (r.error) throw new Error(r.error.message);
    productId = r.data.id;
    return r.data;
  }) &&
    await run("read", async () => {
      const r = await callerDb.from("products").select("id, name, sku").eq("id", productId!).single();
      if (r.error) throw new Error(r.error.message);
      if (r.data.sku !== sku) throw new Error("read back another product");
      return r.data;
    }) &&
    await run("update", async () => {
      const r = await callerDb.from("products").update({ status: "active" }).eq("id", productId!)
        .select("status, updated_at").single();
      if (r.error) throw new Error(r.error.message);
      if (r.data.status !== "active") throw new Error("the update did not apply");
      return r.data;
    }) &&
    await run("embed", async () => {
      const [v] = await embeddings.embed([productText({ name: "Admin test product", sku })], "document");
      return { provider: embeddings.name, dimensions: v.length };
    });
  let deleted = false;
  if (productId) {
    deleted = await run("delete", async () => {
      const r = await callerDb.from("products").delete().eq("id", productId!).select("id");
      if (r.error) throw new Error(r.error.message);
      if (r.data.length !== 1) throw new Error("the delete removed no row");
      return { deleted: r.data.length };
    });
    if (!deleted) {
      const r = await service.from("products").delete().eq("id", productId);
      steps.push({
        step: "cleanup",
        ok: !r.error,
        duration_ms: 0,
        ...(r.error ? { error: r.error.message } : { detail: { removed_with: "service role" } }),
      });
    } else {
      await run("verify_removed", async () => {
        const r = await service.from("products").select("id").eq("id", productId!);
        if (r.error) throw new Error(r.error.message);
        if (r.data.length) throw new Error("the product is still there");
        return undefined;
      });
    }
  }
  return { success: ok && deleted && steps.every((s) => s.ok), product_id: productId, steps };
}
