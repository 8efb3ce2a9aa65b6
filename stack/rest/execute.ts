/**
 * Stage 4: run one request in one transaction, as PostgREST does: BEGIN (READ ONLY for reads),
 * the request context (role, request.jwt.claims, request.* — requestContextQuery, the same
 * statement withRequestContext runs), the main statement, an optional EXPLAIN for planned counts,
 * then COMMIT, or ROLLBACK for `Prefer: tx=rollback`.
 *
 * PGlite serves one connection, and each `query()` costs several round trips into the WASM
 * module. The statements are therefore pipelined as one extended-protocol exchange (Parse, Bind,
 * Execute per statement, one Sync), holding PGlite's transaction and query locks for the whole
 * exchange so that no other caller's statement can interleave. When the outcome must be checked
 * before committing (a single object, max-affected), the COMMIT goes in a second exchange.
 */
import { protocol } from "@electric-sql/pglite";
import { type PGlite, type RequestContext, requestContextQuery } from "../db/database.ts";
import type { PgErrorFields } from "./errors.ts";
import type { Statement } from "./query.ts";

export interface ResultRow {
  total: string | null;
  pageTotal: number;
  body: string;
  responseHeaders: string | null;
  responseStatus: string | null;
  location: string | null;
  inserted: string | null;
}

export interface RunSpec {
  context: RequestContext;
  /**
   * Compute query ids in this transaction (`compute_query_id`), so that EXPLAIN VERBOSE prints the
   * "Query Identifier" as on hosted Supabase, whose pg_stat_statements turns them on. The setting is
   * superuser-only, so it is made before the switch to the caller's role.
   */
  queryId?: boolean;
  main: Statement;
  explain: Statement | null;
  /** Called before COMMIT; throwing rolls the transaction back and fails the request. */
  check?: (row: ResultRow) => void;
  rollback: boolean;
}

export interface RunResult {
  row: ResultRow;
  /** The first column of every row of the main statement (an EXPLAIN's output lines). */
  lines: (string | null)[];
  /** Plan Rows of the EXPLAIN, when asked for. */
  planRows: number | null;
}

/** A Postgres error raised while running the request. */
export class DbError extends Error {
  constructor(readonly fields: PgErrorFields) {
    super(fields.message);
    this.name = "DbError";
  }
}

const S = protocol.serialize;
const QUERY_ID: Statement = { sql: "select set_config('compute_query_id', 'on', true)", params: [] };
const ROLLBACK = S.query("ROLLBACK");
/** Prepared statements kept per database connection; PostgREST prepares its statements too. */
const STATEMENT_CACHE_SIZE = 256;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/**
 * Named prepared statements by SQL text (LRU). Postgres re-plans them itself when the schema,
 * the search_path or the role (for RLS) changes, and every statement here returns the same
 * fixed text columns, so a cached statement never changes its result type.
 */
class Prepared {
  private names = new Map<string, string>();
  private counter = 0;
  /** Evicted or possibly half-created statements, closed at the start of the next exchange. */
  private toClose: string[] = [];
  /** Created in the exchange being built: forgotten again if the exchange fails. */
  private fresh: [string, string][] = [];

  messages(st: Statement): Uint8Array[] {
    let name = this.names.get(st.sql);
    const out: Uint8Array[] = [];
    if (name === undefined) {
      name = `pgrst_${++this.counter}`;
      out.push(S.parse({ name, text: st.sql }));
      this.fresh.push([st.sql, name]);
      if (this.names.size >= STATEMENT_CACHE_SIZE) {
        const [oldest, oldName] = this.names.entries().next().value!;
        this.names.delete(oldest);
        this.toClose.push(oldName);
      }
    } else this.names.delete(st.sql);
    this.names.set(st.sql, name);
    out.push(S.bind({ statement: name, values: st.params }), S.execute({}));
    return out;
  }

  begin(): Uint8Array[] {
    this.fresh = [];
    const closes = this.toClose.map((name) => S.close({ type: "S", name }));
    this.toClose = [];
    return closes;
  }

  /** Forgets every statement, e.g. after something ran DEALLOCATE ALL on the connection. */
  reset(): void {
    this.names.clear();
    this.fresh = [];
  }

  /** After a failed exchange a statement may not have been created: drop and close them all. */
  failed(): void {
    for (const [sql, name] of this.fresh) {
      if (this.names.get(sql) === name) this.names.delete(sql);
      this.toClose.push(name);
    }
    this.fresh = [];
  }
}

const prepared = new WeakMap<PGlite, Prepared>();

interface Exchange {
  /** Data rows per statement, in order. */
  rows: (string | null)[][][];
  error: PgErrorFields | null;
  /** Transaction status after the exchange: I idle, T in a transaction, E failed transaction. */
  status: string;
}

type Message = { name: string; fields?: (string | null)[]; status?: string } & Partial<PgErrorFields>;

/**
 * An exchange the backend answered without completing every statement and without an error:
 * PGlite does this when a statement overflows its native stack (e.g. casting JSON nested thousands
 * of levels deep). Nothing of it may be reported as done.
 */
