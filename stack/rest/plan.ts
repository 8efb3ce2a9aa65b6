/**
 * Stage 2: the ApiRequest planned against the schema cache (PostgREST's Plan.hs). Reads are a
 * tree of ReadPlans (plan-read.ts); writes and calls add a MutatePlan or CallPlan and read their
 * result through a ReadPlan over the `pgrst_source` CTE. Unknown tables, functions, columns and
 * relationships fail here, before any SQL is built.
 */
import { closest, Errors, fromPgError, PgrstError } from "./errors.ts";
import {
  attachParams,
  Builder,
  findTable,
  ident,
  planFilter,
  type PlanOrder,
  planOrder,
  type PlanTree,
  planTree,
  qident,
  type ReadPlan,
} from "./plan-read.ts";
import { type Column, qualified, type Routine, type SchemaCache, type Table } from "./schema-cache.ts";
import type { ApiRequest, RangeSpec } from "./types.ts";

export {
  type EmbedPlan,
  ident,
  liftsAggregates,
  type PlanField,
  type PlanFilter,
  type PlanOrder,
  type PlanSelect,
  type PlanTree,
  qident,
  type ReadPlan,
} from "./plan-read.ts";

export interface MutatePlan {
  kind: "insert" | "update" | "delete";
  /** PUT: an insert of one row that updates it when its primary key exists. */
  put: boolean;
  table: Table;
  columns: Column[];
  payloadIsArray: boolean;
  where: PlanTree[];
  order: PlanOrder[];
  range: RangeSpec | null;
  onConflict: { columns: string[]; resolution: "merge-duplicates" | "ignore-duplicates" } | null;
  applyDefaults: boolean;
  /** Columns the RETURNING clause needs; ["*"] for all; [] for RETURNING 1. */
  returning: string[];
}

export interface CallPlan {
  routine: Routine;
  /** How arguments are passed: named from a JSON object/array, the whole body as one json param, or none. */
  args: "named" | "body" | "none";
  params: Routine["params"];
}

export type Plan =
  | { kind: "read"; read: ReadPlan }
  | { kind: "mutate"; mutate: MutatePlan; read: ReadPlan }
  | { kind: "call"; call: CallPlan; read: ReadPlan }
  | { kind: "root" };

// ---- entry points ----

export interface PlanOptions {
  maxRows: number;
  /** `db-aggregates-enabled` (config.ts); refused with PGRST123 when off. */
  aggregates?: boolean;
}

export function plan(cache: SchemaCache, api: ApiRequest, opts: PlanOptions): Plan {
  const b = new Builder(cache, api, opts.aggregates ?? false);
  const action = api.action;
  switch (action.kind) {
    case "root":
      return { kind: "root" };
    case "read": {
      const table = findTable(cache, api.schema, api.target);
      const alias = ident(b.root(table.name));
      const read = b.node(
        table,
        `${qident(table.schema, table.name)} AS ${alias}`,
        alias,
        table.name,
        api.select,
      );
      attachParams(read, api, { rootFilters: true, maxRows: opts.maxRows });
      return { kind: "read", read };
    }
    case "create":
    case "update":
    case "delete":
    case "upsert-put":
      return planMutation(b, cache, api);
    case "call":
      return planCall(b, cache, api, opts);
  }
}

/**
 * PUT upserts the one row its URL names: the filters must be `eq` on exactly the primary key
 * (405 PGRST105), the body must carry the same key values (400 PGRST115), no limit or offset.
 */
