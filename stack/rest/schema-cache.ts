/**
 * The schema cache (PostgREST's SchemaCache.hs): tables, views, columns, keys, foreign keys,
 * relationships and functions of the exposed schemas, read from the catalog in a few queries.
 * Views inherit keys and relationships from the base-table columns they expose, found from the
 * view's stored query tree, as PostgREST does.
 */
import type { Queryable } from "../db/database.ts";

export interface Column {
  name: string;
  /** format_type(): what json_to_recordset and casts use. */
  type: string;
  nullable: boolean;
  /** The default expression, as the catalog stores it. */
  default: string | null;
}

export interface Table {
  schema: string;
  name: string;
  oid: number;
  isView: boolean;
  columns: Column[];
  columnMap: Map<string, Column>;
  pk: string[];
  /** Primary key and unique constraints, as column lists. */
  keys: string[][];
}

export type Cardinality = "m2o" | "o2m" | "o2o" | "m2m";

export interface Junction {
  table: Table;
  constraint1: string;
  constraint2: string;
  /** [origin column, junction column] */
  sourceCols: [string, string][];
  /** [junction column, target column] */
  targetCols: [string, string][];
}

export interface Relationship {
  table: Table;
  foreignTable: Table;
  cardinality: Cardinality;
  constraint: string;
  /** [origin column, target column] for m2o, o2m and o2o. */
  columns: [string, string][];
  junction?: Junction;
  /** A computed relationship: a function taking the origin's row and returning target rows. */
  computed?: { schema: string; name: string };
}

export interface RoutineParam {
  name: string;
  type: string;
  hasDefault: boolean;
  variadic: boolean;
}

export interface Routine {
  schema: string;
  name: string;
  params: RoutineParam[];
  returnType: string;
  returnsSet: boolean;
  /** void, a scalar, or rows with named columns (a table type, TABLE(...) or OUT parameters). */
  returnKind: "void" | "scalar" | "composite";
  /** The table or view whose rows the function returns, when it returns one (for embedding). */
  returnTable: Table | null;
  volatility: "immutable" | "stable" | "volatile";
}

export interface SchemaCache {
  schemas: string[];
  tables: Map<string, Table>;
  /** Relationships keyed by the origin's "schema.name". */
  relationships: Map<string, Relationship[]>;
  routines: Map<string, Routine[]>;
}

export const qualified = (schema: string, name: string) => `${schema}.${name}`;

// The exposed schemas' oids, filtered on before anything is joined: PGlite scans catalogs slowly,
// so every query below narrows by oid (using the catalogs' indexes) rather than joining names.
const NAMESPACES = `array(select n.oid from pg_catalog.pg_namespace n where n.nspname = any($1))`;
const RELATIONS = `array(select c.oid from pg_catalog.pg_class c
  where c.relnamespace = any(${NAMESPACES}) and c.relkind in ('r', 'v', 'm', 'f', 'p'))`;

const TABLES_SQL = `
select c.oid::int as oid, (select n.nspname from pg_catalog.pg_namespace n where n.oid = c.relnamespace) as schema,
       c.relname as name,
       c.relkind in ('v', 'm') as is_view
  from pg_catalog.pg_class c
 where c.relnamespace = any(${NAMESPACES}) and c.relkind in ('r', 'v', 'm', 'f', 'p')`;

const COLUMNS_SQL = `
select a.attrelid::int as oid, a.attnum::int as attnum, a.attname as name,
       pg_catalog.format_type(a.atttypid, a.atttypmod) as type,
       not a.attnotnull as nullable, pg_catalog.pg_get_expr(d.adbin, d.adrelid) as "default"
  from pg_catalog.pg_attribute a
  left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
 where a.attrelid = any(${RELATIONS}) and a.attnum > 0 and not a.attisdropped
 order by a.attrelid, a.attnum`;

const CONSTRAINTS_SQL = `
select c.conname as name, c.contype as type, c.conrelid::int as rel, c.confrelid::int as frel,
       array(select (select a.attname from pg_catalog.pg_attribute a where a.attrelid = c.conrelid and a.attnum = k.n)
               from unnest(c.conkey) with ordinality k(n, i) order by k.i) as cols,
       array(select (select a.attname from pg_catalog.pg_attribute a where a.attrelid = c.confrelid and a.attnum = k.n)
               from unnest(coalesce(c.confkey, '{}')) with ordinality k(n, i) order by k.i) as fcols
  from pg_catalog.pg_constraint c
 where c.conrelid = any(${RELATIONS}) and c.contype in ('p', 'u', 'f')`;

