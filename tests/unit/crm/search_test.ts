// Company search filters: user input must stay data inside PostgREST's or=(...) grammar.
import assert from "node:assert/strict";
import { companySearchFilter, containsAnyFilter, escapeRegex, quoteFilterValue } from "@shared/crm/mod.ts";
import { parseLogic } from "../../../stack/rest/grammar.ts";
import type { LogicTree } from "../../../stack/rest/types.ts";

Deno.test("escapeRegex: every regex metacharacter matches itself; % and _ need nothing", () => {
  const cases: [string, string][] = [
    ["acme", "acme"],
    ["50%", "50%"],
    ["a_b", "a_b"],
    ["back\\slash", "back\\\\slash"],
    ["star*", "star\\*"],
    ["(a.b)", "\\(a\\.b\\)"],
    ["^x$|y?+[z]{2}", "\\^x\\$\\|y\\?\\+\\[z\\]\\{2\\}"],
  ];
  for (const [input, want] of cases) assert.equal(escapeRegex(input), want, input);
  // And the escaped pattern matches exactly the literal text (JS regex agrees with POSIX here).
  for (const [input] of cases) assert.ok(new RegExp(escapeRegex(input), "i").test(`xx${input}yy`), input);
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
    'name.imatch."acme",email.imatch."acme",website.imatch."acme"',
  );
  assert.throws(() => containsAnyFilter(["name;drop"], "x"), TypeError);
});

// PostgREST's own grammar (the local platform's port of QueryParams.hs) reads every hostile term
// back as exactly three imatch conditions whose value is the escaped term.
Deno.test("hostile terms parse back as three imatch filters on the intended columns", () => {
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
    const value = escapeRegex(term);
    assert.deepEqual(
      got,
      [["name", "imatch", value], ["email", "imatch", value], ["website", "imatch", value]],
      term,
    );
  }
});
