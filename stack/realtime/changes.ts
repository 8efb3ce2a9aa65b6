/**
 * The change feed behind postgres_changes: stack/db/bootstrap/40_realtime.sql captures every
 * row change of a supabase_realtime table into realtime.local_changes and notifies at commit;
 * the feed drains the queue in id order (commit order: PGlite runs one transaction at a time),
 * so nothing committed while a client is connected is lost and nothing uncommitted is sent.
 *
 * Each drained batch (up to BATCH changes) goes to the deliverer at once, in id order, so it can
 * check visibility once per distinct claims instead of once per change.
 *
 * visibleTo() is Supabase's apply_rls for a batch: under the subscriber's role and JWT claims
 * (the way /rest/v1 sets them), each row must be selectable by its primary key now (after its
 * commit), and only the columns the role may SELECT are sent. DELETEs skip the row check (the
 * row is gone), as on Supabase. One transaction per table of the batch: the claims, the column
 * privileges, and one query telling which of the batch's rows are selectable.
 */
import { type PGlite, requestContextQuery } from "../db/database.ts";

export interface Change {
  id: number;
  schema: string;
  table: string;
  type: "INSERT" | "UPDATE" | "DELETE";
  record: Record<string, unknown> | null;
  old_record: Record<string, unknown> | null;
  /** UTC, millisecond precision, `YYYY-MM-DDTHH:MI:SS.sssZ`. */
  commit_timestamp: string;
}

export interface TableInfo {
  schema: string;
  table: string;
  columns: { name: string; type: string }[];
  primaryKey: string[];
  rls: boolean;
  replicaIdentityFull: boolean;
}

type Claims = Record<string, unknown> & { role?: string };

/** A drained change and its table. */
export interface Drained {
  change: Change;
  info: TableInfo;
}

export interface Visibility {
  visible: boolean;
  columns: string[];
}

const HIDDEN: Visibility = { visible: false, columns: [] };

const API_ROLES = new Set(["anon", "authenticated", "service_role"]);
const BATCH = 500;

export class ChangeFeed {
  #unlisten: (() => Promise<void>) | null = null;
  #draining: Promise<void> | null = null;
  #again = false;
  #info = new Map<string, TableInfo>();
  #stopped = false;

  constructor(
    private readonly db: PGlite,
    private readonly deliver: (batch: Drained[]) => Promise<void>,
  ) {}

  async start(): Promise<void> {
    await this.syncCapture();
    this.#unlisten = await this.db.listen("realtime_local_changes", () => this.kick());
    this.kick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#unlisten) await this.#unlisten();
    await this.#draining;
  }

  /** Puts the capture trigger on tables added to the publication since. */
  async syncCapture(): Promise<void> {
    await this.db.query(`select realtime.local_sync_capture()`);
    this.#info.clear();
  }

