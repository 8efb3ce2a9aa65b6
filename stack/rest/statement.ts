/**
 * Stage 3, continued: the one statement each request runs (PostgREST's Statements.hs). Every
 * shape returns one row of text columns: total (count), page_total, body, the response.headers
 * and response.status GUCs, a Location for return=headers-only, and how many rows an upsert
 * inserted (PostgREST's pgrst.inserted counter).
 */
import type { CallPlan, MutatePlan, ReadPlan } from "./plan.ts";
import { ident, qident } from "./plan.ts";
import { Params, readSql, type Statement, treeSql } from "./query.ts";
import type { Column } from "./schema-cache.ts";
import type { MediaType } from "./types.ts";

export interface BuiltQuery {
  main: Statement;
  /** EXPLAIN of the count query, for count=planned and count=estimated. */
  explain: Statement | null;
}

const GUCS = `nullif(current_setting('response.headers', true), '') AS response_headers, ` +
  `nullif(current_setting('response.status', true), '') AS response_status`;

export interface BodyShape {
  media: MediaType;
  /** HEAD, return=minimal ...: compute nothing. */
  none: boolean;
  /** Function results: `pgrst_scalar` column, and whether a single row is an object rather than an array. */
  scalar?: boolean;
  single?: boolean;
}

function bodySql(shape: BodyShape): string {
  if (shape.none) return "''";
  const row = shape.scalar ? "_postgrest_t.pgrst_scalar" : "_postgrest_t";
  const strip = (s: string) => (shape.media.stripNulls ? `json_strip_nulls(${s})` : s);
  switch (shape.media.kind) {
    case "csv":
      return `(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text AS k FROM ` +
        `(SELECT row_to_json(hh) AS r FROM pgrst_source AS hh LIMIT 1) s) a) || chr(10) || ` +
        `coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), chr(10)), '')`;
    case "object":
      return `coalesce(${strip(`json_agg(${row})->0`)}, 'null')::text`;
    case "json":
      return shape.single
        ? `coalesce(${strip(`json_agg(${row})->0`)}, 'null')::text`
        : `coalesce(${strip(`json_agg(${row})`)}, '[]')::text`;
  }
}

function countCte(countSql: string | null): [string, string] {
  return countSql === null
    ? ["", "NULL"]
    : [`, pgrst_source_count AS (${countSql})`, "(SELECT pg_catalog.count(*) FROM pgrst_source_count)::text"];
}

function explainOf(root: ReadPlan, withSource: ((p: Params) => string) | null): Statement {
  const p = new Params();
  const count = readSql(root, p, { count: true });
  const source = withSource === null ? "" : `WITH pgrst_source AS (${withSource(p)}) `;
  return { sql: `EXPLAIN (FORMAT JSON) ${source}${count}`, params: p.values };
}

// ---- reads ----

export function readStatement(
  root: ReadPlan,
  shape: BodyShape,
  count: boolean,
  explain: boolean,
): BuiltQuery {
  const p = new Params();
  const source = readSql(root, p, { isRoot: true });
  const [cte, total] = countCte(count ? readSql(root, p, { count: true }) : null);
  const sql = `WITH pgrst_source AS (${source})${cte} SELECT ${total} AS total, ` +
    `pg_catalog.count(_postgrest_t)::text AS page_total, ${bodySql(shape)} AS body, ${GUCS}, ` +
    `NULL::text AS location, NULL::text AS inserted FROM (SELECT * FROM pgrst_source) _postgrest_t`;
  return { main: { sql, params: p.values }, explain: explain ? explainOf(root, null) : null };
}

// ---- writes ----

