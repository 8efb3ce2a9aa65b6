/**
 * Health and monitoring with real figures: whether the database answers (and how fast), what
 * the knowledge base and the upload store hold, and which embedding provider is in use.
 * Platform-wide figures (supabase-status, storage-estimate) are for platform admins.
 */
import { createRoute } from "@hono/zod-openapi";
import type { SupabaseClient } from "@supabase/supabase-js";
import { requirePlatformRole, serviceDb } from "@shared/auth/context.ts";
import { type Ctx, router } from "../env.ts";
import { errorResponses, okJson } from "@shared/http/openapi.ts";
import { clipOf } from "./clip.ts";

const started = Date.now();

function provider(c: Ctx) {
  const e = c.get("cfg").embeddings;
  return { name: e.name, model: e.model, dimensions: e.dimensions, local: e.name === "local" };
}

/** One timed round trip through the REST API to Postgres. */
async function probeDatabase(c: Ctx): Promise<{ reachable: boolean; latency_ms: number; error?: string }> {
  const t0 = performance.now();
  const { error } = await serviceDb(c).from("gateway_action_costs").select("cost_key", {
    head: true,
    count: "exact",
  });
  const latency_ms = Math.round((performance.now() - t0) * 10) / 10;
  return error ? { reachable: false, latency_ms, error: error.message } : { reachable: true, latency_ms };
}

async function count(c: Ctx, table: string): Promise<number | null> {
  // A table named at run time: the untyped client (the typed one wants a literal table name).
  const { count, error } = await (serviceDb(c) as SupabaseClient).from(table).select("*", {
    head: true,
    count: "exact",
  });
  if (error) {
    console.error(`ai-backend: counting ${table} failed`, error);
    return null;
  }
  return count;
}

export function monitoringRoutes() {
  const app = router();
  const tags = ["Monitoring"];

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/monitoring/health",
      tags,
      summary: "Backend health: database reachable, embedding provider, uptime",
      responses: { ...okJson("Health report"), ...okJson("Database unreachable", 503), ...errorResponses },
    }),
    async (c) => {
      const database = await probeDatabase(c);
      const body = {
        status: database.reachable ? "healthy" : "unhealthy",
        database,
        embedding_provider: provider(c),
        uptime_seconds: Math.round((Date.now() - started) / 1000),
        timestamp: new Date().toISOString(),
      };
      return database.reachable ? c.json(body, 200) : c.json(body, 503);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/monitoring/supabase-status",
      tags,
      summary: "Platform status (platform admins): database reachability and row counts",
      responses: { ...okJson("Status report"), ...errorResponses },
    }),
    async (c) => {
      await requirePlatformRole(c, ["admin"]);
      const database = await probeDatabase(c);
      const tables = ["workspaces", "kb_categories", "kb_docs", "kb_doc_chunks", "ai_jobs", "ai_usage_logs"];
      const counts = Object.fromEntries(
        await Promise.all(tables.map(async (t) => [t, await count(c, t)] as const)),
      );
      return c.json({ status: database.reachable ? "healthy" : "unhealthy", database, counts }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/monitoring/storage-estimate",
      tags,
      summary: "Bytes held by the knowledge base (text, embeddings) and uploaded documents (platform admins)",
      responses: { ...okJson("Storage estimate"), ...errorResponses },
    }),
    async (c) => {
      await requirePlatformRole(c, ["admin"]);
      const kb = await serviceDb(c).rpc("kb_stats", {});
      if (kb.error) throw new Error(`kb_stats failed: ${kb.error.message}`);
      // Summed in SQL: a read of ai_jobs answers at most max_rows (1,000) rows, without an error.
      const uploads = await serviceDb(c).rpc("ai_jobs_uploaded_bytes");
      if (uploads.error) throw new Error(`ai_jobs_uploaded_bytes failed: ${uploads.error.message}`);
      const stats = kb.data as {
        content_bytes: number;
        embedding_bytes: number;
        documents: number;
        chunks: number;
      };
      const uploadBytes = Number(uploads.data ?? 0);
      return c.json({
        kb_documents: stats.documents,
        kb_chunks: stats.chunks,
        kb_content_bytes: Number(stats.content_bytes),
        kb_embedding_bytes: Number(stats.embedding_bytes),
        uploaded_document_bytes: uploadBytes,
        total_bytes: Number(stats.content_bytes) + Number(stats.embedding_bytes) + uploadBytes,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/embeddings/health",
      tags: ["Embeddings"],
      summary: "The text embedding provider in use and the CLIP provider's state (a remote one is probed)",
      responses: { ...okJson("Provider report"), ...errorResponses },
    }),
    async (c) => {
      const clip = await clipOf(c).health();
      return c.json({
        status: clip.status === "healthy" ? "healthy" : "degraded",
        text_embeddings: provider(c),
        clip: { configured: true, ...clip },
      }, 200);
    },
  );

  return app;
}
