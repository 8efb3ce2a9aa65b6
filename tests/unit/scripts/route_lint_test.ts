// scripts/route_lint.ts: what counts as a database call and as an over-long handler in a route
// file, and that strings, template literals and comments never count.
import assert from "node:assert/strict";
import { blank, lintRouteSource, MAX_HANDLER_LINES } from "../../../scripts/route_lint.ts";

const body = (n: number) => Array.from({ length: n }, (_, i) => `  const x${i} = ${i};`).join("\n");

const CASES: { name: string; src: string; findings: string[] }[] = [
  { name: "a PostgREST read", src: `await db.from("kb_docs").select("*");`, findings: [".from()"] },
  { name: "an RPC", src: `await sb.rpc("kb_search", {});`, findings: [".rpc()"] },
  { name: "another schema", src: `db.schema("pgmq").from("q")`, findings: [".schema()", ".from()"] },
  {
    name: "storage",
    src: `await sb.storage.from("b").upload(p, f);`,
    findings: [".from()", "database call"],
  },
  { name: "tagged sql", src: "await sql`select 1`;", findings: ["database call"] },
  { name: "Array.from is not a database call", src: `Array.from(map.values())`, findings: [] },
  { name: "Buffer.from is not", src: `Buffer.from(b64, "base64")`, findings: [] },
  { name: "inside a string", src: `const s = 'db.from("x")';`, findings: [] },
  { name: "inside a comment", src: `// db.rpc("x")\n/* sb.from("y") */`, findings: [] },
  { name: "inside template text", src: "const t = `x.from(${a}) y.rpc(`;", findings: [] },
  {
    name: "a short handler",
    src: `app.openapi(r, async (c) => {\n${body(MAX_HANDLER_LINES)}\n});`,
    findings: [],
  },
  {
    name: "a long handler",
    src: `app.openapi(r, async (c: Ctx) => {\n${body(MAX_HANDLER_LINES + 1)}\n});`,
    findings: ["handler of 16 lines"],
  },
  {
    name: "a long named function handler",
    src: `async function upload(c: Ctx) {\n${body(20)}\n}`,
    findings: ["handler of 20 lines"],
  },
  {
    name: "braces in strings do not end a handler early",
    src: `app.get("/", (c) => {\n  const s = "}}}";\n${body(MAX_HANDLER_LINES)}\n});`,
    findings: ["handler of 16 lines"],
  },
];

for (const t of CASES) {
  Deno.test(`route-lint: ${t.name}`, () => {
    const found = lintRouteSource("f.ts", t.src).map((f) => f.message);
    assert.equal(found.length, t.findings.length, found.join("; "));
    t.findings.forEach((want, i) => assert.ok(found[i].includes(want), `${found[i]} should name ${want}`));
  });
}

Deno.test("route-lint: blank keeps lines and positions", () => {
  const src = "a('x\\'y')\n`t ${b} u`\n// c\nd";
  const out = blank(src);
  assert.equal(out.length, src.length);
  assert.equal(out.split("\n").length, src.split("\n").length);
  assert.ok(out.includes("${b}"));
  assert.ok(!out.includes("// c"));
});