function checkPut(api: ApiRequest, table: Table): void {
  const range = api.ranges.get("");
  if (range && (range.limit !== null || range.offset !== 0n)) {
    throw new PgrstError(400, "PGRST114", "limit/offset querystring parameters are not allowed for PUT");
  }
  const eqs = new Map<string, string>();
  const simple = api.logic.length === 0 && api.filters.every(({ path, filter }) => {
    const op = filter.expr.operation;
    if (
      path.length > 0 || filter.field.path.length > 0 || filter.expr.negated || op.op !== "eq" ||
      "quantifier" in op && op.quantifier
    ) {
      return false;
    }
    eqs.set(filter.field.name, op.value);
    return true;
  });
  if (
    !simple || table.pk.length === 0 || eqs.size !== table.pk.length || !table.pk.every((c) => eqs.has(c))
  ) {
    throw new PgrstError(
      405,
      "PGRST105",
      "Filters must include all and only primary key columns with 'eq' operators",
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(api.payload?.raw ?? "null");
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  const row = Array.isArray(body) && body.length === 1 ? body[0] : body;
  const matches = row !== null && typeof row === "object" && !Array.isArray(row) &&
    table.pk.every((c) => {
      const v = (row as Record<string, unknown>)[c];
      return v !== undefined && v !== null && (typeof v === "string" ? v : JSON.stringify(v)) === eqs.get(c);
    });
  if (!matches) {
    throw new PgrstError(400, "PGRST115", "Payload values do not match URL in primary key column(s)");
  }
}

function planMutation(b: Builder, cache: SchemaCache, api: ApiRequest): Plan {
  const table = findTable(cache, api.schema, api.target);
  const put = api.action.kind === "upsert-put";
  if (put) checkPut(api, table);
  const kind: MutatePlan["kind"] = api.action.kind === "create" || put
    ? "insert"
    : api.action.kind === "update"
    ? "update"
    : "delete";
  const read = b.node(
    table,
    `"pgrst_source" AS ${ident(b.root(table.name))}`,
    ident(table.name),
    table.name,
    api.select,
  );
  attachParams(read, api, { rootFilters: false, maxRows: null });
  const columns = (kind === "delete" ? [] : api.payload?.keys ?? []).map((k) => {
    const col = table.columnMap.get(k);
    if (!col) throw Errors.columnNotFound(table.name, k);
    return col;
  });
  const q = qident(table.schema, table.name);
  // The root filters of UPDATE/DELETE select rows of the table itself, not of the returned rows.
  const mutated: ReadPlan = { ...read, ref: q, where: [], order: [], embeds: read.embeds };
  if (kind !== "insert") {
    for (const { path, filter } of api.filters) {
      if (path.length === 0) mutated.where.push(planFilter(mutated, filter.field, filter.expr));
    }
    for (const { path, tree } of api.logic) {
      if (path.length === 0) mutated.where.push(planTree(mutated, tree));
    }
    if (mutated.where.some(hasEmbedFilter)) throw Errors.unacceptableFilter(api.target);
    if (mutated.where.length === 0) {
      // Hosted Supabase loads pg-safeupdate for PostgREST's role: no unfiltered UPDATE/DELETE.
      throw fromPgError({ code: "21000", message: `${kind.toUpperCase()} requires a WHERE clause` }, true);
    }
  }
  let onConflict: MutatePlan["onConflict"] = null;
  if (put) onConflict = { columns: table.pk, resolution: "merge-duplicates" };
  else if (kind === "insert" && api.prefs.resolution) {
    const cols = api.onConflict ?? table.pk;
    if (cols.length > 0) onConflict = { columns: cols, resolution: api.prefs.resolution };
  }
  const rep = api.prefs.representation;
  const returning = rep === "representation"
    ? returnedColumns(read)
    : rep === "headers-only" && kind === "insert"
    ? [...table.pk]
    : [];
  const mutate: MutatePlan = {
    kind,
    put,
    table,
    columns,
    payloadIsArray: api.payload?.isArray ?? false,
    where: mutated.where,
    order: kind === "insert"
      ? []
      : planOrder(mutated, api.order.find((o) => o.path.length === 0)?.terms ?? []),
    range: kind === "insert" ? null : api.ranges.get("") ?? null,
    onConflict,
    applyDefaults: api.prefs.missing === "default",
    returning,
  };
  // The root order and range shaped the mutation, not the rows it returns.
  if (kind !== "insert") read.range = null;
  return { kind: "mutate", mutate, read };
}

function hasEmbedFilter(t: PlanTree): boolean {
  return t.kind === "null-embed" || (t.kind === "expr" && t.children.some(hasEmbedFilter));
}

/** Every column of the mutated table that the representation reads. */
function returnedColumns(read: ReadPlan): string[] {
  const cols = new Set<string>();
  for (const s of read.select) cols.add(s.kind === "star" ? "*" : s.name);
  if (read.select.length === 0 && read.embeds.length === 0) cols.add("*");
  for (const e of read.embeds) {
    // A computed relationship's function takes the whole row.
    if (e.rel.computed) cols.add("*");
    const pairs = e.rel.junction ? e.rel.junction.sourceCols : e.rel.columns;
    for (const [origin] of pairs) cols.add(origin);
  }
  for (const o of read.order) if (!o.embed) cols.add(o.field.name);
  return cols.has("*")
    ? ["*", ...[...cols].filter((c) => c !== "*" && !read.table?.columnMap.has(c))]
    : [...cols];
}

// ---- functions ----

function planCall(b: Builder, cache: SchemaCache, api: ApiRequest, opts: PlanOptions): Plan {
  const isPost = api.action.kind === "call" && api.action.method === "POST";
  const keys = (isPost ? api.payload?.keys ?? [] : [...api.rpcArgs.keys()]).slice().sort();
  const candidates = cache.routines.get(qualified(api.schema, api.target)) ?? [];
  const named = candidates.filter((r) =>
    keys.every((k) => r.params.some((p) => p.name === k)) &&
    r.params.every((p) => p.hasDefault || keys.includes(p.name)) &&
    // A function without parameters is not called with a raw (text, xml, binary) body.
    !(r.params.length === 0 && isPost && api.payload?.media !== undefined)
  );
  // Plan.hs findProc: the fallback is a function whose one parameter is unnamed and whose type
  // goes with the body's media type (json/jsonb for JSON, text for text/plain, xml for text/xml).
  const bodyTypes = api.payload?.media === "text/plain"
    ? ["text"]
    : api.payload?.media === "text/xml"
    ? ["xml"]
    : ["json", "jsonb"];
  const singleUnnamed = candidates.filter((r) =>
    isPost && r.params.length === 1 && r.params[0].name === "" && bodyTypes.includes(r.params[0].type)
  );
  const matches = named.length > 0 ? named : singleUnnamed;
  if (matches.length === 0) throw noRpc(cache, api, keys, candidates, isPost);
  if (matches.length > 1) {
    throw Errors.ambiguousRpc(
      matches.map((r) =>
        `${r.schema}.${r.name}(${r.params.map((p) => `${p.name} => ${p.type}`).join(", ")})`
      ),
    );
  }
  const routine = matches[0];
  // Plan.hs callPlan: a function whose one parameter is unnamed always takes the whole body.
  const unnamed = routine.params.length === 1 && routine.params[0].name === "";
  const args = unnamed && isPost ? "body" : named.length > 0 ? (keys.length > 0 ? "named" : "none") : "body";
  const table = routine.returnTable;
  const read = b.node(
    table,
    `"pgrst_source" AS ${ident(b.root(routine.name))}`,
    ident(routine.name),
    routine.name,
    api.select,
  );
  attachParams(read, api, { rootFilters: true, maxRows: opts.maxRows });
  const params = args === "named" ? routine.params.filter((p) => keys.includes(p.name)) : [];
  return { kind: "call", call: { routine, args, params }, read };
}

function noRpc(cache: SchemaCache, api: ApiRequest, keys: string[], overloads: Routine[], isPost: boolean) {
  const func = `${api.schema}.${api.target}`;
  const withParams = keys.length === 0
    ? " without parameters"
    : ` with parameter${keys.length > 1 ? "s" : ""} ${keys.join(", ")}`;
  const message = `Could not find the function ${func}${
    keys.length === 0 ? " without parameters" : `(${keys.join(", ")})`
  } in the schema cache`;
  const details = `Searched for the function ${func}${withParams}${
    isPost
      ? ` or with a single unnamed ${
        api.payload?.media === "text/plain"
          ? "text"
          : api.payload?.media === "text/xml"
          ? "xml"
          : "json/jsonb"
      } parameter`
      : ""
  }, but no matches were found in the schema cache.`;
  let hint: string | null = null;
  if (overloads.length === 0) {
    const names = [...cache.routines.keys()].filter((k) => k.startsWith(`${api.schema}.`))
      .map((k) => k.slice(api.schema.length + 1));
    const s = closest(api.target, names, 0.75);
    if (s) hint = `Perhaps you meant to call the function ${api.schema}.${s}`;
  } else {
    const sig = (ps: string[]) => `(${[...ps].sort().join(", ")})`;
    const s = closest(sig(keys), overloads.map((r) => sig(r.params.map((p) => p.name))), 0.33);
    if (s) hint = `Perhaps you meant to call the function ${api.schema}.${api.target}${s}`;
  }
  return Errors.noRpc(message, details, hint);
}
