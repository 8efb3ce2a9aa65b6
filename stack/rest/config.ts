/**
 * In-database configuration (PostgREST's Config/Database.hs): `pgrst.*` settings of the
 * authenticator role, e.g. `alter role authenticator set pgrst.db_max_rows = '100'`, read at
 * start and on `NOTIFY pgrst, 'reload config'`. A setting for the current database wins over one
 * for all databases, and any setting wins over the defaults, which are hosted Supabase's:
 * aggregates and EXPLAIN plans off, `max_rows` from supabase/config.toml.
 */
import type { Queryable } from "../db/database.ts";

export interface RestSettings {
  /** `db-max-rows`: the most rows a read or a set-returning function answers. */
  maxRows: number;
  /** `db-aggregates-enabled`: `count()`, `col.sum()`... in `select`. */
  aggregatesEnabled: boolean;
  /** `db-plan-enabled`: `Accept: application/vnd.pgrst.plan` answers the EXPLAIN output. */
  planEnabled: boolean;
}

const SETTINGS_SQL = `
select substr(s.setting, 1, strpos(s.setting, '=') - 1) as name,
       substr(s.setting, strpos(s.setting, '=') + 1) as value
  from pg_catalog.pg_db_role_setting rs, unnest(rs.setconfig) s(setting)
 where rs.setrole = (select r.oid from pg_catalog.pg_roles r where r.rolname = $1)
   and rs.setdatabase in (0, (select d.oid from pg_catalog.pg_database d where d.datname = current_database()))
   and s.setting like 'pgrst.%'
 order by rs.setdatabase`;

const bool = (v: string | undefined, dflt: boolean) =>
  v === undefined ? dflt : ["true", "on", "yes", "1", "t"].includes(v.trim().toLowerCase());

/** The settings in force: `defaults` overridden by the role's `pgrst.*` settings. */
export async function loadSettings(
  db: Queryable,
  defaults: RestSettings,
  role = "authenticator",
): Promise<RestSettings> {
  const rows = await db.query<{ name: string; value: string }>(SETTINGS_SQL, [role]);
  // Later rows (the current database's) override earlier ones (all databases'); dashes and
  // underscores are the same setting, as in PostgREST's config file.
  const set = new Map(rows.rows.map((r) => [r.name.slice("pgrst.".length).replaceAll("-", "_"), r.value]));
  const maxRows = Number.parseInt(set.get("db_max_rows") ?? "", 10);
  return {
    maxRows: Number.isFinite(maxRows) && maxRows > 0 ? maxRows : defaults.maxRows,
    aggregatesEnabled: bool(set.get("db_aggregates_enabled"), defaults.aggregatesEnabled),
    planEnabled: bool(set.get("db_plan_enabled"), defaults.planEnabled),
  };
}
