/**
 * Price engine benchmark (pure engine, no I/O): parse 1,000 synthetic Pricing documents, build
 * the index once, then time a few thousand lookups (SKU, name, and unknown-product requests).
 *
 *   deno run -A bench/pricing.ts [lookups=5000] [seed=7]
 *
 * The documents are generated from a seeded PRNG, so runs are comparable.
 */
import {
  buildPriceIndex,
  lookupPrice,
  parsePriceDocuments,
  type PriceDocumentInput,
  type PriceLookupInput,
} from "../packages/shared/pricing/mod.ts";
import { seededRandom } from "../fixtures/random.ts";

const LOOKUPS = Number(Deno.args[0] ?? 5000);
const SEED = Number(Deno.args[1] ?? 7);

const rnd = seededRandom(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

const MANUFACTURERS = Array.from({ length: 40 }, (_, i) => `Maker${String.fromCharCode(65 + (i % 26))}${i}`);
const SERIES = [
  "Keraflex",
  "Ultracolor",
  "Mapelastic",
  "Granito",
  "Marmol",
  "Treverk",
  "Grande",
  "Planitop",
  "Fugabella",
  "Aquadefense",
  "Kerabond",
  "Eco",
];
const KINDS = [
  "adhesive",
  "grout",
  "tile",
  "primer",
  "membrane",
  "sealant",
  "mortar",
  "screed",
  "panel",
  "profile",
];
const COLOURS = ["grey", "white", "anthracite", "beige", "ivory", "black", "sand", "silver"];
const SIZES = ["5 kg", "25 kg", "60x60", "120x120", "30x60", "20x120", "10 l", "310 ml"];
const UNITS = ["bag", "m²", "pcs", "box", "kit", "sqm"];

interface Product {
  sku: string;
  name: string;
  manufacturer: string;
  unit: string;
}
const products: Product[] = [];

function money(v: number, style: number): string {
  const [w, f] = v.toFixed(2).split(".");
  const grouped = (sep: string) => w.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  switch (style) {
    case 0:
      return `${grouped(".")},${f} €`;
    case 1:
      return `€${grouped(",")}.${f}`;
    case 2:
      return `EUR ${w}.${f}`;
    default:
      return `${w},${f}`;
  }
}

function priceList(i: number): PriceDocumentInput {
  const mfr = pick(MANUFACTURERS);
  const style = int(0, 3);
  const tiered = rnd() < 0.4;
  const header = tiered
    ? "| Art. No. | Description | Unit | 1-49 | 50+ | ≥200 |"
    : "| SKU | Product | Brand | UoM | List price | MOQ |";
  const rows: string[] = [];
  for (let r = 0; r < int(8, 20); r++) {
    const p: Product = {
      sku: `${mfr.slice(0, 3).toUpperCase()}-${i}-${r}`,
      name: `${pick(SERIES)} ${pick(KINDS)} ${pick(COLOURS)} ${pick(SIZES)}`,
      manufacturer: mfr,
      unit: pick(UNITS),
    };
    products.push(p);
    const base = 2 + rnd() * 1500;
    rows.push(
      tiered
        ? `| ${p.sku} | ${p.name} | ${p.unit} | ${money(base, style)} | ${money(base * 0.96, style)} | ${
          money(base * 0.92, style)
        } |`
        : `| ${p.sku} | ${p.name} | ${mfr} | ${p.unit} | ${money(base, style)} | ${
          rnd() < 0.2 ? int(5, 50) : ""
        } |`,
    );
  }
  const content = [
    `# ${mfr} price list`,
    tiered ? `Manufacturer: ${mfr}` : "",
    "All prices in EUR",
    `Valid from 2026-0${int(1, 3)}-01`,
    "",
    header,
    header.replace(/[^|]+/g, "---"),
    ...rows,
  ].join("\n");
  return { id: `pl-${i}`, title: `${mfr} list ${i}`, price_doc_type: "price_list", content };
}

function ruleDoc(i: number): PriceDocumentInput {
  const mfr = pick(MANUFACTURERS);
  const kind = pick(["discount_rule", "discount_rule", "contract_terms", "promotion"] as const);
  const pct = int(2, 25);
  const text = kind === "discount_rule"
    ? pick([
      `All ${mfr} products ${pct}% off`,
      `${pct} % discount on manufacturer ${mfr}`,
      `- ${pct}% on all products, valid until 31.12.2026`,
    ])
    : kind === "contract_terms"
    ? `Negotiated discount with ${mfr}: ${pct}% on orders above ${int(10, 200)} m2`
    : `Promo ${pct}% off ${mfr} ${pick(KINDS)}s, valid 2026-0${int(1, 4)}-01 to 2026-0${int(5, 9)}-30`;
  return { id: `r-${i}`, title: `${kind} ${i}`, price_doc_type: kind, content: text };
}

const docs: PriceDocumentInput[] = Array.from(
  { length: 1000 },
  (_, i) => (i < 700 ? priceList(i) : ruleDoc(i)),
);

const t0 = performance.now();
const parsed = parsePriceDocuments(docs);
const t1 = performance.now();
const index = buildPriceIndex(parsed);
const t2 = performance.now();
const entries = parsed.reduce((n, d) => n + d.entries.length, 0);

type Kind = "sku" | "name" | "unknown";
const kindOf = (r: PriceLookupInput): Kind => (r.sku ? "sku" : r.manufacturer ? "name" : "unknown");
const requests: PriceLookupInput[] = Array.from({ length: LOOKUPS }, () => {
  const p = pick(products);
  const r = rnd();
  const today = "2026-04-15";
  if (r < 0.5) return { product_name: p.name, sku: p.sku, quantity: int(1, 300), today };
  if (r < 0.85) {
    return {
      product_name: p.name.split(" ").slice(0, 3).join(" "),
      manufacturer: p.manufacturer,
      quantity: int(1, 100),
      today,
    };
  }
  return { product_name: `Unknown ${pick(KINDS)} ${int(1, 999)}`, today };
});

for (const req of requests.slice(0, 200)) lookupPrice(req, index); // warm-up
const times: number[] = [];
const byKind: Record<Kind, number[]> = { sku: [], name: [], unknown: [] };
const outcome = { high: 0, medium: 0, low: 0 };
for (const req of requests) {
  const s = performance.now();
  const { proposal } = lookupPrice(req, index);
  const ms = performance.now() - s;
  times.push(ms);
  byKind[kindOf(req)].push(ms);
  outcome[proposal.confidence]++;
}
const quantile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};
times.sort((a, b) => a - b);
const q = (p: number) => quantile(times, p);
const mean = times.reduce((a, b) => a + b, 0) / times.length;

console.log(`pricing bench (seed ${SEED})`);
console.log(
  `  parse   ${docs.length} documents -> ${entries} entries in ${(t1 - t0).toFixed(1)} ms (${
    ((t1 - t0) / docs.length).toFixed(3)
  } ms/doc)`,
);
console.log(
  `  index   ${index.identities.length} products, ${index.rules.length} rules in ${(t2 - t1).toFixed(1)} ms`,
);
console.log(
  `  lookup  ${LOOKUPS} lookups: p50 ${q(0.5).toFixed(3)} ms, p99 ${q(0.99).toFixed(3)} ms, mean ${
    mean.toFixed(3)
  } ms, max ${times.at(-1)!.toFixed(3)} ms`,
);
for (const k of ["sku", "name", "unknown"] as const) {
  const xs = byKind[k];
  console.log(
    `    ${k.padEnd(7)} n=${xs.length}: p50 ${quantile(xs, 0.5).toFixed(3)} ms, p99 ${
      quantile(xs, 0.99).toFixed(3)
    } ms`,
  );
}
console.log(`  results high ${outcome.high}, medium ${outcome.medium}, low ${outcome.low}`);
