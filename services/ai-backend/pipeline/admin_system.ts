/**
 * The Admin group's system and data actions, as domain functions over a service-role client
 * (routes/admin_system.ts authorises the platform admin first). Each one reads or writes the real
 * platform: the database through PostgREST and the SQL functions of
 * 20260208000200_admin_system.sql, storage, the language model and the embedding provider.
 * Errors are DomainErrors (status by kind); nothing here knows about HTTP.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "@shared/errors.ts";
import { inFilterGroups, readPages } from "@shared/supabase/postgrest.ts";
import { contentHash } from "@shared/content_hash.ts";
import type { EmbeddingProvider } from "@shared/embeddings/provider.ts";
import { toPgVector } from "@shared/embeddings/provider.ts";
import denoConfig from "../../../deno.json" with { type: "json" };
import { encodeBase64 } from "./base64.ts";
import { STAGE_LIMITS } from "./config.ts";
import { chosenProvider, type Llm, llmFromEnv, type Settings as Secrets } from "@shared/llm/mod.ts";
import type { PromptKey } from "./prompts.ts";

type Db = SupabaseClient;
type Json = Record<string, unknown>;

function fail(what: string, error: { message: string }): never {
  throw new DomainError("internal", "database_failed", `${what}: ${error.message}`);
}

async function timed<T>(
  fn: () => Promise<T>,
): Promise<{ ok: true; value: T; ms: number } | { ok: false; error: string; ms: number }> {
  const t0 = performance.now();
  try {
    const value = await fn();
    return { ok: true, value, ms: Math.round((performance.now() - t0) * 10) / 10 };
  } catch (err) {
    return { ok: false, error: errorText(err), ms: Math.round((performance.now() - t0) * 10) / 10 };
  }
}

/** An error's message, with the provider's own message when the model layer has one. */
function errorText(err: unknown): string {
  const details = err instanceof DomainError
    ? err.details as { provider_message?: string } | undefined
    : undefined;
  const message = (err as Error).message;
  return details?.provider_message ? `${message}: ${details.provider_message}` : message;
}

// ---- health ----

export interface HealthDeps {
  db: Db;
  embeddings: EmbeddingProvider;
  secrets: Secrets;
  /** The model layer's client (not configured: the probe is skipped and the check says so). */
  llm: Llm;
  llmModel: string;
}

/**
 * Reachability of what the backend depends on, each probed for real and timed: the database (a
 * query), storage (listing the buckets), the language model (a one-token text call through the
 * model layer, which works with either provider), the embedding provider (one short query
 * embedding), and the job queue's state.
 */
export async function systemHealth(d: HealthDeps): Promise<Json> {
  const staleBefore = new Date(Date.now() - 3 * STAGE_LIMITS.heartbeatMs).toISOString();
  const [database, storage, llm, embeddings] = await Promise.all([
    timed(async () => {
      const r = await d.db.rpc("admin_job_queue", { p_stale_before: staleBefore });
      if (r.error) throw new Error(r.error.message);
      return r.data as Json;
    }),
    timed(async () => {
      const r = await d.db.storage.listBuckets();
      if (r.error) throw new Error(r.error.message);
      return r.data.map((b) => b.name).sort();
    }),
    d.llm.configured
      ? timed(() =>
        d.llm.text({ model: d.llmModel, prompt: "health check", maxTokens: 1, purpose: "Health check" })
      )
      : null,
    timed(() => d.embeddings.embed(["health check"], "query")),
  ]);
  const out = {
    database: database.ok
      ? { reachable: true, latency_ms: database.ms }
      : { reachable: false, latency_ms: database.ms, error: database.error },
    storage: storage.ok
      ? { reachable: true, latency_ms: storage.ms, buckets: storage.value }
      : { reachable: false, latency_ms: storage.ms, error: storage.error },
    llm: llm === null
      ? {
        configured: false,
        reachable: false,
        error:
          "No model provider is configured (ANTHROPIC_API_KEY, or LLM_PROVIDER=openai with OPENAI_BASE_URL)",
      }
      : llm.ok
      ? { configured: true, reachable: true, latency_ms: llm.ms, model: d.llm.modelId(d.llmModel) }
      : {
        configured: true,
        reachable: false,
        latency_ms: llm.ms,
        model: d.llm.modelId(d.llmModel),
        error: llm.error,
      },
    embeddings: embeddings.ok
      ? {
        provider: d.embeddings.name,
        model: d.embeddings.model,
        dimensions: d.embeddings.dimensions,
        reachable: embeddings.value[0]?.length === d.embeddings.dimensions,
        latency_ms: embeddings.ms,
      }
      : {
        provider: d.embeddings.name,
        model: d.embeddings.model,
        reachable: false,
        latency_ms: embeddings.ms,
        error: embeddings.error,
      },
    job_queue: database.ok ? database.value : null,
  };
  const healthy = out.database.reachable && out.storage.reachable && out.llm.reachable &&
    out.embeddings.reachable;
  return {
    status: !out.database.reachable ? "unhealthy" : healthy ? "healthy" : "degraded",
    checks: out,
    timestamp: new Date().toISOString(),
  };
}

