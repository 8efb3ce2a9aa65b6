/**
 * Scraping pipeline throughput on the local 30-page shop (fixtures/scraping_site.ts): sessions run
 * through scrape-session-manager on an ephemeral platform (fetch with robots.txt and politeness,
 * structured extraction, the Anthropic stand-in for the 5 text pages, materials, products with
 * retries). Prints pages per second per round and overall, and the structured extractor alone.
 *
 *   npx -y deno@2.9.6 run -A bench/scraping.ts [rounds=5] [hostConcurrency=3]
 */
import { createUser, createWorkspace, startEphemeralPlatform } from "../fixtures/platform.ts";
import { startLocalSite } from "../fixtures/scraping_site.ts";
import { activeRuns } from "@shared/scraping/sessions.ts";
import { extractStructuredProducts } from "@shared/scraping/structured.ts";
import { percentile } from "./lib.ts";

const rounds = Number(Deno.args[0] ?? 5);
const concurrency = Deno.args[1] ?? "3";

const p = await startEphemeralPlatform();
const site = await startLocalSite();
p.env.SCRAPER_ALLOWED_HOSTS = site.host;
p.env.SCRAPER_HOST_DELAY_MS = "0";
p.env.SCRAPER_HOST_CONCURRENCY = concurrency;
const llm = p.sandbox!.get("anthropic");
const owner = await createUser(p, "bench-scrape");

async function call(fn: string, body: unknown) {
  const res = await fetch(`${p.url}/functions/v1/${fn}`, {
    method: "POST",
    headers: { authorization: `Bearer ${owner.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${fn}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const sitemap = await call("parse-sitemap", { url: `${site.origin}/sitemap.xml` });
const urls: string[] = sitemap.urls.map((u: { loc: string }) => u.loc);
const perRound: number[] = [];
let pages = 0;
let products = 0;
const t0 = performance.now();
for (let r = 0; r < rounds; r++) {
  const ws = await createWorkspace(p, owner.id, {}, `Bench ${r}`);
  const { data: s, error } = await owner.client.from("scraping_sessions").insert({ workspace_id: ws }).select(
    "id",
  ).single();
  if (error) throw new Error(error.message);
  const ins = await owner.client.from("scraping_pages").insert(
    urls.map((url, position) => ({ session_id: s.id, url, position })),
  );
  if (ins.error) throw new Error(ins.error.message);
  llm.reset();
  for (const prod of site.products.filter((x) => x.kind === "llm")) {
    llm.reply(JSON.stringify({ materials: [{ name: prod.name, price: prod.price, currency: "EUR" }] }));
  }
  const start = performance.now();
  await call("scrape-session-manager", { sessionId: s.id, action: "start" });
  const end = await activeRuns.get(s.id);
  const seconds = (performance.now() - start) / 1000;
  if (end !== "completed") throw new Error(`round ${r}: session ended ${end}`);
  const [row] = (await p.db.query<{ processed_pages: number; products_created: number }>(
    `select processed_pages, products_created from public.scraping_sessions where id = $1`,
    [s.id],
  )).rows;
  pages += row.processed_pages;
  products += row.products_created;
  perRound.push(row.processed_pages / seconds);
}
const total = (performance.now() - t0) / 1000;
const sorted = [...perRound].sort((a, b) => a - b);
console.log(
  `pipeline: ${rounds} sessions x ${urls.length} pages (host concurrency ${concurrency}, no delay, LLM stand-in)`,
);
console.log(
  `  pages/s per session: p50=${percentile(sorted, 50).toFixed(1)} min=${sorted[0].toFixed(1)} max=${
    sorted.at(-1)!.toFixed(1)
  }`,
);
console.log(
  `  overall: ${pages} pages, ${products} products in ${total.toFixed(2)} s = ${
    (pages / total).toFixed(1)
  } pages/s`,
);

// The structured extractor alone, on the site's product pages.
const htmls = await Promise.all(
  site.products.filter((x) => x.kind !== "llm").map(async (
    x,
  ) => [await (await fetch(`${site.origin}${x.path}`)).text(), x.path]),
);
const n = 2000;
const e0 = performance.now();
for (let i = 0; i < n; i++) {
  const [html, path] = htmls[i % htmls.length];
  if (extractStructuredProducts(html, `${site.origin}${path}`).length !== 1) {
    throw new Error(`no product on ${path}`);
  }
}
const es = (performance.now() - e0) / 1000;
console.log(`structured extractor: ${n} pages in ${es.toFixed(2)} s = ${(n / es).toFixed(0)} pages/s`);

await site.close();
await p.stop();
