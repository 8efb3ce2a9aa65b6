/**
 * `deno task db-lint`: Supabase's database advisor lints (supabase/splinter, the checks the
 * dashboard's Security and Performance Advisors run) as SQL over the migrated database: the local
 * platform's migrated template (stack/db/template.ts), so it sees exactly what `db push` makes.
 * Exits 1, printing each finding, when a finding is not listed with a reason in
 * supabase/db-lint-allow.json; an allow entry that matches nothing is reported too (stale).
 *
 *   deno task db-lint                      lint the migrated template of this repository
 *   deno task db-lint --root <project>     lint another project folder (supabase/migrations)
 *
 * The lints, each a query in the shape of splinter's view of the same number (same scope, same
 * excluded schemas), returning one row per finding with a stable `object` name:
 *
 *   0001 unindexed_foreign_keys             a foreign key whose columns do not lead any
 *                                           index (`schema.table.constraint`)
 *   0002 auth_users_exposed                 a public view over auth.users readable by anon or
 *                                           authenticated (`public.view`)
 *   0006 multiple_permissive_policies       two or more permissive policies for one role and
 *                                           action (`schema.table role ACTION`)
 *   0009 duplicate_index                    identical indexes (`schema.table (idx, idx)`)
 *   0010 security_definer_view              a view readable by the API roles without
 *                                           security_invoker (`schema.view`)
 *   0011 function_search_path_mutable       a function without a pinned search_path
 *                                           (`schema.function(argument types)`)
 *   0013 rls_disabled_in_public             a public table without RLS (`public.table`)
 *   0028 anon_security_definer_function_executable
 *                                           a SECURITY DEFINER function anon may execute
 *                                           (`schema.function(argument types)`)
 *   0029 authenticated_security_definer_function_executable
 *                                           the same for `authenticated`: the RPCs users call
 *                                           on purpose and the RLS helpers, each allowed with
 *                                           its reason, so a new one must be reviewed
 */
import { openDatabase, type Queryable } from "../stack/db/database.ts";
import { migrate } from "../stack/db/migrate.ts";
import { openFromTemplate } from "../stack/db/template.ts";

export interface Finding {
  /** splinter's lint name, e.g. unindexed_foreign_keys. */
  lint: string;
  /** The object it is about, in the lint's naming (see the module doc). */
  object: string;
  detail: string;
}

export interface AllowEntry {
  lint: string;
  object: string;
  reason: string;
}

/** Schemas splinter leaves out (Supabase's own and extensions'). */
export const SYSTEM_SCHEMAS = [
  "_timescaledb_cache",
  "_timescaledb_catalog",
  "_timescaledb_config",
  "_timescaledb_internal",
  "auth",
  "cron",
  "extensions",
  "graphql",
  "graphql_public",
  "information_schema",
  "net",
  "pgmq",
  "pgroonga",
  "pgsodium",
  "pgsodium_masks",
  "pgtle",
  "pgbouncer",
  "pg_catalog",
  "realtime",
  "repack",
  "storage",
  "supabase_functions",
  "supabase_migrations",
  "tiger",
  "topology",
  "vault",
];
const SYSTEM = `(${SYSTEM_SCHEMAS.map((s) => `'${s}'`).join(", ")})`;
/** Tables, views and functions an extension owns are the extension's business. */
const notExtensionOwned = (oid: string) =>
  `not exists (select 1 from pg_catalog.pg_depend d where d.objid = ${oid} and d.deptype = 'e')`;

