/**
 * The change feed behind postgres_changes: stack/db/bootstrap/40_realtime.sql captures every
 * row change of a supabase_realtime table into realtime.local_changes and notifies at commit;
 * the feed drains the queue in id order (commit order: PGlite runs one transaction at a time),
 * so nothing committed while a client is connected is lost and nothing uncommitted is sent.
 *
 * visibleTo() is Supabase's apply_rls: under the subscriber's role and JWT claims (the way
 * /rest/v1 sets them), the row must be selectable by its primary key now, and only the columns
 * the role may SELECT are sent. DELETEs skip the row check (the row is gone), as on Supabase.
 */
import { type PGlite, withRequestContext } from "../db/database.ts";

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
    private readonly deliver: (change: Change, info: TableInfo) => Promise<void>,
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
      for (const row of r.rows) {
        const change: Change = { ...row, commit_timestamp: new Date(row.commit_timestamp).toISOString() };
        const info = await this.tableInfo(change.schema, change.table);
        if (info) await this.deliver(change, info);
      }
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

  /** May these claims read this change, and which columns of it? */
  async visibleTo(
    claims: Claims,
    change: Change,
    info: TableInfo,
  ): Promise<{ visible: boolean; columns: string[] }> {
    const role = typeof claims.role === "string" && API_ROLES.has(claims.role) ? claims.role : "anon";
    const row = change.type === "DELETE" ? change.old_record : change.record;
    if (!row || info.primaryKey.length === 0) return { visible: false, columns: [] };
    const names = info.columns.map((c) => c.name);
    const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
    const target = `${ident(info.schema)}.${ident(info.table)}`;
    return await withRequestContext(this.db, { role, claims }, async (tx) => {
      const cols = await tx.query<{ name: string }>(
        `select c.name from unnest($1::text[]) as c(name)
          where has_column_privilege(current_user, $2::regclass, c.name, 'SELECT')`,
        [names, target],
      );
      const columns = cols.rows.map((c) => c.name);
      if (info.primaryKey.some((k) => !columns.includes(k))) return { visible: false, columns: [] };
      if (change.type === "DELETE") return { visible: true, columns };
      const exists = await tx.query<{ ok: boolean }>(
        `select exists(select 1 from ${target} t where ${
          info.primaryKey.map((k, i) => `t.${ident(k)}::text = ($1::jsonb ->> ${i})`).join(" and ")
        }) as ok`,
        [JSON.stringify(info.primaryKey.map((k) => textOf(row[k])))],
      );
      return { visible: exists.rows[0]?.ok === true, columns };
    }).catch((err) => {
      // A role without SELECT on the table at all (42501) simply does not see the change.
      if ((err as { code?: string }).code === "42501") return { visible: false, columns: [] };
      throw err;
    });
  }
}

function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}