export async function systemMetrics(db: Db): Promise<Json> {
  const r = await db.rpc("admin_system_metrics");
  if (r.error) fail("Reading the metrics", r.error);
  return r.data as Json;
}

// ---- packages ----

interface Lock {
  version?: string;
  specifiers?: Record<string, string>;
  npm?: Record<string, unknown>;
}

/**
 * The npm packages of the import map (deno.json, bundled with the backend) with the version the
 * lock file resolves each to, the runtime, and which providers are configured (names only, never
 * keys). The lock file is read from disk next to deno.json; where it is not deployed, the
 * packages are reported with the import map's pinned versions and `lock.available: false`.
 */
export async function packagesStatus(
  embeddings: EmbeddingProvider,
  secrets: Secrets,
  readLock: () => Promise<string> = () => Deno.readTextFile(new URL("../../../deno.lock", import.meta.url)),
): Promise<Json> {
  let lock: Lock | null = null;
  let lockError: string | null = null;
  try {
    lock = JSON.parse(await readLock()) as Lock;
  } catch (err) {
    lockError = (err as Error).message;
  }
  const imports = (denoConfig as { imports: Record<string, string> }).imports;
  const packages = Object.entries(imports)
    .filter(([, spec]) => spec.startsWith("npm:"))
    .map(([alias, spec]) => {
      // npm:name@version[/subpath] or npm:/name@version/
      const m = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)/.exec(spec);
      const name = m?.[1] ?? spec.slice(4);
      const requested = m?.[2] ?? null;
      const resolved = lock?.specifiers?.[`npm:${name}@${requested}`];
      return {
        alias,
        name,
        requested,
        version: resolved ? resolved.split("_")[0] : requested,
        source: resolved ? "deno.lock" : "deno.json",
      };
    })
    // Subpath aliases (hono/, pkg/contrib/x) repeat a package.
    .filter((p, i, all) => all.findIndex((q) => q.name === p.name) === i)
    .sort((a, b) => a.name.localeCompare(b.name));
  const provider = chosenProvider(secrets);
  return {
    runtime: { deno: Deno.version.deno, v8: Deno.version.v8, typescript: Deno.version.typescript },
    packages,
    lock: lock
      ? {
        available: true,
        version: lock.version ?? null,
        npm_packages_total: Object.keys(lock.npm ?? {}).length,
      }
      : { available: false, error: lockError },
    providers: {
      llm: {
        provider: provider ?? "none",
        configured: llmFromEnv(secrets).configured,
        base_url: secrets(provider === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL")
          ? "custom"
          : "default",
      },
      text_embeddings: {
        provider: embeddings.name,
        model: embeddings.model,
        dimensions: embeddings.dimensions,
        local: embeddings.name === "local",
      },
      image_embeddings: { provider: "local", model: "local-pixel-features-768", dimensions: 768 },
    },
  };
}

// ---- export ----

// deno-lint-ignore no-explicit-any
type AnyQuery = any; // a PostgREST filter builder of any table, with count: "exact"

/** readPages (up to `cap` rows past PostgREST's max rows), failing as this module fails. */
async function readPaged(
  what: string,
  query: () => AnyQuery,
  cap: number,
): Promise<{ rows: Json[]; count: number }> {
  const r = await readPages<Json>(query, cap);
  if (r.error) fail(`Reading ${what}`, r.error);
  return { rows: r.data, count: r.count };
}

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

// ---- backup ----

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
  const ws = await db.from("workspaces").select("id").eq("id", workspaceId).maybeSingle();
  if (ws.error) fail("Reading the workspace", ws.error);
  if (!ws.data) throw new DomainError("not_found", "not_found", "Workspace not found");
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

// ---- cleanup ----

export interface CleanupRules {
  dry_run: boolean;
  older_than_days: number;
  orphan_grace_minutes: number;
  limit: number;
}

interface Candidates {
  failed_jobs: {
    id: string;
    storage_bucket: string | null;
    storage_path: string | null;
    document_id: string | null;
  }[];
  orphan_uploads: string[];
  orphan_images: string[];
  old_prompt_tests: string[];
}