const VIEWS_SQL = `
select r.ev_class::int as oid, r.ev_action::text as tree
  from pg_catalog.pg_rewrite r
 where r.ev_class = any(${RELATIONS}) and r.rulename = '_RETURN'`;

const ROUTINES_SQL = `
select (select n.nspname from pg_catalog.pg_namespace n where n.oid = p.pronamespace) as schema, p.proname as name,
       coalesce(p.proargnames, '{}') as arg_names,
       coalesce(p.proargmodes::text[], '{}') as arg_modes,
       array(select pg_catalog.format_type(t, null)
               from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(t, i)
              order by u.i) as arg_types,
       p.pronargs as nargs, p.pronargdefaults as ndefaults, p.proretset as returns_set,
       pg_catalog.format_type(p.prorettype, null) as return_type,
       (select t.typtype from pg_catalog.pg_type t where t.oid = p.prorettype) as ret_typtype,
       (select t.typrelid from pg_catalog.pg_type t where t.oid = p.prorettype)::int as ret_relid,
       p.provolatile as volatility, p.prorows::float8 as prorows,
       array(select coalesce((select a.typrelid from pg_catalog.pg_type a where a.oid = u.t), 0)::int
               from unnest(p.proargtypes::oid[]) with ordinality u(t, i) order by u.i) as arg_relids
  from pg_catalog.pg_proc p
 where p.pronamespace = any(${NAMESPACES}) and p.prokind = 'f'`;

/** One text value per catalog query: PGlite converts a single JSON document faster than many rows. */
async function rows<T>(db: Queryable, sql: string, schemas: string[]): Promise<T[]> {
  const r = await db.query<{ j: string }>(`select coalesce(json_agg(x), '[]')::text as j from (${sql}) x`, [
    schemas,
  ]);
  return JSON.parse(r.rows[0].j) as T[];
}

interface ConstraintRow {
  name: string;
  type: "p" | "u" | "f";
  rel: number;
  frel: number;
  cols: string[];
  fcols: string[];
}

// ---- view column origins (the stored query tree) ----

/** Removes nested `{...}` nodes from a node-tree fragment, so its own fields can be read. */
function stripNested(text: string): string {
  let out = "";
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      if (depth === 0) out += c + (text[i + 1] ?? "");
      i++;
    } else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (depth === 0) out += c;
  }
  return out;
}

/**
 * View column -> [base relation oid, attnum], read from the view query's top-level target list:
 * each TARGETENTRY carries :resname and, for plain column references, :resorigtbl/:resorigcol.
 */
export function viewColumnOrigins(tree: string): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  let depth = 0;
  let listStart = -1;
  for (let i = 0; i < tree.length; i++) {
    const c = tree[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (depth === 1 && tree.startsWith(":targetList (", i)) listStart = i;
  }
  if (listStart < 0) return out;
  depth = 0;
  let entryStart = -1;
  for (let i = listStart + ":targetList (".length; i < tree.length; i++) {
    const c = tree[i];
    if (c === "\\") i++;
    else if (c === "{") {
      if (depth === 0) entryStart = i + 1;
      depth++;
    } else if (c === "}") {
      depth--;
      if (depth === 0) {
        const own = stripNested(tree.slice(entryStart, i));
        const name = /:resname ((?:\\.|\S)+)/.exec(own)?.[1]?.replace(/\\(.)/g, "$1");
        const tbl = Number(/:resorigtbl (\d+)/.exec(own)?.[1] ?? 0);
        const col = Number(/:resorigcol (\d+)/.exec(own)?.[1] ?? 0);
        if (name && tbl > 0 && col > 0 && !/:resjunk true/.test(own)) out.set(name, [tbl, col]);
      }
    } else if (c === ")" && depth === 0) break;
  }
  return out;
}

// ---- loading ----

const timezoneCache = new WeakMap<object, Promise<Set<string>>>();

/** The names `Prefer: timezone=` accepts; read once per database, on first use (a slow catalog view). */
export function timezoneNames(db: Queryable): Promise<Set<string>> {
  let names = timezoneCache.get(db);
  if (!names) {
    names = db.query<{ name: string }>(`select name from pg_catalog.pg_timezone_names`)
      .then((r) => new Set(r.rows.map((x) => x.name)));
    names.catch(() => timezoneCache.delete(db));
    timezoneCache.set(db, names);
  }
  return names;
}

