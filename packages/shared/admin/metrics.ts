/**
 * Figures about the platform, all counted in the database (a read of a table is cut at max_rows,
 * 1,000, without an error, so counting rows here would undercount):
 *
 * - `systemMetrics` (GET /api/admin/system/metrics): jobs, throughput, error rates, credit use
 *   and table sizes (`admin_system_metrics()`).
 * - `platformStatus` (GET /api/monitoring/supabase-status): database reachability and row counts.
 * - `storageEstimate` (GET /api/monitoring/storage-estimate): bytes held by the knowledge base and
 *   the uploaded documents.
 */
import { probeDatabase } from "./health.ts";
import { type Db, fail, type Json } from "./support.ts";

export async function systemMetrics(db: Db): Promise<Json> {
  const r = await db.rpc("admin_system_metrics");
  if (r.error) fail("Reading the metrics", r.error);
  return r.data as Json;
}

/** The tables whose row counts the platform status reports. */
export const STATUS_TABLES = [
  "workspaces",
  "kb_categories",
  "kb_docs",
  "kb_doc_chunks",
  "ai_jobs",
  "ai_usage_logs",
];

/** A table's row count; null (logged) when it cannot be counted. */
async function count(db: Db, table: string): Promise<number | null> {
  const { count, error } = await db.from(table).select("*", { head: true, count: "exact" });
  if (error) {
    console.error(`ai-backend: counting ${table} failed`, error);
    return null;
  }
  return count;
}

/** Whether the database answers, and the row counts of STATUS_TABLES. */
export async function platformStatus(db: Db) {
  const database = await probeDatabase(db);
  const counts = Object.fromEntries(
    await Promise.all(STATUS_TABLES.map(async (t) => [t, await count(db, t)] as const)),
  );
  return { status: database.reachable ? "healthy" : "unhealthy", database, counts };
}

/** Bytes of knowledge-base text and embeddings (`kb_stats`) and of uploaded documents. */
export async function storageEstimate(db: Db) {
  const kb = await db.rpc("kb_stats", {});
  if (kb.error) throw new Error(`kb_stats failed: ${kb.error.message}`);
  // Summed in SQL: a read of ai_jobs answers at most max_rows (1,000) rows, without an error.
  const uploads = await db.rpc("ai_jobs_uploaded_bytes");
  if (uploads.error) throw new Error(`ai_jobs_uploaded_bytes failed: ${uploads.error.message}`);
  const stats = kb.data as {
    content_bytes: number;
    embedding_bytes: number;
    documents: number;
    chunks: number;
  };
  const uploadBytes = Number(uploads.data ?? 0);
  return {
    kb_documents: stats.documents,
    kb_chunks: stats.chunks,
    kb_content_bytes: Number(stats.content_bytes),
    kb_embedding_bytes: Number(stats.embedding_bytes),
    uploaded_document_bytes: uploadBytes,
    total_bytes: Number(stats.content_bytes) + Number(stats.embedding_bytes) + uploadBytes,
  };
}
