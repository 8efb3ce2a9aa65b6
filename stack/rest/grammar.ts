/**
 * PostgREST's query-string grammar (src/PostgREST/ApiRequest/QueryParams.hs): select trees,
 * filter expressions, logic trees, order terms, column lists and embed paths, with Parsec's
 * behaviour where it matters: `try` alternatives, trailing input ignored where PostgREST ignores
 * it, and errors reported as PGRST100 (see parser.ts).
 */
import {
  aliasPrefix,
  Failure,
  field,
  fieldName,
  identifier,
  jsonPath,
  Parser,
  quotedValue,
  run,
} from "./parser.ts";
import {
  type EmbedPath,
  type Field,
  FTS_OPS,
  type FtsOp,
  type IsValue,
  type JoinType,
  type LogicTree,
  type Operation,
  type OpExpr,
  type OrderTerm,
  QUANT_OPS,
  type SelectItem,
  SIMPLE_OPS,
} from "./types.ts";

// ---- select ----

function embedParams(p: Parser): { hint?: string; joinType?: JoinType } {
  const out: { hint?: string; joinType?: JoinType } = {};
  for (let i = 0; i < 2 && p.at("!"); i++) {
    p.pos++;
    if (p.eat("left")) out.joinType ??= "left";
    else if (p.eat("inner")) out.joinType ??= "inner";
    else out.hint ??= fieldName(p);
  }
  return out;
}

function selectEnd(p: Parser): void {
  if (!(p.at(")") || p.at(",") || p.eof())) p.fail('")", ",", end of input');
}

function selectTree(p: Parser): SelectItem {
  p.ws();
  const spread = p.attempt(() => {
    p.expect("...", '"..."');
    const name = fieldName(p);
    const params = embedParams(p);
    if (!p.at("(")) p.fail('"("');
    return { name, ...params };
  });
  const relation = spread ?? p.attempt(() => {
    const alias = aliasPrefix(p);
    const name = fieldName(p);
    if (name === "count") p.fail("relation");
    const params = embedParams(p);
    if (!p.at("(")) p.fail('"("');
    return { name, alias, ...params };
  });
  if (relation) {
    p.expect("(");
    const children = p.nest(() => selectForest(p));
    p.expect(")");
    p.ws();
    return { kind: "embed", spread: spread !== undefined, children, ...relation };
  }
  return fieldSelect(p);
}

function cast(p: Parser): string | undefined {
  return p.eat("::") ? identifier(p) : undefined;
}

function fieldSelect(p: Parser): SelectItem {
  const star = p.attempt(() => {
    p.expect("*");
    p.ws();
    selectEnd(p);
    return true;
  });
  if (star) return { kind: "star" };
  const count = p.attempt(() => {
    const alias = aliasPrefix(p);
    p.expect("count()");
    const aggCast = cast(p);
    p.ws();
    selectEnd(p);
    return { alias, aggCast };
  });
  if (count) {
    return {
      kind: "field",
      field: { name: "*", path: [] },
      alias: count.alias,
      aggregate: "count",
      ...(count.aggCast ? { aggCast: count.aggCast } : {}),
    };
  }
  const alias = aliasPrefix(p);
  const f = field(p);
  const c = cast(p);
  const aggregate = p.attempt(() => {
    p.expect(".");
    const m = /^(sum|avg|count|max|min)\(\)/.exec(p.rest);
    if (!m) p.fail("aggregate function");
    p.pos += m[0].length;
    return m[1];
  });
  const aggCast = aggregate ? cast(p) : undefined;
  p.ws();
  selectEnd(p);
  return { kind: "field", field: f, alias, cast: c, aggregate, ...(aggCast ? { aggCast } : {}) };
}

function selectForest(p: Parser): SelectItem[] {
  p.ws();
  if (p.at(")") || p.eof()) return [];
  const items = [selectTree(p)];
  while (p.eat(",")) items.push(selectTree(p));
  return items;
}

export function parseSelect(src: string): SelectItem[] {
  return run("select parameter", src, selectForest);
}

// ---- filters ----

type ValueParser = (p: Parser) => string;

const restOfInput: ValueParser = (p) => {
  const v = p.rest;
  p.pos = p.src.length;
  return v;
};