/**
 * Deletes what the stated rules name (admin_cleanup_candidates): failed/cancelled jobs older than
 * older_than_days with their partial documents, uploads and images; files no row points to;
 * old prompt test records. Completed, pending and processing jobs are never touched. dry_run
 * answers the same counts and lists and deletes nothing.
 */
export async function cleanupData(db: Db, rules: CleanupRules): Promise<Json> {
  const r = await db.rpc("admin_cleanup_candidates", {
    p_older_than_days: rules.older_than_days,
    p_grace_minutes: rules.orphan_grace_minutes,
    p_limit: rules.limit,
  });
  if (r.error) fail("Finding what to clean up", r.error);
  const c = r.data as Candidates;
  const jobFiles = c.failed_jobs.filter((j) => j.storage_bucket && j.storage_path)
    .map((j) => ({ bucket: j.storage_bucket!, path: j.storage_path! }));
  const jobDocs = c.failed_jobs.map((j) => j.document_id).filter((d): d is string => Boolean(d));
  const result = {
    dry_run: rules.dry_run,
    rules: {
      older_than_days: rules.older_than_days,
      orphan_grace_minutes: rules.orphan_grace_minutes,
      limit_per_rule: rules.limit,
    },
    failed_jobs: { matched: c.failed_jobs.length, deleted: 0, ids: c.failed_jobs.map((j) => j.id) },
    orphan_uploads: { matched: c.orphan_uploads.length, deleted: 0, paths: c.orphan_uploads },
    orphan_images: { matched: c.orphan_images.length, deleted: 0, paths: c.orphan_images },
    old_prompt_tests: { matched: c.old_prompt_tests.length, deleted: 0 },
    errors: [] as string[],
  };
  if (rules.dry_run) return result;

  if (c.failed_jobs.length) {
    // The jobs and what cascades from them (checkpoints, model calls, documents); one statement per
    // ~6 kB of ids (up to 1,000), so that no request line is too long.
    for (const list of inFilterGroups(result.failed_jobs.ids)) {
      const del = await db.from("ai_jobs").delete().filter("id", "in", list)
        .in("status", ["failed", "cancelled"]).select("id");
      if (del.error) fail("Deleting failed jobs", del.error);
      result.failed_jobs.deleted += del.data.length;
    }
    const images: string[] = [];
    for (const doc of jobDocs) {
      const l = await db.storage.from("material-images").list(doc, { limit: 1000 });
      if (l.error) result.errors.push(`listing images of ${doc}: ${l.error.message}`);
      else images.push(...l.data.map((f) => `${doc}/${f.name}`));
    }
    if (images.length) await removeFiles(db, "material-images", images, result.errors);
    const byBucket = new Map<string, string[]>();
    for (const f of jobFiles) byBucket.set(f.bucket, [...(byBucket.get(f.bucket) ?? []), f.path]);
    for (const [bucket, paths] of byBucket) await removeFiles(db, bucket, paths, result.errors);
  }
  if (c.orphan_uploads.length) {
    result.orphan_uploads.deleted = await removeFiles(db, "ai-documents", c.orphan_uploads, result.errors);
  }
  if (c.orphan_images.length) {
    result.orphan_images.deleted = await removeFiles(db, "material-images", c.orphan_images, result.errors);
  }
  if (c.old_prompt_tests.length) {
    for (const list of inFilterGroups(c.old_prompt_tests)) {
      const del = await db.from("ai_prompt_tests").delete().filter("id", "in", list).select("id");
      if (del.error) fail("Deleting prompt tests", del.error);
      result.old_prompt_tests.deleted += del.data.length;
    }
  }
  return result;
}

async function removeFiles(db: Db, bucket: string, paths: string[], errors: string[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < paths.length; i += 100) {
    const r = await db.storage.from(bucket).remove(paths.slice(i, i + 100));
    if (r.error) errors.push(`removing files from ${bucket}: ${r.error.message}`);
    else removed += r.data.length;
  }
  return removed;
}

// ---- test product ----

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

// ---- OCR ----

/**
 * Reads the text in one document_images row's picture with the vision model (the prompt is
 * ai_prompts' ocr/image_text) and stores it on the row (ocr_text, ocr_model, ocr_at).
 */