export async function loadSchemaCache(db: Queryable, schemas: string[]): Promise<SchemaCache> {
  const tables = await rows<{ oid: number; schema: string; name: string; is_view: boolean }>(
    db,
    TABLES_SQL,
    schemas,
  );
  const columns = await rows<
    { oid: number; attnum: number; name: string; type: string; nullable: boolean; default: string | null }
  >(db, COLUMNS_SQL, schemas);
  const constraints = await rows<ConstraintRow>(db, CONSTRAINTS_SQL, schemas);
  const views = await rows<{ oid: number; tree: string }>(db, VIEWS_SQL, schemas);
  const routines = await rows<RoutineRow>(db, ROUTINES_SQL, schemas);
  const byOid = new Map<number, Table>();
  const cache: SchemaCache = {
    schemas,
    tables: new Map(),
    relationships: new Map(),
    routines: new Map(),
  };
  for (const t of tables) {
    const table: Table = {
      schema: t.schema,
      name: t.name,
      oid: t.oid,
      isView: t.is_view,
      columns: [],
      columnMap: new Map(),
      pk: [],
      keys: [],
    };
    byOid.set(t.oid, table);
    cache.tables.set(qualified(t.schema, t.name), table);
  }
  const attnames = new Map<number, Map<number, string>>();
  for (const c of columns) {
    const table = byOid.get(c.oid);
    if (!table) continue;
    const col: Column = { name: c.name, type: c.type, nullable: c.nullable, default: c.default };
    table.columns.push(col);
    table.columnMap.set(c.name, col);
    if (!attnames.has(c.oid)) attnames.set(c.oid, new Map());
    attnames.get(c.oid)!.set(c.attnum, c.name);
  }
  const fks: ConstraintRow[] = [];
  for (const k of constraints) {
    const table = byOid.get(k.rel);
    if (!table) continue;
    if (k.type === "p") table.pk = k.cols;
    if (k.type === "p" || k.type === "u") table.keys.push(k.cols);
    if (k.type === "f" && byOid.has(k.frel)) fks.push(k);
  }
  // Views: each exposed base column maps to the view column that shows it.
  const sources = new Map<number, { table: Table; map: Map<string, string> }[]>();
  for (const t of byOid.values()) {
    sources.set(t.oid, [{ table: t, map: new Map(t.columns.map((c) => [c.name, c.name])) }]);
  }
  const origins = new Map(views.map((v) => [v.oid, viewColumnOrigins(v.tree)]));
  const resolve = (oid: number, attnum: number, seen = 0): [number, string] | null => {
    const name = attnames.get(oid)?.get(attnum);
    if (!name || seen > 16) return null;
    const viewOrigin = origins.get(oid)?.get(name);
    return viewOrigin ? resolve(viewOrigin[0], viewOrigin[1], seen + 1) ?? [oid, name] : [oid, name];
  };
  for (const [viewOid, cols] of origins) {
    const view = byOid.get(viewOid);
    if (!view) continue;
    const perBase = new Map<number, Map<string, string>>();
    for (const [viewCol, [tbl, col]] of cols) {
      const base = resolve(tbl, col);
      if (!base || base[0] === viewOid) continue;
      const m = perBase.get(base[0]) ?? new Map<string, string>();
      if (!m.has(base[1])) m.set(base[1], viewCol);
      perBase.set(base[0], m);
    }
    for (const [baseOid, map] of perBase) {
      const base = byOid.get(baseOid);
      if (!base) continue;
      sources.get(baseOid)!.push({ table: view, map });
      if (view.pk.length === 0 && base.pk.length > 0 && base.pk.every((c) => map.has(c))) {
        view.pk = base.pk.map((c) => map.get(c)!);
      }
      for (const key of base.keys) {
        if (key.every((c) => map.has(c))) view.keys.push(key.map((c) => map.get(c)!));
      }
    }
  }
  buildRelationships(cache, byOid, fks, sources);
  for (const r of routines) {
    const routine = toRoutine(r, byOid);
    const key = qualified(r.schema, r.name);
    cache.routines.set(key, [...(cache.routines.get(key) ?? []), routine]);
    // Computed relationship: f(origin_row) returning rows of a table; ROWS 1 or no SETOF is to-one.
    const origin = r.arg_relids.length === 1 ? byOid.get(r.arg_relids[0]) : undefined;
    if (origin && routine.returnTable) {
      const rel: Relationship = {
        table: origin,
        foreignTable: routine.returnTable,
        cardinality: r.returns_set && r.prorows !== 1 ? "o2m" : "m2o",
        constraint: r.name,
        columns: [],
        computed: { schema: r.schema, name: r.name },
      };
      const k = qualified(origin.schema, origin.name);
      cache.relationships.set(k, [...(cache.relationships.get(k) ?? []), rel]);
    }
  }
  return cache;
}