/** Stops at `,` or `)`; a quoted value or a `{...}` array literal may contain them. */
const logicValue: ValueParser = (p) => {
  const quoted = p.attempt(() => {
    const v = quotedValue(p);
    if (!(p.at(",") || p.at(")") || p.eof())) p.fail('"," or ")"');
    return v;
  });
  if (quoted !== undefined) return quoted;
  const arr = /^\{[^{}]*\}/.exec(p.rest);
  if (arr) {
    p.pos += arr[0].length;
    return arr[0];
  }
  return listElementPlain(p);
};

function listElementPlain(p: Parser): string {
  const start = p.pos;
  while (p.pos < p.src.length && p.src[p.pos] !== "," && p.src[p.pos] !== ")") p.pos++;
  return p.src.slice(start, p.pos);
}

function listValue(p: Parser): string[] {
  p.ws();
  p.expect("(");
  p.ws();
  const items: string[] = [];
  do {
    const quoted = p.attempt(() => {
      const v = quotedValue(p);
      if (!(p.at(",") || p.at(")"))) p.fail('"," or ")"');
      return v;
    });
    items.push(quoted ?? listElementPlain(p));
  } while (p.eat(","));
  p.ws();
  p.expect(")");
  p.ws();
  return items;
}

const IS_VALUES: IsValue[] = ["null", "not_null", "true", "false", "unknown"];

function keyword<T extends string>(p: Parser, words: readonly T[]): T | undefined {
  // Longest first, so that "gte" wins over "gt" and "nxl" is not read as something shorter.
  const sorted = [...words].sort((a, b) => b.length - a.length);
  for (const w of sorted) if (p.eat(w)) return w;
  return undefined;
}

function operation(p: Parser, value: ValueParser): Operation {
  const start = p.pos;
  if (p.eat("in.")) return { op: "in", values: listValue(p) };
  if (p.eat("isdistinct.")) return { op: "isdistinct", value: value(p) };
  if (p.eat("is.")) {
    const lower = p.rest.toLowerCase();
    const v = IS_VALUES.find((w) => lower.startsWith(w));
    if (!v) p.fail("isVal: (null, not_null, true, false, unknown)");
    p.pos += v.length;
    return { op: "is", value: v };
  }
  const fts = p.attempt((): Operation => {
    const op = keyword(p, FTS_OPS) as FtsOp | undefined;
    if (!op) p.fail("operator (eq, gt, ...)");
    const language = p.attempt(() => {
      p.expect("(");
      const l = identifier(p);
      p.expect(")");
      return l;
    });
    p.expect(".", "delimiter (.)");
    return { op, language, value: value(p) };
  });
  if (fts) return fts;
  const simple = p.attempt((): Operation => {
    const op = keyword(p, SIMPLE_OPS);
    if (!op) p.fail("operator (eq, gt, ...)");
    p.expect(".", "delimiter (.)");
    return { op, value: value(p) };
  });
  if (simple) return simple;
  const quant = p.attempt((): Operation => {
    const op = keyword(p, QUANT_OPS);
    if (!op) p.fail("operator (eq, gt, ...)");
    const quantifier = p.attempt(() => {
      const m = /^\((any|all)\)/.exec(p.rest);
      if (!m) p.fail("quantifier");
      p.pos += m[0].length;
      return m[1] as "any" | "all";
    });
    p.expect(".", "delimiter (.)");
    return { op, quantifier, value: value(p) };
  });
  if (quant) return quant;
  p.pos = start;
  return p.fail("operator (eq, gt, ...)");
}

function opExpr(p: Parser, value: ValueParser): OpExpr {
  const negated = p.eat("not.");
  return { negated, operation: operation(p, value) };
}

/** The value of a filter parameter, e.g. `not.in.(1,2)`. */
export function parseOpExpr(src: string): OpExpr {
  return run("filter", src, (p) => opExpr(p, restOfInput));
}

/**
 * For RPC reads: a parameter whose value is not an operator expression is a function argument.
 * Like Parsec, only a failure before any input was consumed counts as "not an operator"; `not.`
 * or `in.` followed by garbage is still a malformed filter.
 */