export const LINTS: Record<string, string> = {
  // 0001: covered when a valid index's leading key columns are the constraint's, in its order
  // (splinter#96: an index on (a, b) covers a foreign key on (a)).
  unindexed_foreign_keys: `
    select format('%s.%s.%s', n.nspname, c.relname, ct.conname) as object,
           format('foreign key %s (%s) has no index whose leading columns are these', ct.conname,
             (select string_agg(a.attname, ', ' order by k.i) from unnest(ct.conkey) with ordinality k(attnum, i)
                join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum)) as detail
      from pg_catalog.pg_constraint ct
      join pg_catalog.pg_class c on c.oid = ct.conrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where ct.contype = 'f' and n.nspname not in ${SYSTEM} and ${notExtensionOwned("c.oid")}
       and not exists (
         select 1 from pg_catalog.pg_index i
          where i.indrelid = c.oid and i.indisvalid
            and (string_to_array(i.indkey::text, ' ')::smallint[])[1:cardinality(ct.conkey)] = ct.conkey)`,
  // 0002
  auth_users_exposed: `
    select distinct format('public.%s', c.relname) as object,
           'view over auth.users readable by anon or authenticated' as detail
      from pg_catalog.pg_depend d
      join pg_catalog.pg_rewrite r on r.oid = d.objid
      join pg_catalog.pg_class c on c.oid = r.ev_class
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where d.refobjid = 'auth.users'::regclass and d.deptype = 'n' and c.relkind in ('v', 'm')
       and n.nspname = 'public'
       and (pg_catalog.has_table_privilege('anon', c.oid, 'SELECT')
         or pg_catalog.has_table_privilege('authenticated', c.oid, 'SELECT'))`,
  // 0006: a policy for PUBLIC counts for every role; roles that bypass RLS do not matter.
  multiple_permissive_policies: `
    select format('%s.%s %s %s', n.nspname, c.relname, r.rolname, act.cmd) as object,
           format('policies %s', string_agg(p.polname, ', ' order by p.polname)) as detail
      from pg_catalog.pg_policy p
      join pg_catalog.pg_class c on c.oid = p.polrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_roles r on p.polroles @> array[r.oid] or p.polroles = array[0::oid]
      cross join lateral unnest(case p.polcmd
          when 'r' then array['SELECT'] when 'a' then array['INSERT'] when 'w' then array['UPDATE']
          when 'd' then array['DELETE'] when '*' then array['SELECT', 'INSERT', 'UPDATE', 'DELETE']
        end) act(cmd)
     where c.relkind = 'r' and p.polpermissive and n.nspname not in ${SYSTEM}
       and r.rolname not like 'pg\\_%' and r.rolname not like 'supabase%admin' and not r.rolbypassrls
     group by n.nspname, c.relname, r.rolname, act.cmd
    having count(*) > 1`,
  // 0009: same definition apart from the index name.
  duplicate_index: `
    select format('%s.%s (%s)', n.nspname, c.relname, string_agg(pi.indexname, ', ' order by pi.indexname))
             as object,
           'identical indexes: drop all but one' as detail
      from pg_catalog.pg_indexes pi
      join pg_catalog.pg_namespace n on n.nspname = pi.schemaname
      join pg_catalog.pg_class c on c.relname = pi.tablename and c.relnamespace = n.oid
     where c.relkind in ('r', 'm') and n.nspname not in ${SYSTEM} and ${notExtensionOwned("c.oid")}
     group by n.nspname, c.relname, replace(pi.indexdef, pi.indexname, '')
    having count(*) > 1`,
  // 0010
  security_definer_view: `
    select format('%s.%s', n.nspname, c.relname) as object,
           'view readable by anon or authenticated runs with its owner''s rights (no security_invoker)'
             as detail
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind = 'v' and n.nspname not in ${SYSTEM} and ${notExtensionOwned("c.oid")}
       and (pg_catalog.has_table_privilege('anon', c.oid, 'SELECT')
         or pg_catalog.has_table_privilege('authenticated', c.oid, 'SELECT'))
       and not (lower(coalesce(c.reloptions::text, '{}'))::text[]
         && array['security_invoker=1', 'security_invoker=true', 'security_invoker=yes', 'security_invoker=on'])`,
  // 0011
  function_search_path_mutable: `
    select format('%s.%s(%s)', n.nspname, p.proname, pg_catalog.oidvectortypes(p.proargtypes))
             as object,
           case when p.prosecdef then 'SECURITY DEFINER function' else 'function' end
             || ' without a pinned search_path' as detail
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where n.nspname not in ${SYSTEM} and ${notExtensionOwned("p.oid")}
       and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) cfg where cfg like 'search_path=%')`,
  // 0013
  rls_disabled_in_public: `
    select format('public.%s', c.relname) as object, 'table in public without row level security' as detail
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind = 'r' and n.nspname = 'public' and not c.relrowsecurity`,
  // 0028
  anon_security_definer_function_executable: `
    select format('%s.%s(%s)', n.nspname, p.proname, pg_catalog.oidvectortypes(p.proargtypes))
             as object,
           format('SECURITY DEFINER function anon may execute (/rest/v1/rpc/%s)', p.proname) as detail
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where p.prosecdef and pg_catalog.has_function_privilege('anon', p.oid, 'EXECUTE')
       and n.nspname not in ${SYSTEM}`,
  // 0029: every one must be reviewed (tests/security/tenancy/schema_test.ts attacks each) and
  // explained in the allow file: signed-up users are anyone with an e-mail address.
  authenticated_security_definer_function_executable: `
    select format('%s.%s(%s)', n.nspname, p.proname, pg_catalog.oidvectortypes(p.proargtypes)) as object,
           format('SECURITY DEFINER function any signed-in user may execute (/rest/v1/rpc/%s)', p.proname)
             as detail
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where p.prosecdef and pg_catalog.has_function_privilege('authenticated', p.oid, 'EXECUTE')
       and n.nspname not in ${SYSTEM}`,
};

