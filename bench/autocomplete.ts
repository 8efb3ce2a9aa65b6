/**
 * Search autocomplete latency (gateway action `autocomplete`, AI backend POST
 * /api/search/autocomplete) over a realistic catalog: the caller's workspace holds --products
 * building-materials products (default 10,000) and --queries logged searches (default 5,000);
 * a second tenant holds as many products that must never show up. Prefixes are what people
 * type: 1 to 3 characters, whole words, word + start of the next, misspellings that match
 * nothing. Target: p99 under 10 ms for the SQL function (search_autocomplete, what grows with the
 * catalog); the HTTP figures add the backend's caller resolution, the role lookup and one
 * PostgREST round trip.
 *
 *   npx -y deno@2.9.6 run -A bench/autocomplete.ts [--products 10000] [--queries 5000] [--samples 400]
 */
import { parseArgs } from "node:util";
import { createUser, createWorkspace, startEphemeralPlatform } from "../fixtures/platform.ts";
import { seededRandom } from "../fixtures/random.ts";
import { sqlAs } from "../fixtures/sql.ts";
import { fmtLoad, load } from "./lib.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    products: { type: "string", default: "10000" },
    queries: { type: "string", default: "5000" },
    samples: { type: "string", default: "400" },
  },
});
const PRODUCTS = Number(values.products);
const QUERIES = Number(values.queries);
const SAMPLES = Number(values.samples);

const rnd = seededRandom(25);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const MATERIALS = [
  "Porcelain tile",
  "Ceramic tile",
  "Oak parquet",
  "Walnut parquet",
  "Laminate flooring",
  "Vinyl plank",
  "Plasterboard",
  "Gypsum plaster",
  "Cement",
  "Tile adhesive",
  "Grout",
  "Mineral wool",
  "Glass wool",
  "EPS insulation board",
  "XPS insulation board",
  "OSB board",
  "Plywood",
  "MDF board",
  "Clay brick",
  "Concrete block",
  "Aerated concrete block",
  "Roof tile",
  "Bitumen shingle",
  "Waterproofing membrane",
  "Silicone sealant",
  "Interior paint",
  "Facade paint",
  "Primer",
  "Floor screed",
  "Rebar",
  "Marble slab",
  "Granite slab",
  "Quartz worktop",
  "Mixer tap",
  "Washbasin",
  "Skirting board",
  "Rain gutter",
  "Timber beam",
  "Decking board",
  "Paving stone",
] as const;
const BRANDS = ["Atlas", "Nordic", "Terra", "Vega", "Solid", "Prime", "Alpina", "Stone&Co", "Marco", "Lumen"];
const SIZES = [
  "60x60",
  "30x60",
  "120x60",
  "14 mm",
  "12.5 mm",
  "25 kg",
  "5 l",
  "2400x1200",
  "100 mm",
  "18 mm",
];
const COLOURS = [
  "grey",
  "white",
  "anthracite",
  "beige",
  "natural",
  "black",
  "sand",
  "oak",
  "walnut",
  "ivory",
];

function productName(): string {
  return `${pick(MATERIALS)} ${pick(BRANDS)} ${pick(SIZES)} ${pick(COLOURS)}`;
}