function buildRelationships(
  cache: SchemaCache,
  byOid: Map<number, Table>,
  fks: ConstraintRow[],
  sources: Map<number, { table: Table; map: Map<string, string> }[]>,
): void {
  const add = (rel: Relationship) => {
    const key = qualified(rel.table.schema, rel.table.name);
    cache.relationships.set(key, [...(cache.relationships.get(key) ?? []), rel]);
  };
  const m2o: Relationship[] = [];
  for (const fk of fks) {
    const child = byOid.get(fk.rel)!;
    const isO2O = child.keys.some((k) => k.length === fk.cols.length && k.every((c) => fk.cols.includes(c)));
    for (const cs of sources.get(fk.rel) ?? []) {
      if (!fk.cols.every((c) => cs.map.has(c))) continue;
      for (const ps of sources.get(fk.frel) ?? []) {
        if (!fk.fcols.every((c) => ps.map.has(c))) continue;
        const pairs = fk.cols.map((c, i) => [cs.map.get(c)!, ps.map.get(fk.fcols[i])!] as [string, string]);
        const forward: Relationship = {
          table: cs.table,
          foreignTable: ps.table,
          cardinality: isO2O ? "o2o" : "m2o",
          constraint: fk.name,
          columns: pairs,
        };
        add(forward);
        if (!isO2O) m2o.push(forward);
        add({
          table: ps.table,
          foreignTable: cs.table,
          cardinality: isO2O ? "o2o" : "o2m",
          constraint: fk.name,
          columns: pairs.map(([a, b]) => [b, a]),
        });
      }
    }
  }
  // Many-to-many: a junction with two foreign keys whose columns are all part of its primary key.
  for (const r1 of m2o) {
    for (const r2 of m2o) {
      if (r1.table !== r2.table || r1.constraint === r2.constraint) continue;
      const j = r1.table;
      const jCols = [...r1.columns.map((c) => c[0]), ...r2.columns.map((c) => c[0])];
      if (j.pk.length === 0 || !jCols.every((c) => j.pk.includes(c))) continue;
      add({
        table: r1.foreignTable,
        foreignTable: r2.foreignTable,
        cardinality: "m2m",
        constraint: r1.constraint,
        columns: [],
        junction: {
          table: j,
          constraint1: r1.constraint,
          constraint2: r2.constraint,
          sourceCols: r1.columns.map(([jc, oc]) => [oc, jc]),
          targetCols: r2.columns.map(([jc, tc]) => [jc, tc]),
        },
      });
    }
  }
}

interface RoutineRow {
  schema: string;
  name: string;
  arg_names: string[];
  arg_modes: string[];
  arg_types: string[];
  nargs: number;
  ndefaults: number;
  returns_set: boolean;
  return_type: string;
  ret_typtype: string;
  ret_relid: number;
  volatility: "i" | "s" | "v";
  prorows: number;
  /** pg_type.typrelid of each input argument: non-zero for a table's row type. */
  arg_relids: number[];
}

function toRoutine(r: RoutineRow, byOid: Map<number, Table>): Routine {
  const params: RoutineParam[] = [];
  let outs = 0;
  r.arg_types.forEach((type, i) => {
    const mode = r.arg_modes[i] ?? "i";
    if (mode === "o" || mode === "t" || mode === "b") outs++;
    if (mode === "i" || mode === "b" || mode === "v") {
      params.push({ name: r.arg_names[i] ?? "", type, hasDefault: false, variadic: mode === "v" });
    }
  });
  params.forEach((p, i) => (p.hasDefault = i >= r.nargs - r.ndefaults));
  const returnTable = r.ret_typtype === "c" ? byOid.get(r.ret_relid) ?? null : null;
  const composite = r.ret_typtype === "c" || (r.return_type === "record" && outs > 0);
  return {
    schema: r.schema,
    name: r.name,
    params,
    returnType: r.return_type,
    returnsSet: r.returns_set,
    returnKind: r.return_type === "void" ? "void" : composite ? "composite" : "scalar",
    returnTable,
    volatility: r.volatility === "i" ? "immutable" : r.volatility === "s" ? "stable" : "volatile",
  };
}
