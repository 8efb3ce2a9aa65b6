/**
 * PostgREST `in` lists (packages/shared/supabase/postgrest.ts): every value quoted with `"` and `\`
 * escaped (supabase-js's `.in()` quotes only values with `,()` and escapes nothing), and long lists
 * split into groups whose URL-encoded form stays within a bound, keeping every value once, in order.
 */
import assert from "node:assert/strict";
import { inFilterGroups, inFilterList } from "../../../packages/shared/supabase/postgrest.ts";

/** Reads an `in` list back the way PostgREST does: quoted values, backslash escapes. */
function parseList(list: string): string[] {
  assert.ok(list.startsWith("(") && list.endsWith(")"), list);
  const out: string[] = [];
  let i = 1;
  while (i < list.length - 1) {
    assert.equal(list[i], '"', `value at ${i} of ${list} is quoted`);
    let v = "";
    i++;
    while (list[i] !== '"') {
      if (list[i] === "\\") i++;
      v += list[i++];
    }
    out.push(v);
    i++;
    if (list[i] === ",") i++;
  }
  return out;
}

Deno.test("inFilterList quotes every value and escapes quotes and backslashes", () => {
  const table: [string[], string][] = [
    [["a"], '("a")'],
    [["a", "b"], '("a","b")'],
    [['12" tiles, grey'], '("12\\" tiles, grey")'],
    [["back\\slash"], '("back\\\\slash")'],
    [["(x)", "y,z", ""], '("(x)","y,z","")'],
    [["é ü 漢"], '("é ü 漢")'],
  ];
  for (const [values, expected] of table) {
    assert.equal(inFilterList(values), expected);
    assert.deepEqual(parseList(inFilterList(values)), values);
  }
});

Deno.test("inFilterGroups keeps every value once, in order, each group within the bound", () => {
  const uuids = Array.from(
    { length: 1800 },
    (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  );
  const long = Array.from({ length: 100 }, (_, i) => `${i} ${'é"\\,()ü'.repeat(71)}`.slice(0, 500));
  const table: { name: string; values: string[]; max?: number; groups?: number }[] = [
    { name: "empty", values: [], groups: 0 },
    { name: "one", values: ["a"], groups: 1 },
    { name: "120 uuids fit one default group", values: uuids.slice(0, 120), groups: 1 },
    { name: "1,800 uuids", values: uuids },
    { name: "100 long titles", values: long },
    { name: "small bound", values: uuids.slice(0, 50), max: 200 },
  ];
  for (const { name, values, max, groups } of table) {
    const lists = inFilterGroups(values, max);
    if (groups !== undefined) assert.equal(lists.length, groups, name);
    assert.deepEqual(lists.flatMap(parseList), values, `${name}: every value once, in order`);
    const bound = max ?? 6_000;
    for (const l of lists) {
      const single = parseList(l).length === 1;
      assert.ok(
        single || encodeURIComponent(l).length <= bound,
        `${name}: ${encodeURIComponent(l).length} > ${bound}`,
      );
    }
  }
  // A value longer than the bound still goes, alone.
  const huge = "x".repeat(10_000);
  assert.deepEqual(inFilterGroups(["a", huge, "b"]).map(parseList), [["a"], [huge], ["b"]]);
});