const p = await startEphemeralPlatform();
try {
  const user = await createUser(p, "bench-autocomplete");
  const other = await createUser(p, "bench-autocomplete-other");
  const ws = await createWorkspace(p, user.id, {}, "Catalog");
  const otherWs = await createWorkspace(p, other.id, {}, "Other tenant");

  const t0 = performance.now();
  for (const [workspace, n] of [[ws, PRODUCTS], [otherWs, PRODUCTS]] as const) {
    for (let i = 0; i < n; i += 1000) {
      const names = Array.from({ length: Math.min(1000, n - i) }, productName);
      await p.db.query(
        `insert into public.products (workspace_id, name, category) select $1, x, 'bench' from unnest($2::text[]) x`,
        [workspace, names],
      );
    }
  }
  // Logged searches: popular ones repeat (Zipf-like), spread over 60 days.
  const vocabulary = [...MATERIALS.map((m) => m.toLowerCase()), ...BRANDS.map((b) => b.toLowerCase())];
  const queries = Array.from({ length: QUERIES }, () => {
    const base = vocabulary[Math.floor(Math.pow(rnd(), 2) * vocabulary.length)];
    return rnd() < 0.4 ? `${base} ${pick(SIZES)}` : base;
  });
  await p.db.query(
    `insert into public.search_queries (workspace_id, user_id, query, results_count, created_at)
     select $1, $2, q, 10, now() - random() * interval '60 days' from unnest($3::text[]) q`,
    [ws, user.id, queries],
  );
  await p.db.exec(`analyze public.products; analyze public.search_queries;`);
  const loadSeconds = (performance.now() - t0) / 1000;
  console.log(
    `catalog: ${PRODUCTS} products + ${PRODUCTS} of another tenant, ${QUERIES} logged queries, loaded in ${
      loadSeconds.toFixed(1)
    } s`,
  );

  const prefixes = [
    "p",
    "po",
    "por",
    "porc",
    "porcelain",
    "porcelain t",
    "til",
    "tile",
    "oak",
    "oak p",
    "pl",
    "plas",
    "plasterboard",
    "ad",
    "adhes",
    "grey",
    "60x",
    "nordic",
    "atlas oak",
    "cem",
    "roof",
    "mineral w",
    "qu",
    "quartz wor",
    "xyzzy",
    "grout prime",
    "m",
    "ma",
    "marb",
    "deck",
  ];
  let k = 0;
  const next = () => prefixes[k++ % prefixes.length];

  // Correctness spot check: nothing of the other tenant, sensible first hits.
  const sample = await sqlAs<{ r: { text: string; type: string; workspace_id?: string }[] }>(
    p,
    { role: "service_role" },
    `select public.search_autocomplete($1, 'porc', 10) as r`,
    [[ws]],
  );
  const hits = sample[0].r;
  if (hits.some((h) => h.type === "product" && h.workspace_id !== ws)) {
    throw new Error("another tenant's product");
  }
  console.log(`"porc" -> ${hits.map((h) => `${h.type}:${h.text}`).slice(0, 4).join(" | ")} ...`);

  const sql = await load(async () => {
    const rows = await sqlAs(
      p,
      { role: "service_role" },
      `select public.search_autocomplete($1, $2, 10) as r`,
      [
        [ws],
        next(),
      ],
    );
    return rows.length === 1;
  }, { requests: SAMPLES, concurrency: 1, warmup: 30 });
  console.log(fmtLoad("search_autocomplete (SQL, limit 10)", sql));

  // Per prefix: median and worst of 9 runs, to show which kind of prefix costs what.
  const perPrefix: string[] = [];
  for (const prefix of prefixes) {
    const times: number[] = [];
    for (let i = 0; i < 9; i++) {
      const s = performance.now();
      await sqlAs(p, { role: "service_role" }, `select public.search_autocomplete($1, $2, 10)`, [
        [ws],
        prefix,
      ]);
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    perPrefix.push(`${JSON.stringify(prefix)} ${times[4].toFixed(1)}/${times[8].toFixed(1)}`);
  }
  console.log(`median/worst ms per prefix: ${perPrefix.join(", ")}`);

  const backend = p.env.AI_BACKEND_URL;
  const http = (concurrency: number) =>
    load(async () => {
      const res = await fetch(`${backend}/api/search/autocomplete`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ query: next(), limit: 10 }),
      });
      await res.body?.cancel();
      return res.status === 200;
    }, { requests: SAMPLES, concurrency, warmup: 20 });
  console.log(fmtLoad("POST /api/search/autocomplete (HTTP, c=1)", await http(1)));
  console.log(fmtLoad("POST /api/search/autocomplete (HTTP, c=4)", await http(4)));
  console.log(
    `target: SQL p99 < 10 ms -> ${sql.p99 < 10 ? "met" : "NOT met"} (p99 ${sql.p99.toFixed(2)} ms)`,
  );
} finally {
  await p.stop();
}
