/** The query-string grammar against PostgREST's own doctest examples (QueryParams.hs). */
import assert from "node:assert/strict";
import { PgrstError } from "../../../../stack/rest/errors.ts";
import {
  parseColumns,
  parseLogic,
  parseOpExpr,
  parseOrder,
  parseRpcParam,
  parseSelect,
  parseTreePath,
} from "../../../../stack/rest/grammar.ts";
import { parsePreferences, parseQueryString } from "../../../../stack/rest/request.ts";

function pgrst100(fn: () => unknown): PgrstError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof PgrstError);
    assert.equal(err.code, "PGRST100");
    assert.equal(err.status, 400);
    return err;
  }
  assert.fail("expected PGRST100");
}

Deno.test("select: fields, aliases, casts, JSON paths, embeds, hints, join types, spreads", () => {
  assert.deepEqual(parseSelect("id,alias:name,price::text,data->a->>b,x:data->0"), [
    {
      kind: "field",
      field: { name: "id", path: [] },
      alias: undefined,
      cast: undefined,
      aggregate: undefined,
    },
    {
      kind: "field",
      field: { name: "name", path: [] },
      alias: "alias",
      cast: undefined,
      aggregate: undefined,
    },
    {
      kind: "field",
      field: { name: "price", path: [] },
      alias: undefined,
      cast: "text",
      aggregate: undefined,
    },
    {
      kind: "field",
      field: {
        name: "data",
        path: [{ arrow: "->", key: "a", index: false }, { arrow: "->>", key: "b", index: false }],
      },
      alias: undefined,
      cast: undefined,
      aggregate: undefined,
    },
    {
      kind: "field",
      field: { name: "data", path: [{ arrow: "->", key: "0", index: true }] },
      alias: "x",
      cast: undefined,
      aggregate: undefined,
    },
  ]);
  const [star, embed] = parseSelect("*,c:clients!fk_name!inner(*,nested(id))");
  assert.deepEqual(star, { kind: "star" });
  assert.equal(embed.kind, "embed");
  if (embed.kind !== "embed") return;
  assert.deepEqual([embed.name, embed.alias, embed.hint, embed.joinType, embed.spread], [
    "clients",
    "c",
    "fk_name",
    "inner",
    false,
  ]);
  assert.equal(embed.children.length, 2);
  const [spread] = parseSelect("...rel!left(a)");
  assert.ok(spread.kind === "embed" && spread.spread && spread.joinType === "left");
  assert.deepEqual(parseSelect(""), []);
  assert.deepEqual(parseSelect('"a,b(c)"')[0], {
    kind: "field",
    field: { name: "a,b(c)", path: [] },
    alias: undefined,
    cast: undefined,
    aggregate: undefined,
  });
  const empty = parseSelect("rel()")[0];
  assert.ok(empty.kind === "embed" && empty.children.length === 0);
});

Deno.test("select: malformed input is PGRST100 with PostgREST's message shape", () => {
  const err = pgrst100(() => parseSelect("id,clients(name[])"));
  assert.match(
    err.message,
    /^"failed to parse select parameter \(id,clients\(name\[\]\)\)" \(line 1, column \d+\)$/,
  );
  assert.match(String(err.details), /^unexpected "\[" expecting/);
  pgrst100(() => parseSelect("name::"));
  pgrst100(() => parseSelect("a,,b"));
  pgrst100(() => parseSelect("rel(a"));
});

Deno.test("filters: every operator, negation, quantifiers, lists with quotes", () => {
  assert.deepEqual(parseOpExpr("eq.1"), {
    negated: false,
    operation: { op: "eq", quantifier: undefined, value: "1" },
  });
  assert.deepEqual(parseOpExpr("not.gte.5"), {
    negated: true,
    operation: { op: "gte", quantifier: undefined, value: "5" },
  });
  assert.deepEqual(parseOpExpr("like(any).{a*,*b}"), {
    negated: false,
    operation: { op: "like", quantifier: "any", value: "{a*,*b}" },
  });
  assert.deepEqual(parseOpExpr('in.(1,"a,b","x)y",  z)'), {
    negated: false,
    operation: { op: "in", values: ["1", "a,b", "x)y", "  z"] },
  });
  assert.deepEqual(parseOpExpr("is.NULL").operation, { op: "is", value: "null" });
  assert.deepEqual(parseOpExpr("is.not_null").operation, { op: "is", value: "not_null" });
  assert.deepEqual(parseOpExpr("isdistinct.a").operation, { op: "isdistinct", value: "a" });
  assert.deepEqual(parseOpExpr("wfts(english).the cat").operation, {
    op: "wfts",
    language: "english",
    value: "the cat",
  });
  assert.deepEqual(parseOpExpr("fts.a&b").operation, { op: "fts", language: undefined, value: "a&b" });
  for (
    const op of [
      "neq",
      "cs",
      "cd",
      "ov",
      "sl",
      "sr",
      "nxr",
      "nxl",
      "adj",
      "match",
      "imatch",
      "ilike",
      "lt",
      "lte",
      "gt",
    ]
  ) {
    assert.equal(parseOpExpr(`${op}.v`).operation.op, op);
  }
  assert.equal(parseOpExpr("eq.a.b.c").operation.op, "eq");
  assert.equal((parseOpExpr("eq.a.b.c").operation as { value: string }).value, "a.b.c");
  pgrst100(() => parseOpExpr("noop.0"));
  pgrst100(() => parseOpExpr("in.1,2"));
  pgrst100(() => parseOpExpr("is.maybe"));
  pgrst100(() => parseOpExpr("eq(some).1"));
});