  /** Drains now, or once more after the drain under way. */
  kick(): void {
    if (this.#stopped) return;
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#draining = this.#drain().catch((err) => {
      console.error("realtime: draining changes failed", err);
    }).finally(() => {
      this.#draining = null;
      if (this.#again) {
        this.#again = false;
        this.kick();
      }
    });
  }

  async #drain(): Promise<void> {
    for (;;) {
      const r = await this.db.query<Change & { commit_timestamp: Date | string }>(
        `with batch as (
           delete from realtime.local_changes where id in (
             select id from realtime.local_changes order by id limit ${BATCH})
           returning id, schema_name as schema, table_name as "table", type, record, old_record, commit_timestamp)
         select * from batch order by id`,
      );
      const batch: Drained[] = [];
      for (const row of r.rows) {
        const change: Change = { ...row, commit_timestamp: new Date(row.commit_timestamp).toISOString() };
        const info = this.#info.get(`${change.schema}.${change.table}`) ??
          await this.tableInfo(change.schema, change.table);
        if (info) batch.push({ change, info });
      }
      if (batch.length) await this.deliver(batch);
      if (r.rows.length < BATCH) return;
    }
  }

  async tableInfo(schema: string, table: string): Promise<TableInfo | null> {
    const key = `${schema}.${table}`;
    const hit = this.#info.get(key);
    if (hit) return hit;
    const r = await this.db.query<{
      columns: { name: string; type: string }[];
      pk: string[] | null;
      rls: boolean;
      full: boolean;
    }>(
      `select
         (select coalesce(jsonb_agg(jsonb_build_object('name', a.attname, 'type', t.typname) order by a.attnum), '[]')
            from pg_catalog.pg_attribute a join pg_catalog.pg_type t on t.oid = a.atttypid
           where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns,
         (select array_agg(a.attname order by k.ord)
            from pg_catalog.pg_index i
            cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
            join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
           where i.indrelid = c.oid and i.indisprimary) as pk,
         c.relrowsecurity as rls,
         c.relreplident = 'f' as full
       from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relname = $2`,
      [schema, table],
    );
    if (!r.rows[0]) return null;
    const info: TableInfo = {
      schema,
      table,
      columns: r.rows[0].columns,
      primaryKey: r.rows[0].pk ?? [],
      rls: r.rows[0].rls,
      replicaIdentityFull: r.rows[0].full,
    };
    this.#info.set(key, info);
    return info;
  }

  /** The tables of the publication in `schema` (one, or all when `table` is null). */
  async publishedTables(schema: string, table: string | null): Promise<TableInfo[]> {
    const r = await this.db.query<{ tablename: string }>(
      `select tablename from pg_catalog.pg_publication_tables
        where pubname = 'supabase_realtime' and schemaname = $1 and ($2::text is null or tablename = $2)`,
      [schema, table],
    );
    const out: TableInfo[] = [];
    for (const row of r.rows) {
      const info = await this.tableInfo(schema, row.tablename);
      if (info) out.push(info);
    }
    return out;
  }

  /** May these claims read these changes, and which columns of each? (One answer per change.) */
  async visibleTo(claims: Claims, batch: Drained[]): Promise<Visibility[]> {
    const role = typeof claims.role === "string" && API_ROLES.has(claims.role) ? claims.role : "anon";
    const out: Visibility[] = batch.map(() => HIDDEN);
    const byTable = new Map<TableInfo, number[]>();
    batch.forEach(({ change, info }, i) => {
      const row = change.type === "DELETE" ? change.old_record : change.record;
      if (!row || info.primaryKey.length === 0) return;
      const list = byTable.get(info);
      if (list) list.push(i);
      else byTable.set(info, [i]);
    });
    // The request context exactly as withRequestContext sets it, its parameters inlined.
    const ctx = requestContextQuery({ role, claims });
    const context = ctx.sql.replace(/\$(\d+)/g, (_, n) => literal(ctx.params[Number(n) - 1]));
    for (const [info, indexes] of byTable) {
      const target = `${ident(info.schema)}.${ident(info.table)}`;
      const columnsSql = `select c.name from jsonb_array_elements_text(${
        literal(JSON.stringify(info.columns.map((c) => c.name)))
      }::jsonb) as c(name) where has_column_privilege(current_user, ${
        literal(target)
      }::regclass, c.name, 'SELECT')`;
      const check = indexes.filter((i) => batch[i].change.type !== "DELETE");
      // Which of the rows (by primary key, as text) can these claims select now? 1-based.
      const keys = check.map((i) => info.primaryKey.map((k) => textOf(batch[i].change.record![k])));
      const existsSql = `select x.n::int as n from jsonb_array_elements(${
        literal(JSON.stringify(keys))
      }::jsonb) with ordinality as x(k, n) where exists(select 1 from ${target} t where ${
        info.primaryKey.map((k, i) => `t.${ident(k)}::text = (x.k ->> ${i})`).join(" and ")
      })`;
      let columns: string[];
      let found: number[] = [];
      try {
        const r = await this.#asClaims(context, check.length ? [columnsSql, existsSql] : [columnsSql]);
        columns = r[0].map((c) => c.name as string);
        found = (r[1] ?? []).map((x) => x.n as number);
      } catch (err) {
        // 42501: the rows are not selectable at all (no SELECT on the key, or a policy reaching
        // what the role may not use); DELETEs still go by the column privileges.
        if ((err as { code?: string }).code !== "42501") throw err;
        columns = await this.#asClaims(context, [columnsSql]).then(
          (r) => r[0].map((c) => c.name as string),
          (e) => {
            if ((e as { code?: string }).code === "42501") return [];
            throw e;
          },
        );
      }
      if (info.primaryKey.some((k) => !columns.includes(k))) continue;
      const seen = { visible: true, columns };
      for (const i of indexes) if (batch[i].change.type === "DELETE") out[i] = seen;
      for (const n of found) out[check[n - 1]] = seen;
    }
    return out;
  }

  /**
   * Statements under the claims' context, in one round trip: a multi-statement query is one
   * implicit transaction, so the transaction-local role and claims hold for every statement
   * and end with it (as withRequestContext's transaction does); an error rolls it all back.
   */
  async #asClaims(context: string, statements: string[]): Promise<Record<string, unknown>[][]> {
    const results = await this.db.exec([context, ...statements].join(";\n"));
    return results.slice(1).map((r) => r.rows as Record<string, unknown>[]);
  }
}

function ident(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}

/**
 * A dollar-quoted literal (immune to string settings) whose tag cannot close early: neither the
 * text nor the text followed by the tag's own `$` contains it.
 */
function literal(s: string): string {
  let tag = "$rt$";
  for (let n = 0; `${s}$`.includes(tag); n++) tag = `$rt${n}$`;
  return `${tag}${s}${tag}`;
}

function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}
