/** tests/helpers/shards.ts: Deno.test's four call forms, and every file dealt to exactly one shard. */
import assert from "node:assert/strict";
import { definition, shardFiles, testFiles } from "../../../helpers/shards.ts";

const fn = () => {};
function named() {}

const cases: { name: string; args: unknown[]; want: Partial<Deno.TestDefinition> }[] = [
  { name: "name and fn", args: ["a", fn], want: { name: "a", fn } },
  { name: "name, options and fn", args: ["b", { ignore: true }, fn], want: { name: "b", ignore: true, fn } },
  {
    name: "options and fn",
    args: [{ name: "c", sanitizeOps: false }, fn],
    want: { name: "c", sanitizeOps: false, fn },
  },
  { name: "a definition", args: [{ name: "d", fn, only: false }], want: { name: "d", fn, only: false } },
  { name: "a named function", args: [named], want: { name: "named", fn: named } },
];

for (const c of cases) {
  Deno.test(`shards: Deno.test(${c.name}) is read as its definition`, () => {
    const got = definition(c.args);
    for (const [k, v] of Object.entries(c.want)) assert.equal(got[k as keyof Deno.TestDefinition], v, k);
  });
}

Deno.test("shards: every test file is in exactly one shard of its tier, tests/shards/ in none", async () => {
  const all = await testFiles();
  assert.ok(all.length > 0 && !all.some((f) => f.startsWith("shards/")));
  for (const [tier, of] of [["unit", 2], ["platform", 10]] as const) {
    const dealt = (await Promise.all(Array.from({ length: of }, (_, i) => shardFiles(tier, i + 1, of))))
      .flat();
    const want = all.filter((f) => f.startsWith("unit/") === (tier === "unit"));
    assert.deepEqual([...dealt].sort(), want, tier);
  }
});
