/**
 * The typed data that travels between the REST stages (PostgREST's ApiRequest and the query
 * grammar's syntax tree). Parsing produces these; planning reads them against the schema cache.
 */

/** One step of a JSON path: `->key`, `->>key`, `->0`. */
export interface JsonStep {
  arrow: "->" | "->>";
  key: string;
  /** An integer index (`->0`, `->-1`) rather than an object key. */
  index: boolean;
}

/** A column reference with an optional JSON path, as in `data->a->>b`. */
export interface Field {
  name: string;
  path: JsonStep[];
}

export type JoinType = "inner" | "left";

export type SelectItem =
  | { kind: "star" }
  | {
    kind: "field";
    field: Field;
    alias?: string;
    cast?: string;
    /** `count()`, `col.sum()` ...: refused with PGRST123 unless `db-aggregates-enabled`. */
    aggregate?: string;
    /** `col.sum()::int`: the cast of the aggregate's result. */
    aggCast?: string;
  }
  | {
    kind: "embed";
    /** Table, view, foreign-key column or constraint name. */
    name: string;
    alias?: string;
    hint?: string;
    joinType?: JoinType;
    spread: boolean;
    children: SelectItem[];
  };

/** Operators taking one value that accept the `(any)`/`(all)` quantifiers. */
export const QUANT_OPS = ["eq", "gte", "gt", "lte", "lt", "like", "ilike", "match", "imatch"] as const;
/** Operators taking one value without quantifiers. */
export const SIMPLE_OPS = ["neq", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj"] as const;
export const FTS_OPS = ["fts", "plfts", "phfts", "wfts"] as const;
export type QuantOp = typeof QUANT_OPS[number];
export type SimpleOp = typeof SIMPLE_OPS[number];
export type FtsOp = typeof FTS_OPS[number];
export type IsValue = "null" | "not_null" | "true" | "false" | "unknown";

export type Operation =
  | { op: QuantOp; quantifier?: "any" | "all"; value: string }
  | { op: SimpleOp; value: string }
  | { op: "in"; values: string[] }
  | { op: "is"; value: IsValue }
  | { op: "isdistinct"; value: string }
  | { op: FtsOp; language?: string; value: string };

export interface OpExpr {
  negated: boolean;
  operation: Operation;
}

export interface Filter {
  field: Field;
  expr: OpExpr;
}

export type LogicTree =
  | { kind: "expr"; negated: boolean; op: "and" | "or"; children: LogicTree[] }
  | { kind: "filter"; filter: Filter };

export interface OrderTerm {
  /** Set for `rel(col).desc`: ordering by a column of a to-one embed. */
  relation?: string;
  field: Field;
  direction?: "asc" | "desc";
  nulls?: "first" | "last";
}

/** Where in the embed tree a parameter applies: [] is the top level, ["actors"] an embed. */
export type EmbedPath = string[];

export interface RangeSpec {
  offset: bigint;
  /** null: no limit. */
  limit: bigint | null;
}

export type Action =
  | { kind: "read"; head: boolean }
  | { kind: "create" }
  | { kind: "update" }
  | { kind: "delete" }
  | { kind: "upsert-put" }
  | { kind: "call"; method: "GET" | "HEAD" | "POST" }
  /** GET or HEAD on the root: the OpenAPI description. */
  | { kind: "root"; head: boolean };

export interface MediaType {
  kind: "json" | "object" | "csv";
  /** `nulls=stripped` on the vnd.pgrst array/object types. */
  stripNulls: boolean;
  /**
   * `application/vnd.pgrst.plan[+json|+text]; for="..."; options=analyze|verbose|...`: the
   * EXPLAIN of the statement that would answer `kind` (only with `db-plan-enabled`).
   */
  plan?: { format: "json" | "text"; for: string; options: string[] };
}

export interface Preferences {
  resolution?: "merge-duplicates" | "ignore-duplicates";
  representation?: "representation" | "minimal" | "headers-only";
  count?: "exact" | "planned" | "estimated";
  transaction?: "commit" | "rollback";
  missing?: "default" | "null";
  handling?: "strict" | "lenient";
  timezone?: string;
  maxAffected?: bigint;
  params?: "single-object";
  /** Preferences that were not recognised (only an error under handling=strict). */
  invalid: string[];
}

/** The body, kept as the client sent it so that numbers reach Postgres without float rounding. */
export interface Payload {
  /** JSON text handed to Postgres as one parameter. */
  raw: string;
  isArray: boolean;
  /** Keys of the object(s), or the `columns` parameter when given. */
  keys: string[];
  /** A raw body for a function's one unnamed parameter: text/plain, text/xml, application/octet-stream. */
  media?: string;
}

export interface ApiRequest {
  method: string;
  /** Path below /rest/v1, e.g. `/films` or `/rpc/add`. */
  path: string;
  action: Action;
  schema: string;
  /** The relation or function name. */
  target: string;
  select: SelectItem[];
  filters: { path: EmbedPath; filter: Filter }[];
  logic: { path: EmbedPath; tree: LogicTree }[];
  order: { path: EmbedPath; terms: OrderTerm[] }[];
  /** Ranges keyed by embed path joined with "." ("" is the top level, already merged with Range). */
  ranges: Map<string, RangeSpec>;
  columns: string[] | null;
  onConflict: string[] | null;
  /** RPC arguments given in the query string (GET/HEAD), first value of each name. */
  rpcArgs: Map<string, string[]>;
  prefs: Preferences;
  media: MediaType;
  payload: Payload | null;
  /** Sorted query string, for Content-Location. */
  canonicalQuery: string;
  headers: Record<string, string>;
  cookies: Record<string, string>;
}
