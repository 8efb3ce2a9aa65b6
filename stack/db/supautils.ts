/**
 * What supautils decides about `ALTER ROLE` by `postgres` on hosted Supabase, for the statements
 * of a migration (migrate.ts runs a file that has any statement by statement and asks judge()).
 * Upstream: supabase/supautils src/roles.c (alter_role, alter_role_set) with hosted's
 * supautils.conf (reserved_roles, privileged_role_allowed_configs). PGlite has no utility hook,
 * so the decision is made on the statement's text before it runs:
 * - `alter role <r> [in database d] set|reset <name>`: refused when <r> is a reserved role; for
 *   the roles marked `*` (the API roles and authenticator) and a setting in the allowed list
 *   (`pgrst.*`, session_replication_role, log_* ...) it runs as the superuser, as supautils runs
 *   it elevated; anything else runs as postgres and Postgres decides (e.g. `statement_timeout`
 *   on anon, which postgres administers, passes; `pgrst.*` on a role of its own does not).
 * - `alter role <reserved> <attributes>` (superuser, nologin ...) or `rename to`: refused,
 *   whatever the role's `*`.
 */

/** supautils.reserved_roles on hosted; `*`: postgres may change the role's allowed settings. */
const RESERVED_ROLES =
  "supabase_admin, supabase_auth_admin, supabase_storage_admin, supabase_read_only_user, " +
  "supabase_realtime_admin, supabase_replication_admin, dashboard_user, pgbouncer, " +
  "service_role*, authenticator*, authenticated*, anon*";

/** supautils.privileged_role_allowed_configs on hosted. */
const ALLOWED_CONFIGS = "auto_explain.*, log_lock_waits, log_min_duration_statement, log_min_messages, " +
  "log_replication_commands, log_statement, log_temp_files, pg_net.batch_size, pg_net.ttl, " +
  "pg_stat_statements.*, pgaudit.log, pgaudit.log_catalog, pgaudit.log_client, pgaudit.log_level, " +
  "pgaudit.log_relation, pgaudit.log_rows, pgaudit.log_statement, pgaudit.log_statement_once, " +
  "pgaudit.role, pgrst.*, plan_filter.*, safeupdate.enabled, session_replication_role, " +
  "track_io_timing, wal_compression";

const list = (s: string) => s.split(",").map((x) => x.trim());

const reserved = new Map(list(RESERVED_ROLES).map((r) => [r.replace(/\*$/, ""), r.endsWith("*")]));

/** supautils' is_string_in_comma_delimited_string: exact names, or `prefix.*`. */
export function isAllowedConfig(name: string): boolean {
  const n = name.toLowerCase();
  return list(ALLOWED_CONFIGS).some((c) => c.endsWith(".*") ? n.startsWith(c.slice(0, -1)) : n === c);
}

export type Verdict =
  | { run: "as-postgres" }
  | { run: "as-superuser" }
  | { run: "refused"; message: string };

const LEADING_COMMENTS = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/;
const IDENT = String.raw`("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
const ALTER_ROLE = new RegExp(String.raw`^alter\s+(?:role|user)\s+${IDENT}\s+(.*)$`, "is");
const SET_CLAUSE = new RegExp(
  String.raw`^(?:in\s+database\s+${IDENT}\s+)?(?:set|reset)\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$.]*)`,
  "is",
);

const unquote = (id: string) => id.startsWith('"') ? id.slice(1, -1).replaceAll('""', '"') : id.toLowerCase();

/** Statements a migration file must run one by one for judge() to see them. */
export const MENTIONS_ALTER_ROLE = /\balter\s+(?:role|user)\b/i;

export function judge(statement: string): Verdict {
  const m = ALTER_ROLE.exec(statement.replace(LEADING_COMMENTS, ""));
  if (!m) return { run: "as-postgres" };
  const role = unquote(m[1]);
  const rest = m[2].trim();
  const configurable = reserved.get(role);
  if (configurable === undefined) return { run: "as-postgres" };
  const refused = {
    run: "refused",
    message: `"${role}" is a reserved role, only superusers can modify it`,
  } as const;
  const set = SET_CLAUSE.exec(rest);
  if (!set) return refused;
  if (!configurable) return refused;
  const name = unquote(set[2]);
  return isAllowedConfig(name) ? { run: "as-superuser" } : { run: "as-postgres" };
}
