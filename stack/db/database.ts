/**
 * The local platform's Postgres: PGlite (Postgres compiled to WASM) with pgvector, pg_trgm and
 * pgcrypto. One instance serves every part of the platform; PGlite runs one statement at a time
 * and queues the rest, and `transaction()` holds the connection for its whole callback.
 */
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";

export type { PGlite, Transaction };
export type Queryable = Pick<PGlite, "query" | "exec"> | Transaction;

const extensions = { vector, pg_trgm, pgcrypto };

/** The search_path every connection starts with, as hosted Supabase sets it for `postgres`. */
export const DEFAULT_SEARCH_PATH = `"$user", public, extensions`;

export interface OpenOptions {
  /** A folder to persist the database in; omitted keeps it in memory. */
  dataDir?: string;
  /** A tarball made by dumpDataDir to start from (a migrated template). */
  loadDataDir?: Blob;
}

export async function openDatabase(opts: OpenOptions = {}): Promise<PGlite> {
  const db = await PGlite.create({
    dataDir: opts.dataDir,
    loadDataDir: opts.loadDataDir,
    extensions,
  });
  await db.exec(`set search_path to ${DEFAULT_SEARCH_PATH}`);
  return db;
}

/** Who is asking, as PostgREST passes it to Postgres for one request. */
export interface RequestContext {
  /** Postgres role to run as: the JWT's `role` claim, or `anon`. */
  role: string;
  /** JWT claims, with `role` included, exposed as `request.jwt.claims`. */
  claims: Record<string, unknown>;
  method?: string;
  path?: string;
  /** Lower-cased header names. */
  headers?: Record<string, string>;
  /** Schema the request targets (first on the search_path). */
  schema?: string;
  readOnly?: boolean;
}

/**
 * Runs `fn` in one transaction under the caller's role and claims, set the way PostgREST sets
 * them (PreQuery.hs): search_path, role, request.jwt.claims, request.method, request.path,
 * request.headers, all transaction-local. RLS then decides every row.
 */
export function withRequestContext<T>(
  db: PGlite,
  ctx: RequestContext,
  fn: (tx: Transaction) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    if (ctx.readOnly) await tx.exec("set transaction read only");
    const schema = ctx.schema ?? "public";
    const searchPath = schema === "public"
      ? "public, extensions"
      : `"${schema.replaceAll('"', '""')}", public, extensions`;
    await tx.query(
      `select set_config('search_path', $1, true), set_config('role', $2, true),
              set_config('request.jwt.claims', $3, true), set_config('request.method', $4, true),
              set_config('request.path', $5, true), set_config('request.headers', $6, true)`,
      [
        searchPath,
        ctx.role,
        JSON.stringify({ ...ctx.claims, role: ctx.role }),
        ctx.method ?? "",
        ctx.path ?? "",
        JSON.stringify(ctx.headers ?? {}),
      ],
    );
    return await fn(tx);
  });
}
