import { PGliteWorker } from "@electric-sql/pglite/worker";
import { openFromTemplate } from "../stack/db/template.ts";
const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
let t = performance.now();
const w = await PGliteWorker.create(new Worker(new URL("./_wk_worker.ts", import.meta.url).href, { type: "module" }), { id: "a" });
console.log("worker db ready", (performance.now() - t).toFixed(0));
t = performance.now();
const d = await openFromTemplate(root);
console.log("in-process db ready", (performance.now() - t).toFixed(0));
for (const [name, db] of [["worker", w], ["direct", d], ["worker", w], ["direct", d]] as const) {
  const n = 3000;
  for (let i = 0; i < 300; i++) await db.query("select id from public.roles where name = $1", ["admin"]);
  t = performance.now();
  for (let i = 0; i < n; i++) await db.query("select id from public.roles where name = $1", ["admin"]);
  const seq = (performance.now() - t) / n;
  t = performance.now();
  for (let i = 0; i < n / 10; i++) await db.transaction(async (tx) => { await tx.query("select set_config('role', 'authenticated', true)"); await tx.query("select 1"); });
  const txMs = (performance.now() - t) / (n / 10);
  console.log(name, "query", (seq * 1000).toFixed(0), "µs; tx(2 stmts)", (txMs * 1000).toFixed(0), "µs");
}
let got = "";
const un = await w.listen("chan", (p) => (got = p));
await w.query("select pg_notify('chan', 'hello')");
await new Promise((r) => setTimeout(r, 50));
console.log("notify via worker:", got);
await un();
await w.close(); await d.close();
Deno.exit(0);
