/**
 * A workspace's (or one job's) pipeline data as JSON (GET /api/admin/data/export): the jobs, their
 * checkpoints and model calls, the documents with their products, images, chunks and
 * relationships, read with the service role.
 */
import { DomainError } from "../errors.ts";
import { inFilterGroups } from "../supabase/postgrest.ts";
import { type AnyQuery, type Db, type Json, readPaged } from "./support.ts";

const EXPORT_COLUMNS = {
  documents: "*",
  products: "*",
  images: "id, document_id, filename, storage_url, page_number, width, height, category, confidence, " +
    "ocr_text, ocr_model, ocr_at, created_at",
  chunks:
    "id, document_id, chunk_index, content, page_start, page_end, product_id, embedding_model, created_at",
  relationships: "*",
};

/**
 * A workspace's (or one job's) pipeline data as JSON: the jobs, their checkpoints and model calls,
 * the documents with their products, images, chunks and relationships. Embedding vectors are
 * left out (they are derived data, and large). At most `limit` rows per table; `truncated` names
 * the tables that had more.
 */
export async function exportPipelineData(
  db: Db,
  scope: { workspace_id?: string; job_id?: string },
  limit: number,
): Promise<Json> {
  const truncated: string[] = [];
  const read = async (table: string, what: string, columns: string, filter: (q: AnyQuery) => AnyQuery) => {
    const { rows, count } = await readPaged(
      what,
      () => filter(db.from(table).select(columns, { count: "exact" })),
      limit,
    );
    if (count > limit) truncated.push(what);
    return rows;
  };
  // Rows whose `column` is one of `ids` (up to 2,000: one read per ~6 kB of them, so that no request
  // line is too long), in `order` then `unique`, cut at the limit.
  const readIn = async (
    table: string,
    what: string,
    columns: string,
    column: string,
    ids: string[],
    order: string,
    unique = "id",
  ) => {
    let rows: Json[] = [];
    let count = 0;
    const lists = inFilterGroups(ids);
    for (const list of lists) {
      const r = await readPaged(
        what,
        () =>
          db.from(table).select(columns, { count: "exact" }).filter(column, "in", list).order(order).order(
            unique,
          ),
        limit,
      );
      count += r.count;
      rows = rows.concat(r.rows);
    }
    if (count > limit) truncated.push(what);
    if (lists.length < 2) return rows; // the database's order
    const key = (row: Json) => [row[order] ?? "", row[unique] ?? ""];
    const cmp = (a: Json, b: Json) => {
      const [x, y] = [key(a), key(b)];
      return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0;
    };
    return rows.sort(cmp).slice(0, limit);
  };
  const jobs = await read(
    "ai_jobs",
    "jobs",
    "*",
    (q) =>
      scope.job_id
        ? q.eq("id", scope.job_id)
        : q.eq("workspace_id", scope.workspace_id).order("created_at").order("id"),
  );
  if (scope.job_id && !jobs.length) throw new DomainError("not_found", "not_found", "Job not found");
  const jobIds = jobs.map((j) => j.id as string);
  const documents = await readIn(
    "pipeline_documents",
    "documents",
    EXPORT_COLUMNS.documents,
    "job_id",
    jobIds,
    "created_at",
  );
  const docIds = documents.map((d) => d.id as string);
  const byDocs = (table: string, what: string, cols: string, order: string) =>
    readIn(table, what, cols, "document_id", docIds, order);
  const byJobs = (table: string, what: string, order: string) =>
    readIn(table, what, "*", "job_id", jobIds, order);
  const [products, images, chunks, relationships, checkpoints, model_calls] = await Promise.all([
    byDocs("pipeline_products", "products", EXPORT_COLUMNS.products, "page_start"),
    byDocs("document_images", "images", EXPORT_COLUMNS.images, "page_number"),
    byDocs("document_chunks", "chunks", EXPORT_COLUMNS.chunks, "chunk_index"),
    byDocs("document_relationships", "relationships", EXPORT_COLUMNS.relationships, "created_at"),
    readIn("ai_job_checkpoints", "checkpoints", "*", "job_id", jobIds, "progress", "stage"),
    byJobs("ai_job_model_calls", "model_calls", "created_at"),
  ]);
  return {
    scope: scope.job_id ? { job_id: scope.job_id } : { workspace_id: scope.workspace_id },
    exported_at: new Date().toISOString(),
    limit_per_table: limit,
    truncated,
    counts: {
      jobs: jobs.length,
      documents: documents.length,
      products: products.length,
      images: images.length,
      chunks: chunks.length,
      relationships: relationships.length,
      checkpoints: checkpoints.length,
      model_calls: model_calls.length,
    },
    jobs,
    documents,
    products,
    images,
    chunks,
    relationships,
    checkpoints,
    model_calls,
  };
}