/** PostgREST's fromJsonBodyF: the body as rows of typed columns, with defaults for missing keys. */
function payloadSource(cols: Column[], isArray: boolean, defaults: boolean, bodyParam: string): string {
  const json = defaults ? "jsonb" : "json";
  const param = `(SELECT ${bodyParam}::${json} AS json_data) pgrst_payload`;
  if (cols.length === 0) {
    return `${param}, LATERAL (SELECT FROM ${
      isArray ? `${json}_array_elements(pgrst_payload.json_data)` : "(VALUES (1))"
    } _) pgrst_body`;
  }
  let source = "pgrst_payload.json_data";
  let defs = "";
  const withDefaults = cols.filter((c) => c.default !== null);
  if (defaults && withDefaults.length > 0) {
    const obj = `jsonb_build_object(${
      withDefaults.map((c) => `'${c.name.replaceAll("'", "''")}', ${c.default}`).join(", ")
    })`;
    defs = isArray
      ? `, LATERAL (SELECT jsonb_agg(${obj} || elem) AS val FROM jsonb_array_elements(pgrst_payload.json_data) elem) pgrst_json_defs`
      : `, LATERAL (SELECT ${obj} || pgrst_payload.json_data AS val) pgrst_json_defs`;
    source = "pgrst_json_defs.val";
  }
  const fn = `${json}_to_record${isArray ? "set" : ""}`;
  const typed = cols.map((c) => `${ident(c.name)} ${c.type}`).join(", ");
  return `${param}${defs}, LATERAL (SELECT ${
    cols.map((c) => ident(c.name)).join(", ")
  } FROM ${fn}(${source}) AS _(${typed})) pgrst_body`;
}

function returningSql(q: string, returning: string[]): string {
  if (returning.length === 0) return "RETURNING 1";
  return "RETURNING " + returning.map((c) => (c === "*" ? `${q}.*` : `${q}.${ident(c)}`)).join(", ");
}

const INSERTED = "coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0)";

/** The write itself. The body becomes a parameter only where it is read: Postgres must infer its type. */
function mutationSql(m: MutatePlan, p: Params, bodyText: string): string {
  const q = qident(m.table.schema, m.table.name);
  // Rendered only where used: a parameter that appears in no statement text breaks the Bind.
  const whereSql = () => m.where.map((t) => treeSql(q, t, p)).join(" AND ");
  const body = () => payloadSource(m.columns, m.payloadIsArray, m.applyDefaults, p.add(bodyText));
  switch (m.kind) {
    case "insert": {
      const cols = m.columns.map((c) => ident(c.name));
      const merge = m.onConflict?.resolution === "merge-duplicates";
      let sql = `INSERT INTO ${q}${cols.length ? `(${cols.join(", ")})` : ""} SELECT ${
        cols.map((c) => `pgrst_body.${c}`).join(", ")
      } FROM ${body()}`;
      if (merge) sql += ` WHERE set_config('pgrst.inserted', (${INSERTED} + 1)::text, true) <> '0'`;
      if (m.onConflict) {
        sql += ` ON CONFLICT(${m.onConflict.columns.map(ident).join(", ")}) `;
        sql += merge && cols.length > 0
          ? `DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(", ")} ` +
            `WHERE set_config('pgrst.inserted', (${INSERTED} - 1)::text, true) <> '-1'`
          : "DO NOTHING";
      }
      return `${sql} ${returningSql(q, m.returning)}`;
    }
    case "update": {
      if (m.columns.length === 0) {
        const cols = m.returning.length === 0
          ? "1"
          : m.returning.map((c) => (c === "*" ? `${q}.*` : `${q}.${ident(c)}`)).join(", ");
        return `SELECT ${cols} FROM ${q} WHERE false`;
      }
      if (m.range) {
        const set = m.columns.map((c) =>
          `${ident(c.name)} = (SELECT ${ident(c.name)} FROM pgrst_update_body)`
        );
        const bodySrc = body();
        return `WITH pgrst_update_body AS (SELECT ${
          m.columns.map((c) => `pgrst_body.${ident(c.name)}`).join(", ")
        } FROM ${bodySrc} LIMIT 1), ` +
          `pgrst_affected_rows AS (${affectedRows(m, q, whereSql(), p)}) UPDATE ${q} SET ${set.join(", ")} ` +
          `FROM pgrst_affected_rows WHERE ${q}.ctid = pgrst_affected_rows.ctid ${
            returningSql(q, m.returning)
          }`;
      }
      const set = m.columns.map((c) => `${ident(c.name)} = pgrst_body.${ident(c.name)}`);
      return `UPDATE ${q} SET ${set.join(", ")} FROM ${body()} WHERE ${whereSql()} ${
        returningSql(q, m.returning)
      }`;
    }
    case "delete":
      if (m.range) {
        return `WITH pgrst_affected_rows AS (${
          affectedRows(m, q, whereSql(), p)
        }) DELETE FROM ${q} USING pgrst_affected_rows ` +
          `WHERE ${q}.ctid = pgrst_affected_rows.ctid ${returningSql(q, m.returning)}`;
      }
      return `DELETE FROM ${q} WHERE ${whereSql()} ${returningSql(q, m.returning)}`;
  }
}

function affectedRows(m: MutatePlan, q: string, where: string, p: Params): string {
  const order = m.order.map((o) =>
    `${q}.${ident(o.field.name)}${o.direction ? ` ${o.direction.toUpperCase()}` : ""}${
      o.nulls ? ` NULLS ${o.nulls.toUpperCase()}` : ""
    }`
  );
  const limit = m.range!.limit === null ? "ALL" : p.add(m.range!.limit.toString());
  return `SELECT ${q}.ctid FROM ${q} WHERE ${where}${order.length ? ` ORDER BY ${order.join(", ")}` : ""} ` +
    `LIMIT ${limit} OFFSET ${p.add(m.range!.offset.toString())}`;
}

export function mutateStatement(m: MutatePlan, read: ReadPlan, shape: BodyShape, body: string): BuiltQuery {
  const p = new Params();
  const source = mutationSql(m, p, body);
  const select = shape.none ? "SELECT * FROM pgrst_source" : readSql(read, p, { isRoot: true });
  const location = m.kind === "insert" && m.returning.length > 0 && shape.none && m.returning[0] !== "*"
    ? `CASE WHEN pg_catalog.count(_postgrest_t) = 1 THEN (SELECT row_to_json(_)::text FROM (SELECT ${
      m.returning.map(ident).join(", ")
    } FROM pgrst_source LIMIT 1) _) END`
    : "NULL::text";
  const inserted = m.onConflict?.resolution === "merge-duplicates"
    ? "current_setting('pgrst.inserted', true)"
    : "NULL::text";
  const sql = `WITH pgrst_source AS (${source}) SELECT NULL::text AS total, ` +
    `pg_catalog.count(_postgrest_t)::text AS page_total, ${bodySql(shape)} AS body, ${GUCS}, ` +
    `${location} AS location, ${inserted} AS inserted FROM (${select}) _postgrest_t`;
  return { main: { sql, params: p.values }, explain: null };
}

// ---- functions ----

function callSql(c: CallPlan, p: Params, body: string): string {
  const r = c.routine;
  const fn = qident(r.schema, r.name);
  const composite = r.returnKind === "composite";
  const call = (args: string) =>
    composite ? `${fn}(${args}) pgrst_call` : `(SELECT ${fn}(${args}) pgrst_scalar) pgrst_call`;
  const cols = composite ? "pgrst_call.*" : "pgrst_call.pgrst_scalar";
  switch (c.args) {
    case "none":
      return `SELECT ${cols} FROM ${call("")}`;
    case "body":
      return `SELECT ${cols} FROM ${call(`${p.add(body)}::${r.params[0].type}`)}`;
    case "named": {
      const isArray = body.trimStart().startsWith("[");
      const columns: Column[] = c.params.map((prm) => ({
        name: prm.name,
        type: prm.type,
        nullable: true,
        default: null,
      }));
      const src = payloadSource(columns, isArray, false, p.add(body));
      const args = c.params.map((prm) =>
        `${prm.variadic ? "VARIADIC " : ""}${ident(prm.name)} := pgrst_body.${ident(prm.name)}`
      );
      return `SELECT ${cols} FROM ${src}, LATERAL ${call(args.join(", "))}`;
    }
  }
}

export function callStatement(
  c: CallPlan,
  read: ReadPlan,
  shape: BodyShape,
  body: string,
  count: boolean,
  explain: boolean,
): BuiltQuery {
  const p = new Params();
  const source = callSql(c, p, body);
  const scalar = c.routine.returnKind !== "composite";
  const select = readSql(read, p, {
    isRoot: true,
    selectOverride: scalar ? [`${read.ref}.pgrst_scalar`] : undefined,
  });
  const [cte, total] = countCte(count ? readSql(read, p, { count: true }) : null);
  const sql = `WITH pgrst_source AS (${source})${cte} SELECT ${total} AS total, ` +
    `pg_catalog.count(_postgrest_t)::text AS page_total, ${
      bodySql({ ...shape, scalar })
    } AS body, ${GUCS}, ` +
    `NULL::text AS location, NULL::text AS inserted FROM (${select}) _postgrest_t`;
  return {
    main: { sql, params: p.values },
    explain: explain ? explainOf(read, (ep) => callSql(c, ep, body)) : null,
  };
}