export async function processOcr(
  db: Db,
  llm: Llm,
  prompt: (key: PromptKey) => Promise<string>,
  imageId: string,
  model: string,
  maxTokens: number,
): Promise<Json> {
  const img = await db.from("document_images").select("id, document_id, filename").eq("id", imageId)
    .maybeSingle();
  if (img.error) fail("Reading the image", img.error);
  if (!img.data) throw new DomainError("not_found", "not_found", "Image not found");
  const path = `${img.data.document_id}/${img.data.filename}`;
  const file = await db.storage.from("material-images").download(path);
  if (file.error) {
    throw new DomainError("not_found", "image_file_missing", `The image file ${path} is not in storage`);
  }
  const bytes = new Uint8Array(await file.data.arrayBuffer());
  const mediaType = sniffImage(bytes);
  if (!mediaType) {
    throw new DomainError("unprocessable", "not_an_image", `${path} is not a PNG, JPEG, GIF or WebP image`);
  }
  const system = await prompt("ocr/image_text");
  const t0 = performance.now();
  const out = await llm.text({
    model,
    system,
    prompt: [
      { type: "image", source: { type: "base64", media_type: mediaType, data: encodeBase64(bytes) } },
      { type: "text", text: `Image ${img.data.filename}: transcribe its text.` },
    ],
    maxTokens,
    purpose: "Image text (OCR)",
  });
  const latency_ms = Math.round(performance.now() - t0);
  const text = out.text.trim();
  const ocr_at = new Date().toISOString();
  const up = await db.from("document_images").update({ ocr_text: text, ocr_model: out.model, ocr_at })
    .eq("id", imageId).select("id").single();
  if (up.error) fail("Storing the text", up.error);
  return {
    image_id: imageId,
    document_id: img.data.document_id,
    ocr_text: text,
    model: out.model,
    input_tokens: out.usage.input_tokens,
    output_tokens: out.usage.output_tokens,
    latency_ms,
    ocr_at,
  };
}

function sniffImage(b: Uint8Array): "image/png" | "image/jpeg" | "image/gif" | "image/webp" | null {
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "image/png";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return "image/gif";
  if (b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57) return "image/webp";
  return null;
}

// ---- product embeddings ----

interface ProductRow {
  id: string;
  name: string;
  sku?: string | null;
  category?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** The text a product is embedded from: name, sku, category, description and metadata values. */
export function productText(p: Omit<ProductRow, "id">): string {
  const meta = Object.entries(p.metadata ?? {})
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  return [
    p.name,
    p.sku ? `SKU ${p.sku}` : null,
    p.category ? `Category: ${p.category}` : null,
    p.description ?? null,
    ...meta,
  ].filter(Boolean).join("\n");
}

/**
 * Embeds up to `limit` of a workspace's products that have no embedding, or whose text changed
 * since it was embedded, with the configured provider (one batched call), and stores them in one
 * upsert. Answers how many were embedded and how many still lack one.
 */
export async function generateProductEmbeddings(
  db: Db,
  embeddings: EmbeddingProvider,
  workspaceId: string,
  limit: number,
): Promise<Json> {
  const ws = await db.from("workspaces").select("id").eq("id", workspaceId).maybeSingle();
  if (ws.error) fail("Reading the workspace", ws.error);
  if (!ws.data) throw new DomainError("not_found", "not_found", "Workspace not found");
  const products: ProductRow[] = [];
  for (let from = 0;; from += 1000) {
    const r = await db.from("products").select("id, name, sku, category, description, metadata")
      .eq("workspace_id", workspaceId).order("created_at").order("id").range(from, from + 999);
    if (r.error) fail("Reading products", r.error);
    products.push(...(r.data as ProductRow[]));
    if (r.data.length < 1000) break;
  }
  const stored = new Map<string, string>();
  for (let from = 0;; from += 1000) {
    const r = await db.from("product_embeddings").select("product_id, content_hash")
      .eq("workspace_id", workspaceId).order("product_id").range(from, from + 999);
    if (r.error) fail("Reading product embeddings", r.error);
    for (const e of r.data) stored.set(e.product_id, e.content_hash);
    if (r.data.length < 1000) break;
  }
  const todo: { p: ProductRow; text: string; hash: string }[] = [];
  for (const p of products) {
    const text = productText(p);
    const hash = await contentHash(text);
    if (stored.get(p.id) !== hash) todo.push({ p, text, hash });
  }
  const batch = todo.slice(0, limit);
  if (batch.length) {
    const vectors = await embeddings.embed(batch.map((t) => t.text), "document");
    const embedded_at = new Date().toISOString();
    const up = await db.from("product_embeddings").upsert(
      batch.map((t, i) => ({
        product_id: t.p.id,
        workspace_id: workspaceId,
        embedding: toPgVector(vectors[i]),
        embedding_model: embeddings.model,
        content_hash: t.hash,
        embedded_at,
      })),
      { onConflict: "product_id" },
    );
    if (up.error) fail("Storing product embeddings", up.error);
  }
  return {
    workspace_id: workspaceId,
    embedded: batch.length,
    product_ids: batch.map((t) => t.p.id),
    remaining: todo.length - batch.length,
    total_products: products.length,
    model: embeddings.model,
    provider: embeddings.name,
    dimensions: embeddings.dimensions,
  };
}
