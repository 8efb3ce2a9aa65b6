/**
 * Stage 2a: planning reads (PostgREST's Plan.hs, ReadPlan.hs). A read is a tree of ReadPlans, one
 * per embedded resource, each with its relationship, filters, order and range; the filters,
 * logic trees, orders and ranges of the query string are attached to the level they name.
 */
import { closest, Errors, fromPgError } from "./errors.ts";
import { findRelationship } from "./relationships.ts";
import { qualified, type Relationship, type SchemaCache, type Table } from "./schema-cache.ts";
import type {
  ApiRequest,
  EmbedPath,
  Field,
  JoinType,
  JsonStep,
  LogicTree,
  OpExpr,
  OrderTerm,
  RangeSpec,
  SelectItem,
} from "./types.ts";

export interface PlanField {
  name: string;
  path: JsonStep[];
  cast?: string;
  /** The key in the output object. */
  output: string;
}

export type PlanSelect =
  | { kind: "star" }
  | ({ kind: "field"; aggregate?: string; aggCast?: string } & PlanField);

export type PlanFilter =
  | { kind: "filter"; field: Field; expr: OpExpr; tsvector: boolean }
  | { kind: "null-embed"; embed: EmbedPlan; isNull: boolean };

export type PlanTree =
  | { kind: "expr"; negated: boolean; op: "and" | "or"; children: PlanTree[] }
  | PlanFilter;

export interface PlanOrder extends Omit<OrderTerm, "relation"> {
  embed?: EmbedPlan;
}

export interface ReadPlan {
  /** The relation read; null for a function result that is not a table's row type. */
  table: Table | null;
  /** The FROM item, e.g. `"public"."films"` or `"pgrst_source" AS "films"`. */
  fromSql: string;
  /** How columns are qualified, e.g. `"public"."films"` or `"films_1"`. */
  ref: string;
  /** The name errors use for this level. */
  name: string;
  select: PlanSelect[];
  where: PlanTree[];
  order: PlanOrder[];
  range: RangeSpec | null;
  embeds: EmbedPlan[];
}

export interface EmbedPlan {
  /** The name as written (table, constraint or column). */
  name: string;
  alias?: string;
  rel: Relationship;
  joinType: JoinType;
  spread: boolean;
  toOne: boolean;
  /** `rel()`: joined (for !inner or null filters) but not output. */
  hidden: boolean;
  /** Referenced by a filter of its parent, so the count query must keep its join. */
  filtering: boolean;
  /** Alias of the lateral join. */
  aggAlias: string;
  junctionAlias?: string;
  plan: ReadPlan;
}

export const ident = (name: string) => `"${name.replace(/\0.*$/s, "").replaceAll('"', '""')}"`;
export const qident = (schema: string, name: string) => `${ident(schema)}.${ident(name)}`;

export function findTable(cache: SchemaCache, schema: string, name: string): Table {
  const table = cache.tables.get(qualified(schema, name));
  if (table) return table;
  const names = [...cache.tables.values()].filter((t) => t.schema === schema).map((t) => t.name);
  throw Errors.tableNotFound(schema, name, closest(name, names, 0.75));
}

// ---- the read tree ----

export class Builder {
  private counter = 0;
  private depth = 0;
  private aliases = new Set<string>();
  constructor(readonly cache: SchemaCache, readonly api: ApiRequest, readonly aggregates = false) {}

  /** The alias of the top level, which embedded levels must not shadow. */
  root(name: string): string {
    this.aliases.add(name);
    return name;
  }

  node(table: Table | null, fromSql: string, ref: string, name: string, items: SelectItem[]): ReadPlan {
    const plan: ReadPlan = {
      table,
      fromSql,
      ref,
      name,
      select: [],
      where: [],
      order: [],
      range: null,
      embeds: [],
    };
    for (const item of items) {
      if (item.kind === "star") plan.select.push({ kind: "star" });
      else if (item.kind === "field") {
        if (item.aggregate && !this.aggregates) throw Errors.aggregatesNotAllowed();
        const last = item.field.path[item.field.path.length - 1];
        // PostgREST names an aggregate after its function (`sum`, `count`) unless aliased.
        const output = item.alias ?? item.aggregate ?? (last && !last.index ? last.key : item.field.name);
        plan.select.push({
          kind: "field",
          name: item.field.name,
          path: item.field.path,
          cast: item.cast,
          output,
          aggregate: item.aggregate,
          aggCast: item.aggCast,
        });
      } else plan.embeds.push(this.embed(plan, item));
    }
    // PostgREST names each embed's lateral join `<parent>_<alias or name>_<depth>` (Plan.hs
    // addRels), so two embeds of one name under one parent make Postgres refuse the query.
    const joins = new Set<string>();
    for (const e of plan.embeds) {
      const join = `${e.rel.table.name}_${e.alias ?? e.name}_${this.depth + 1}`;
      if (joins.has(join)) {
        throw fromPgError({ code: "42712", message: `table name "${join}" specified more than once` }, true);
      }
      joins.add(join);
    }
    return plan;
  }