const INCOMPLETE: PgErrorFields = {
  code: "XX000",
  message: "The database did not complete the request",
  hint: "The statement was not executed; nothing was written.",
};

async function exchange(db: PGlite, parts: Uint8Array[], statements: number): Promise<Exchange> {
  const { messages } = await db.execProtocol(concat([...parts, S.sync()]), { throwOnError: false });
  const out: Exchange = { rows: [[]], error: null, status: "?" };
  let completed = 0;
  for (const m of messages as Message[]) {
    switch (m.name) {
      case "dataRow":
        out.rows[out.rows.length - 1].push(m.fields ?? []);
        break;
      case "commandComplete":
        completed++;
        out.rows.push([]);
        break;
      case "emptyQuery":
        // None of the statements sent here is empty: the backend skipped one.
        out.error ??= INCOMPLETE;
        out.rows.push([]);
        break;
      case "error":
        out.error ??= { code: m.code, message: m.message ?? "", detail: m.detail, hint: m.hint };
        break;
      case "readyForQuery":
        out.status = m.status ?? "I";
        break;
    }
  }
  if (!out.error && (completed !== statements || out.status === "?")) out.error = INCOMPLETE;
  if (out.status === "?") out.status = "E";
  return out;
}

function toRow(fields: (string | null)[] | undefined): ResultRow {
  const f = fields ?? [];
  return {
    total: f[0] ?? null,
    pageTotal: Number(f[1] ?? 0),
    body: f[2] ?? "",
    responseHeaders: f[3] ?? null,
    responseStatus: f[4] ?? null,
    location: f[5] ?? null,
    inserted: f[6] ?? null,
  };
}

function planRows(fields: (string | null)[] | undefined): number | null {
  const plan = JSON.parse(fields?.[0] ?? "null");
  const rows = plan?.[0]?.Plan?.["Plan Rows"];
  return typeof rows === "number" ? rows : null;
}

/**
 * Without a check or a rollback, the statements run in the implicit transaction the extended
 * protocol opens at the first Execute and commits at Sync (or rolls back on an error), which
 * saves the BEGIN and COMMIT; read-only is then set with transaction_read_only. Otherwise an
 * explicit BEGIN keeps the transaction open until the outcome is known.
 */
export async function run(db: PGlite, spec: RunSpec): Promise<RunResult> {
  try {
    return await runOnce(db, spec);
  } catch (err) {
    // 26000: a prepared statement vanished under us (DEALLOCATE ALL, DISCARD ALL): prepare again.
    if (!(err instanceof DbError) || err.fields.code !== "26000") throw err;
    prepared.get(db)?.reset();
    return await runOnce(db, spec);
  }
}

function runOnce(db: PGlite, spec: RunSpec): Promise<RunResult> {
  let cache = prepared.get(db);
  if (!cache) prepared.set(db, cache = new Prepared());
  const ps = cache;
  // Both locks: the transaction lock keeps other callers' transactions out, the query lock keeps
  // single statements (and LISTEN bookkeeping) from interleaving with the exchange.
  return db._runExclusiveTransaction(() =>
    db._runExclusiveQuery(async () => {
      const explicit = spec.check !== undefined || spec.rollback;
      const context = requestContextQuery(
        explicit || !spec.context.readOnly
          ? spec.context
          : { ...spec.context, settings: { ...spec.context.settings, transaction_read_only: "on" } },
      );
      const parts = ps.begin();
      let statements = 2;
      if (explicit) {
        parts.push(...ps.messages({ sql: spec.context.readOnly ? "BEGIN READ ONLY" : "BEGIN", params: [] }));
        statements++;
      }
      if (spec.queryId) parts.push(...ps.messages(QUERY_ID)), statements++;
      const main = statements - 1;
      parts.push(...ps.messages(context), ...ps.messages(spec.main));
      if (spec.explain) parts.push(...ps.messages(spec.explain)), statements++;
      if (explicit && !spec.check) parts.push(...ps.messages({ sql: "ROLLBACK", params: [] })), statements++;
      const ex = await exchange(db, parts, statements);
      if (ex.error) {
        ps.failed();
        if (ex.status !== "I") await db.execProtocol(ROLLBACK, { throwOnError: false });
        throw new DbError(ex.error);
      }
      const result: RunResult = {
        row: toRow(ex.rows[main][0]),
        lines: ex.rows[main].map((r) => r[0]),
        planRows: spec.explain ? planRows(ex.rows[main + 1][0]) : null,
      };
      if (spec.check) {
        try {
          spec.check(result.row);
        } catch (err) {
          await db.execProtocol(ROLLBACK, { throwOnError: false });
          throw err;
        }
        // A COMMIT that fails (or does not complete) fails the request: never acknowledge a
        // write that is not committed.
        const done = await exchange(
          db,
          ps.messages({ sql: spec.rollback ? "ROLLBACK" : "COMMIT", params: [] }),
          1,
        );
        if (done.error) {
          if (done.status !== "I") await db.execProtocol(ROLLBACK, { throwOnError: false });
          throw new DbError(done.error);
        }
      }
      return result;
    })
  );
}
