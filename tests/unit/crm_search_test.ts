// Company search filters: user input must stay data inside PostgREST's or=(...) grammar.
import assert from "node:assert/strict";
import { companySearchFilter, containsAnyFilter, escapeLike, quoteFilterValue } from "@shared/crm/mod.ts";
import { parseLogic } from "../../stack/rest/grammar.ts";
import type { LogicTree } from "../../stack/rest/types.ts";

Deno.test("escapeLike: backslash, % and _ match themselves; * becomes a one-character wildcard", () => {
  const cases: [string, string][] = [
    ["acme", "acme"],
    ["50%", "50\\%"],
    ["a_b", "a\\_b"],
    ["back\\slash", "back\\\\slash"],
    ["star*", "star_"],
  ];
  for (const [input, want] of cases) assert.equal(escapeLike(input), want, input);
});

Deno.test('quoteFilterValue: double-quoted with \\ and " escaped', () => {
  const cases: [string, string][] = [
    ["plain", '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ["a\\b", '"a\\\\b"'],
    ["a,b.c(d)e:f", '"a,b.c(d)e:f"'],
  ];
  for (const [input, want] of cases) assert.equal(quoteFilterValue(input), want, input);
});

Deno.test("companySearchFilter covers name, email and website", () => {
  assert.equal(
    companySearchFilter("acme"),
    'name.ilike."*acme*",email.ilike."*acme*",website.ilike."*acme*"',
  );
  assert.throws(() => containsAnyFilter(["name;drop"], "x"), TypeError);
});

// PostgREST's own grammar (the local platform's port of QueryParams.hs) reads every hostile term
// back as exactly three ilike conditions whose value is the escaped term.
Deno.test("hostile terms parse back as three ilike filters on the intended columns", () => {
  const hostile = [
    "acme",
    "a,name.neq.x",
    "x),or(id.not.is.null",
    'quote"d',
    'tricky\\",id.eq.1',
    "50%_off*",
    "(",
    "",
  ];
  for (const term of hostile) {
    const { tree } = parseLogic("or", `(${companySearchFilter(term)})`);
    assert.equal(tree.kind, "expr");
    const got = (tree as Extract<LogicTree, { kind: "expr" }>).children.map((c) => {
      assert.equal(c.kind, "filter");
      const f = (c as Extract<LogicTree, { kind: "filter" }>).filter;
      const op = f.expr.operation as { op: string; value: string };
      return [f.field.name, op.op, op.value];
    });
    const value = `*${escapeLike(term)}*`;
    assert.deepEqual(
      got,
      [["name", "ilike", value], ["email", "ilike", value], ["website", "ilike", value]],
      term,
    );
  }
});
