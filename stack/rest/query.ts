/**
 * Stage 3: plans become parameterised SQL, shaped like PostgREST's QueryBuilder.hs and
 * SqlFragment.hs: a `pgrst_source` CTE (the read, the write or the call), lateral joins with
 * json_agg/row_to_json for embeds, and one result row (total, page_total, body, response GUCs).
 * Identifiers are always quoted; every value from the request is a bound parameter whose type
 * Postgres infers, as PostgREST's "unknown" encoder does.
 */
import {
  type EmbedPlan,
  ident,
  liftsAggregates,
  type PlanOrder,
  type PlanTree,
  qident,
  type ReadPlan,
} from "./plan.ts";
import type { Field, Operation, RangeSpec } from "./types.ts";

export interface Statement {
  sql: string;
  params: (string | null)[];
}

export class Params {
  readonly values: (string | null)[] = [];
  add(v: string | null): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

// ---- fragments ----

function fieldSql(ref: string, f: Pick<Field, "name" | "path">, p: Params): string {
  let sql = f.name === "*" ? `${ref}.*` : `${ref}.${ident(f.name)}`;
  for (const step of f.path) {
    sql += step.index ? `${step.arrow}${p.add(step.key)}::int` : `${step.arrow}${p.add(step.key)}`;
  }
  return sql;
}

/** PostgREST builds `{"a","b"}` itself so that Postgres infers the array type from the column. */
function arrayLiteral(values: string[]): string {
  return `{${
    values.map((v) => `"${v.replace(/\0.*$/s, "").replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(
      ",",
    )
  }}`;
}

const SQL_OPS: Record<string, string> = {
  eq: "=",
  gte: ">=",
  gt: ">",
  lte: "<=",
  lt: "<",
  like: "LIKE",
  ilike: "ILIKE",
  match: "~",
  imatch: "~*",
  neq: "<>",
  cs: "@>",
  cd: "<@",
  ov: "&&",
  sl: "<<",
  sr: ">>",
  nxr: "&<",
  nxl: "&>",
  adj: "-|-",
};

const FTS_FUNCS: Record<string, string> = {
  fts: "to_tsquery",
  plfts: "plainto_tsquery",
  phfts: "phraseto_tsquery",
  wfts: "websearch_to_tsquery",
};

function operationSql(lhs: string, op: Operation, tsvector: boolean, p: Params): string {
  switch (op.op) {
    case "in":
      return op.values.length === 1 && op.values[0] === ""
        ? `${lhs} = ANY('{}')`
        : `${lhs} = ANY(${p.add(arrayLiteral(op.values))})`;
    case "is":
      return `${lhs} IS ${op.value === "not_null" ? "NOT NULL" : op.value.toUpperCase()}`;
    case "isdistinct":
      return `${lhs} IS DISTINCT FROM ${p.add(op.value)}`;
    case "fts":
    case "plfts":
    case "phfts":
    case "wfts": {
      const lang = op.language !== undefined ? `${p.add(op.language)}, ` : "";
      const target = tsvector ? lhs : `to_tsvector(${lang}${lhs})`;
      return `${target} @@ ${FTS_FUNCS[op.op]}(${lang}${p.add(op.value)})`;
    }
    default: {
      const value = op.op === "like" || op.op === "ilike" ? op.value.replaceAll("*", "%") : op.value;
      const quant = "quantifier" in op && op.quantifier;
      return quant
        ? `${lhs} ${SQL_OPS[op.op]} ${quant.toUpperCase()}(${p.add(value)})`
        : `${lhs} ${SQL_OPS[op.op]} ${p.add(value)}`;
    }
  }
}

function nullEmbedSql(e: EmbedPlan, isNull: boolean): string {
  const agg = ident(e.aggAlias);
  if (e.toOne) return `row_to_json(${agg}.*) IS ${isNull ? "" : "NOT "}NULL`;
  if (e.spread) return `${agg}.${agg} ${isNull ? "=" : ">"} 0`;
  return `${agg}.${agg} IS ${isNull ? "" : "NOT "}NULL`;
}

export function treeSql(ref: string, t: PlanTree, p: Params): string {
  switch (t.kind) {
    case "expr":
      return `${t.negated ? "NOT " : ""}(${
        t.children.map((c) => treeSql(ref, c, p)).join(` ${t.op.toUpperCase()} `)
      })`;
    case "null-embed":
      return nullEmbedSql(t.embed, t.isNull);
    case "filter": {
      const sql = operationSql(fieldSql(ref, t.field, p), t.expr.operation, t.tsvector, p);
      return t.expr.negated ? `NOT (${sql})` : sql;
    }
  }
}

function orderSql(ref: string, order: PlanOrder[], p: Params): string {
  if (order.length === 0) return "";
  return " ORDER BY " + order.map((o) => {
    const target = o.embed ? ident(o.embed.aggAlias) : ref;
    const dir = o.direction ? ` ${o.direction.toUpperCase()}` : "";
    const nulls = o.nulls ? ` NULLS ${o.nulls.toUpperCase()}` : "";
    return `${fieldSql(target, o.field, p)}${dir}${nulls}`;
  }).join(", ");
}

function rangeSql(range: RangeSpec | null, p: Params): string {
  if (!range || (range.limit === null && range.offset === 0n)) return "";
  const limit = range.limit === null ? "ALL" : p.add(range.limit.toString());
  return ` LIMIT ${limit} OFFSET ${p.add(range.offset.toString())}`;
}

/**
 * A key a level contributes to its parent's row (what a spread lifts). `json` marks embeds, which
 * are grouped as jsonb (json has no equality); `aggregate` marks a to-one spread's aggregate, whose
 * input the spread selects under `name` and whose function the level above applies.
 */
interface SpreadOutput {
  name: string;
  json: boolean;
  aggregate?: string;
  aggCast?: string;
}

function spreadOutputs(plan: ReadPlan): SpreadOutput[] {
  const outs: SpreadOutput[] = [];
  for (const s of plan.select) {
    if (s.kind === "star") {
      outs.push(...(plan.table?.columns.map((c) => ({ name: c.name, json: false })) ?? []));
    } else outs.push({ name: s.output, json: false, aggregate: s.aggregate, aggCast: s.aggCast });
  }
  for (const e of plan.embeds) {
    if (e.hidden) continue;
    if (e.spread && e.toOne) outs.push(...spreadOutputs(e.plan));
    else if (e.spread) outs.push(...spreadOutputs(e.plan).map((o) => ({ name: o.name, json: true })));
    else outs.push({ name: e.alias ?? e.name, json: true });
  }
  return outs;
}

function joinConditions(e: EmbedPlan, parentRef: string): string[] {
  if (e.rel.computed) return [];
  const child = e.plan.ref;
  const j = e.rel.junction;
  if (j) {
    const jt = ident(e.junctionAlias!);
    return [
      ...j.targetCols.map(([jc, tc]) => `${jt}.${ident(jc)} = ${child}.${ident(tc)}`),
      ...j.sourceCols.map(([oc, jc]) => `${jt}.${ident(jc)} = ${parentRef}.${ident(oc)}`),
    ];
  }
  return e.rel.columns.map(([origin, target]) => `${child}.${ident(target)} = ${parentRef}.${ident(origin)}`);
}

interface ReadOpts {
  /** SELECT 1 without order and range, keeping only the joins that filter rows. */
  count?: boolean;
  /**
   * A to-one spread level: its aggregates (and those of its own to-one spreads) select their input
   * and are applied by the level above (Plan.hs hoistSpreadAggFunctions), so it never groups.
   */
  hoist?: boolean;
  joinConds?: string[];
  extraFrom?: string;
  isRoot?: boolean;
  /** Replaces the select list (function results that are scalars). */
  selectOverride?: string[];
}

export function readSql(plan: ReadPlan, p: Params, opts: ReadOpts = {}): string {
  const selects: string[] = [];
  const joins: string[] = [];
  // With aggregates (`db-aggregates-enabled`), every other output is grouped on, as PostgREST's
  // QueryBuilder does (SqlFragment.hs groupF): `*` is expanded into the columns, a to-one spread's
  // columns are grouped as they are and embeds as jsonb. A level also aggregates the aggregates its
  // to-one spreads hoist to it.
  const aggregated = !opts.count && !opts.hoist && (
    plan.select.some((s) => s.kind === "field" && s.aggregate) ||
    plan.embeds.some((e) => e.spread && e.toOne && !e.hidden && liftsAggregates(e.plan))
  );
  const grouped: number[] = [];
  const group = (sql: string) => {
    selects.push(sql);
    if (aggregated) grouped.push(selects.length);
  };
  const aggregate = (fn: string, arg: string, cast: string | undefined, output: string) => {
    const call = `pg_catalog.${fn}(${arg})`;
    selects.push(`${cast ? `CAST(${call} AS ${cast})` : call} AS ${ident(output)}`);
  };
  for (const s of plan.select) {
    if (s.kind === "star") {
      if (aggregated && plan.table) {
        for (const c of plan.table.columns) group(`${plan.ref}.${ident(c.name)}`);
      } else group(`${plan.ref}.*`);
    } else if (s.aggregate) {
      const field = s.name === "*" ? "*" : fieldSql(plan.ref, s, p);
      const arg = s.cast && field !== "*" ? `CAST(${field} AS ${s.cast})` : field;
      // Hoisted: the input goes up under the output's name; count() counts the spread's rows,
      // which a constant marks (NULL where the LEFT JOIN found none), as PostgREST's COUNT(alias.*).
      if (opts.hoist) selects.push(`${arg === "*" ? "TRUE" : arg} AS ${ident(s.output)}`);
      else aggregate(s.aggregate, arg, s.aggCast, s.output);
    } else {
      const expr = fieldSql(plan.ref, s, p);
      group(`${s.cast ? `CAST(${expr} AS ${s.cast})` : expr} AS ${ident(s.output)}`);
    }
  }
  const jsonOut = aggregated ? "::jsonb" : "";
  for (const e of plan.embeds) {
    if (opts.count && !e.filtering) continue;
    const agg = ident(e.aggAlias);
    const child = readSql(e.plan, p, {
      joinConds: joinConditions(e, plan.ref),
      extraFrom: e.rel.junction
        ? `${qident(e.rel.junction.table.schema, e.rel.junction.table.name)} AS ${ident(e.junctionAlias!)}`
        : undefined,
      hoist: e.spread && e.toOne,
    });
    const jt = e.joinType === "inner" ? "INNER" : "LEFT";
    const outs = e.spread ? spreadOutputs(e.plan) : [];
    if (e.toOne) {
      joins.push(`${jt} JOIN LATERAL (${child}) AS ${agg} ON TRUE`);
      if (!e.hidden && !opts.count) {
        if (e.spread) {
          for (const o of outs) {
            const col = `${agg}.${ident(o.name)}`;
            if (o.aggregate && !opts.hoist) aggregate(o.aggregate, col, o.aggCast, o.name);
            else if (o.aggregate) selects.push(col);
            else group(o.json ? `${col}${jsonOut}` : col);
          }
        } else group(`row_to_json(${agg}.*)${jsonOut} AS ${ident(e.alias ?? e.name)}`);
      }
    } else if (e.spread) {
      const cols = outs.map((o) => `COALESCE(json_agg(${agg}.${ident(o.name)}), '[]') AS ${ident(o.name)}`);
      joins.push(
        `${jt} JOIN LATERAL (SELECT pg_catalog.count(*) AS ${agg}${
          cols.map((c) => `, ${c}`).join("")
        } FROM (${child}) AS ${agg}) AS ${agg} ON ${e.joinType === "inner" ? `${agg}.${agg} > 0` : "TRUE"}`,
      );
      if (!e.hidden && !opts.count) outs.forEach((o) => group(`${agg}.${ident(o.name)}${jsonOut}`));
    } else {
      joins.push(
        `${jt} JOIN LATERAL (SELECT json_agg(${agg}) AS ${agg} FROM (${child}) AS ${agg}) AS ${agg} ON ${
          e.joinType === "inner" ? `${agg}.${agg} IS NOT NULL` : "TRUE"
        }`,
      );
      if (!e.hidden && !opts.count) {
        group(`COALESCE(${agg}.${agg}, '[]')${jsonOut} AS ${ident(e.alias ?? e.name)}`);
      }
    }
  }
  let selectList = opts.count ? "1" : (opts.selectOverride ?? selects).join(", ");
  if (!opts.count && opts.isRoot && plan.select.length === 0 && plan.embeds.every((e) => e.hidden)) {
    selectList = `${plan.ref}.*`;
  }
  const where = [...plan.where.map((t) => treeSql(plan.ref, t, p)), ...(opts.joinConds ?? [])];
  return `SELECT ${selectList} FROM ${plan.fromSql}${opts.extraFrom ? `, ${opts.extraFrom}` : ""}${
    joins.length ? " " + joins.join(" ") : ""
  }${where.length ? ` WHERE ${where.join(" AND ")}` : ""}${
    aggregated && grouped.length > 0 && !opts.selectOverride ? ` GROUP BY ${grouped.join(", ")}` : ""
  }${opts.count ? "" : orderSql(plan.ref, plan.order, p) + rangeSql(plan.range, p)}`;
}
