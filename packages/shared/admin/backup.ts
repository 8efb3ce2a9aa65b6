/**
 * Workspace backups (POST /api/admin/data/backup): a JSON snapshot of chosen tables' rows of one
 * workspace, written to the admin-backups bucket (service role only).
 */
import { DomainError } from "../errors.ts";
import { type Db, type Json, readPaged, requireWorkspace } from "./support.ts";

export const BACKUP_BUCKET = "admin-backups";
/** Tables a workspace backup may hold, each read by its workspace_id column. */
export const BACKUP_TABLES = [
  "products",
  "product_embeddings",
  "kb_categories",
  "kb_docs",
  "ai_jobs",
  "pipeline_documents",
  "price_entries",
  "product_prices",
] as const;
export type BackupTable = typeof BACKUP_TABLES[number];
export const BACKUP_MAX_ROWS = 10_000;
/** A unique column of each backed-up table, to read it in pages. */
const BACKUP_KEYS: Record<BackupTable, string> = {
  products: "id",
  product_embeddings: "product_id",
  kb_categories: "id",
  kb_docs: "id",
  ai_jobs: "id",
  pipeline_documents: "id",
  price_entries: "id",
  product_prices: "id",
};

/**
 * Writes a JSON snapshot of the chosen tables' rows of one workspace to the admin-backups bucket
 * at {workspace_id}/{timestamp}-{id}.json and answers where, with the row counts. A table with
 * more than BACKUP_MAX_ROWS rows refuses the whole backup (413) rather than writing a partial one.
 */
export async function backupWorkspace(
  db: Db,
  workspaceId: string,
  tables: readonly BackupTable[],
  by: string | null,
): Promise<Json> {
  await requireWorkspace(db, workspaceId);
  const data: Record<string, Json[]> = {};
  const row_counts: Record<string, number> = {};
  for (const table of tables) {
    // Pages of 1,000 (PostgREST's max rows) in primary-key order, so that nothing is left out.
    const r = await readPaged(
      table,
      () =>
        db.from(table).select("*", { count: "exact" }).eq("workspace_id", workspaceId).order(
          BACKUP_KEYS[table],
        ),
      BACKUP_MAX_ROWS,
    );
    if (r.count > BACKUP_MAX_ROWS) {
      throw new DomainError(
        "too_large",
        "backup_too_large",
        `${table} has ${r.count} rows in this workspace; a JSON backup holds at most ${BACKUP_MAX_ROWS} per table`,
      );
    }
    data[table] = r.rows;
    row_counts[table] = r.rows.length;
  }
  const created_at = new Date().toISOString();
  const id = crypto.randomUUID();
  const path = `${workspaceId}/${created_at.replaceAll(":", "-")}-${id}.json`;
  const body = new TextEncoder().encode(
    JSON.stringify({ backup_id: id, workspace_id: workspaceId, created_at, created_by: by, tables: data }),
  );
  const up = await db.storage.from(BACKUP_BUCKET).upload(path, body, {
    contentType: "application/json",
    upsert: false,
  });
  if (up.error) {
    throw new DomainError("upstream", "storage_failed", `Writing the backup failed: ${up.error.message}`);
  }
  return {
    backup_id: id,
    bucket: BACKUP_BUCKET,
    path,
    size_bytes: body.length,
    workspace_id: workspaceId,
    tables: [...tables],
    row_counts,
    total_rows: Object.values(row_counts).reduce((a, b) => a + b, 0),
    created_at,
  };
}