export function parseRpcParam(src: string): OpExpr | null {
  const committed = /^(not\.|in\.|is\.|isdistinct\.)/.test(src);
  if (committed) return parseOpExpr(src);
  const p = new Parser(src);
  try {
    return opExpr(p, restOfInput);
  } catch (err) {
    if (err instanceof Failure) return null;
    throw err;
  }
}

/** A filter key: `col`, `col->a`, `rel.col`, `rel.sub.col->>b`. */
export function parseTreePath(src: string): { path: EmbedPath; field: Field } {
  return run("tree path", src, (p) => {
    const names = [fieldName(p)];
    while (p.eat(".")) names.push(fieldName(p));
    const path = jsonPath(p);
    return { path: names.slice(0, -1), field: { name: names[names.length - 1], path } };
  });
}

// ---- logic trees ----

function logicTree(p: Parser): LogicTree {
  const filter = p.attempt(() => {
    const f = field(p);
    p.expect(".", "delimiter (.)");
    return { field: f, expr: opExpr(p, logicValue) };
  });
  if (filter) return { kind: "filter", filter };
  const negated = p.eat("not.");
  const op = p.eat("and") ? "and" : p.eat("or") ? "or" : p.fail("logic operator (and, or)");
  p.ws();
  p.expect("(");
  p.ws();
  const children = [p.nest(() => logicTree(p))];
  for (;;) {
    p.ws();
    if (!p.eat(",")) break;
    p.ws();
    children.push(p.nest(() => logicTree(p)));
  }
  p.ws();
  p.expect(")");
  p.ws();
  return { kind: "expr", negated, op, children };
}

/** `or=(a.eq.1,and(b.gt.2,c.lt.3))` given as key `or` (or `rel.not.and`) and its value. */
export function parseLogic(key: string, value: string): { path: EmbedPath; tree: LogicTree } {
  const names = run("logic path", key, (p) => {
    const out = [fieldName(p)];
    while (p.eat(".")) out.push(fieldName(p));
    return out;
  });
  const op = names[names.length - 1];
  const negated = names.includes("not");
  const path = names.slice(0, -1).filter((n) => n !== "not");
  // As PostgREST does, parse "or(...)" rather than "(...)" so that the top level is regular.
  const tree = run("logic tree", `${negated ? "not." : ""}${op}${value}`, logicTree, value);
  return { path, tree };
}

// ---- order, columns ----

function orderTail(p: Parser): Pick<OrderTerm, "direction" | "nulls"> {
  const out: Pick<OrderTerm, "direction" | "nulls"> = {};
  const dir = p.attempt(() => {
    p.expect(".");
    return p.eat("asc")
      ? "asc"
      : p.eat("desc")
      ? "desc"
      : p.fail('"asc", "desc", "nullsfirst" or "nullslast"');
  });
  if (dir) out.direction = dir;
  const nulls = p.attempt(() => {
    p.expect(".");
    return p.eat("nullsfirst")
      ? "first"
      : p.eat("nullslast")
      ? "last"
      : p.fail(dir ? '"nullsfirst" or "nullslast"' : '"asc", "desc", "nullsfirst" or "nullslast"');
  });
  if (nulls) out.nulls = nulls;
  if (!(p.at(",") || p.eof())) p.fail(nulls ? '",", end of input' : 'delimiter (.), ",", end of input');
  return out;
}

export function parseOrder(src: string): OrderTerm[] {
  return run("order", src, (p) => {
    const term = (): OrderTerm => {
      p.ws();
      const rel = p.attempt(() => {
        const relation = fieldName(p);
        p.expect("(");
        const f = field(p);
        p.expect(")");
        return { relation, field: f, ...orderTail(p) };
      });
      if (rel) return rel;
      const f = field(p);
      return { field: f, ...orderTail(p) };
    };
    const terms = [term()];
    while (p.eat(",")) terms.push(term());
    return terms;
  });
}

export function parseColumns(context: string, src: string): string[] {
  return run(context, src, (p) => {
    p.ws();
    const cols = [fieldName(p)];
    for (;;) {
      p.ws();
      if (!p.eat(",")) break;
      p.ws();
      cols.push(fieldName(p));
    }
    return cols;
  });
}
