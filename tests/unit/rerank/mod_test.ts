/** The re-rank order check (rerank: a permutation of the given ids or a stated problem), table-driven. */
import assert from "node:assert/strict";
import { permutationProblem } from "@shared/rerank/mod.ts";

Deno.test("permutationProblem: only an exact permutation passes", () => {
  const ids = ["a", "b", "c"];
  const cases: [unknown, RegExp | null][] = [
    [["c", "a", "b"], null],
    [["a", "b"], /1 id\(s\) missing \(c\)/],
    [["a", "a", "b", "c"], /1 id\(s\) duplicated \(a\)/],
    [["a", "b", "c", "z"], /1 unknown id\(s\) \(z\)/],
    [["a", 2, "c"], /not ids/],
    ["a,b,c", /no list of ids/],
    [null, /no list of ids/],
  ];
  for (const [order, want] of cases) {
    const got = permutationProblem(order, ids);
    if (want === null) assert.equal(got, null, JSON.stringify(order));
    else assert.match(got ?? "", want, JSON.stringify(order));
  }
});