Deno.test("RPC reads: a value that is not an operator expression is an argument", () => {
  assert.equal(parseRpcParam("hello"), null);
  assert.equal(parseRpcParam("1.5"), null);
  assert.equal(parseRpcParam("{a,b}"), null);
  assert.ok(parseRpcParam("eq.5"));
  pgrst100(() => parseRpcParam("not.hello"));
});

Deno.test("logic trees: nesting, negation, quoted values, arrays, embedded paths", () => {
  const { path, tree } = parseLogic(
    "or",
    '(a.eq.1,and(b.gt.2,c.not.is.null),d.in.(1,2),e.eq."x,y",f.cs.{1,2})',
  );
  assert.deepEqual(path, []);
  assert.equal(tree.kind, "expr");
  if (tree.kind !== "expr") return;
  assert.equal(tree.op, "or");
  assert.equal(tree.children.length, 5);
  assert.deepEqual(tree.children[3], {
    kind: "filter",
    filter: {
      field: { name: "e", path: [] },
      expr: { negated: false, operation: { op: "eq", quantifier: undefined, value: "x,y" } },
    },
  });
  assert.deepEqual(tree.children[4], {
    kind: "filter",
    filter: {
      field: { name: "f", path: [] },
      expr: { negated: false, operation: { op: "cs", value: "{1,2}" } },
    },
  });
  const negated = parseLogic("rel.not.and", "(a.eq.1,b.eq.2)");
  assert.deepEqual(negated.path, ["rel"]);
  assert.ok(negated.tree.kind === "expr" && negated.tree.negated && negated.tree.op === "and");
  pgrst100(() => parseLogic("or", "()"));
  pgrst100(() => parseLogic("or", "(id.in.1,2,id.eq.3)"));
  pgrst100(() => parseLogic("or", "(id.eq.1,not.xor(id.eq.2))"));
  // A negated filter inside a tree is col.not.op, as in PostgREST; not.col.op does not parse.
  pgrst100(() => parseLogic("or", "(not.c.is.null)"));
});

Deno.test("order, columns, tree paths", () => {
  assert.deepEqual(parseOrder("name.desc.nullsfirst,clients(name).asc,data->k"), [
    { field: { name: "name", path: [] }, direction: "desc", nulls: "first" },
    { relation: "clients", field: { name: "name", path: [] }, direction: "asc" },
    { field: { name: "data", path: [{ arrow: "->", key: "k", index: false }] } },
  ]);
  for (const bad of ["id.ac", "id.descc", "id.nullslasttt", "clients(name,id)"]) {
    pgrst100(() => parseOrder(bad));
  }
  assert.deepEqual(parseColumns("columns parameter", 'a, b,"c d"'), ["a", "b", "c d"]);
  assert.deepEqual(parseTreePath("rel.sub.col->>k"), {
    path: ["rel", "sub"],
    field: { name: "col", path: [{ arrow: "->>", key: "k", index: false }] },
  });
});

Deno.test("query strings split on & and ;, + is a space, bad escapes stay as written", () => {
  assert.deepEqual(parseQueryString("?a=1&b=x+y;c=%2C%zz&flag"), [["a", "1"], ["b", "x y"], ["c", ",%zz"], [
    "flag",
    null,
  ]]);
});

Deno.test("Prefer: comma-joined, first value wins, unknown ones recorded", () => {
  const p = parsePreferences(
    "return=representation, count=exact,resolution=merge-duplicates, count=planned, bogus, timezone=UTC, max-affected=5",
    new Set(["UTC"]),
  );
  assert.equal(p.representation, "representation");
  assert.equal(p.count, "exact");
  assert.equal(p.resolution, "merge-duplicates");
  assert.equal(p.timezone, "UTC");
  assert.equal(p.maxAffected, 5n);
  assert.deepEqual(p.invalid, ["bogus"]);
});