/** Every lint's findings, sorted by lint then object. */
export async function runLints(db: Queryable): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const [lint, sql] of Object.entries(LINTS)) {
    const r = await db.query<{ object: string; detail: string }>(sql);
    for (const row of r.rows) out.push({ lint, object: row.object, detail: row.detail });
  }
  return out.sort((a, b) => a.lint.localeCompare(b.lint) || a.object.localeCompare(b.object));
}

export const ALLOW_FILE = "supabase/db-lint-allow.json";

/** Reads and checks the allow file: every entry names a known lint, an object and a reason. */
export async function readAllowList(rootDir: string): Promise<AllowEntry[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${rootDir}/${ALLOW_FILE}`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const entries = JSON.parse(text);
  if (!Array.isArray(entries)) throw new Error(`${ALLOW_FILE}: expected an array of {lint, object, reason}`);
  entries.forEach((e, i) => {
    const bad = ["lint", "object", "reason"].filter((k) => typeof e?.[k] !== "string" || !e[k].trim());
    if (bad.length) throw new Error(`${ALLOW_FILE}[${i}]: missing ${bad.join(", ")}`);
    if (!Object.hasOwn(LINTS, e.lint)) throw new Error(`${ALLOW_FILE}[${i}]: unknown lint ${e.lint}`);
  });
  return entries;
}

export interface LintReport {
  findings: Finding[];
  /** Findings with no allow entry: each fails the run. */
  unexplained: Finding[];
  /** Findings an allow entry explains, with its reason. */
  allowed: (Finding & { reason: string })[];
  /** Allow entries that match no finding (fixed since, or misspelt): each fails the run. */
  stale: AllowEntry[];
}

export function judge(findings: Finding[], allow: AllowEntry[]): LintReport {
  const key = (x: { lint: string; object: string }) => `${x.lint}\u0000${x.object}`;
  const reasons = new Map(allow.map((a) => [key(a), a.reason]));
  const found = new Set(findings.map(key));
  return {
    findings,
    unexplained: findings.filter((f) => !reasons.has(key(f))),
    allowed: findings.filter((f) => reasons.has(key(f))).map((f) => ({ ...f, reason: reasons.get(key(f))! })),
    stale: allow.filter((a) => !found.has(key(a))),
  };
}

/** Lints the project at `rootDir`: its migrated template, judged against its allow file. */
export async function lintProject(rootDir: string, opts: { fresh?: boolean } = {}): Promise<LintReport> {
  const db = opts.fresh ? await openDatabase() : await openFromTemplate(rootDir);
  try {
    if (opts.fresh) await migrate(db, rootDir);
    return judge(await runLints(db), await readAllowList(rootDir));
  } finally {
    await db.close();
  }
}

/** Counts per lint, for the summary line. */
export function countByLint(findings: { lint: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const f of findings) counts[f.lint] = (counts[f.lint] ?? 0) + 1;
  return counts;
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--root");
  const root = at >= 0 ? Deno.args[at + 1] : new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const report = await lintProject(root);
  for (const f of report.unexplained) console.log(`FINDING ${f.lint}: ${f.object}\n  ${f.detail}`);
  for (const a of report.stale) {
    console.log(
      `STALE ALLOW ${a.lint}: ${a.object}\n  no such finding any more: remove it from ${ALLOW_FILE}`,
    );
  }
  const counts = Object.entries(countByLint(report.findings)).map(([l, n]) => `${l} ${n}`).join(", ");
  console.log(
    `db-lint: ${Object.keys(LINTS).length} lints, ${report.findings.length} findings` +
      (counts ? ` (${counts})` : "") +
      `; ${report.allowed.length} allowed in ${ALLOW_FILE}, ${report.unexplained.length} unexplained, ` +
      `${report.stale.length} stale allow entries`,
  );
  if (report.unexplained.length || report.stale.length) Deno.exit(1);
}