  embed(parent: ReadPlan, item: Extract<SelectItem, { kind: "embed" }>): EmbedPlan {
    const rel = findRelationship(
      this.cache,
      this.api.schema,
      parent.table,
      parent.name,
      item.name,
      item.hint,
    );
    const n = ++this.counter;
    const target = rel.foreignTable;
    let alias = `${target.name}_${n}`;
    while (this.aliases.has(alias)) alias += "_";
    this.aliases.add(alias);
    // A computed relationship calls its function with the parent's row, as PostgREST does.
    const from = rel.computed
      ? `${qident(rel.computed.schema, rel.computed.name)}(${parent.ref}::${
        qident(rel.table.schema, rel.table.name)
      })`
      : qident(target.schema, target.name);
    this.depth++;
    const plan = this.node(target, `${from} AS ${ident(alias)}`, ident(alias), target.name, item.children);
    this.depth--;
    const toOne = rel.cardinality === "m2o" || rel.cardinality === "o2o";
    // PostgREST hoists a to-one spread's aggregates to the level above (liftsAggregates) but
    // refuses them in a to-many spread (Plan.hs addToManyOrderSelects).
    if (item.spread && !toOne && liftsAggregates(plan)) {
      throw Errors.notImplemented("Aggregates are not implemented for one-to-many or many-to-many spreads.");
    }
    return {
      name: item.name,
      alias: item.alias,
      rel,
      joinType: item.joinType ?? "left",
      spread: item.spread,
      toOne,
      hidden: item.children.length === 0,
      filtering: item.joinType === "inner",
      aggAlias: `pgrst_${n}`,
      junctionAlias: rel.junction ? `pgrst_jt_${n}` : undefined,
      plan,
    };
  }
}

/**
 * Whether a level has aggregates that, were it a to-one spread, would be applied by the level
 * above: its own, and those its to-one spreads lift (Plan.hs hoistSpreadAggFunctions hoists them
 * through chains of to-one spreads up to the root or the nearest JSON-embedded level).
 */
export function liftsAggregates(plan: ReadPlan): boolean {
  return plan.select.some((s) => s.kind === "field" && s.aggregate !== undefined) ||
    plan.embeds.some((e) => e.spread && e.toOne && liftsAggregates(e.plan));
}

/** PostgREST's findNode: an embed is addressed by its name or its alias. */
export function childOf(plan: ReadPlan, name: string): EmbedPlan | undefined {
  return plan.embeds.find((e) => e.name === name || e.alias === name);
}

function nodeAt(root: ReadPlan, path: EmbedPath): ReadPlan {
  let node = root;
  for (const name of path) {
    const child = childOf(node, name);
    if (!child) throw Errors.notEmbedded(name);
    node = child.plan;
  }
  return node;
}

function isNullOp(expr: OpExpr): boolean {
  return expr.operation.op === "is" && expr.operation.value === "null";
}

export function planFilter(node: ReadPlan, field: Field, expr: OpExpr): PlanFilter {
  const embed = field.path.length === 0 ? childOf(node, field.name) : undefined;
  if (embed) {
    if (!isNullOp(expr)) throw Errors.unacceptableFilter(field.name);
    embed.filtering = true;
    return { kind: "null-embed", embed, isNull: !expr.negated };
  }
  const column = field.path.length === 0 ? node.table?.columnMap.get(field.name) : undefined;
  return { kind: "filter", field, expr, tsvector: column?.type === "tsvector" };
}

export function planTree(node: ReadPlan, tree: LogicTree): PlanTree {
  return tree.kind === "filter" ? planFilter(node, tree.filter.field, tree.filter.expr) : {
    kind: "expr",
    negated: tree.negated,
    op: tree.op,
    children: tree.children.map((c) => planTree(node, c)),
  };
}

export function planOrder(node: ReadPlan, terms: OrderTerm[]): PlanOrder[] {
  return terms.map(({ relation, ...term }) => {
    if (relation === undefined) return term;
    const embed = childOf(node, relation);
    if (!embed) throw Errors.notEmbedded(relation);
    if (!embed.toOne) throw Errors.relatedOrderNotToOne(node.name, relation);
    return { ...term, embed };
  });
}

/** Attaches filters, logic trees, orders and ranges to the levels they name. */
export function attachParams(
  root: ReadPlan,
  api: ApiRequest,
  opts: { rootFilters: boolean; maxRows: number | null },
) {
  for (const { path, filter } of api.filters) {
    if (path.length === 0 && !opts.rootFilters) continue;
    const node = nodeAt(root, path);
    node.where.push(planFilter(node, filter.field, filter.expr));
  }
  for (const { path, tree } of api.logic) {
    if (path.length === 0 && !opts.rootFilters) continue;
    const node = nodeAt(root, path);
    node.where.push(planTree(node, tree));
  }
  for (const { path, terms } of api.order) {
    const node = nodeAt(root, path);
    node.order.push(...planOrder(node, terms));
  }
  for (const [key, range] of api.ranges) nodeAt(root, key === "" ? [] : key.split(".")).range = range;
  if (opts.maxRows !== null) {
    const max = BigInt(opts.maxRows);
    const r = root.range ?? { offset: 0n, limit: null };
    root.range = { offset: r.offset, limit: r.limit === null || r.limit > max ? max : r.limit };
  }
}
