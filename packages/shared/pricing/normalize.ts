/**
 * Canonical forms for the identifiers prices are matched on: SKUs, units, currencies,
 * manufacturer names and product-name tokens. Units are only renamed to one spelling
 * (m² -> m2, pcs -> piece); nothing here converts between units.
 */

/** Comparison key of an article number: case, spaces and punctuation do not count ("mp-100" = "MP 100"). */
export function skuKey(sku: string): string {
  return sku.normalize("NFKC").toUpperCase().replace(/[^\p{L}\p{N}]/gu, "");
}

const UNIT_SYNONYMS: Record<string, string> = {
  m2: "m2",
  sqm: "m2",
  sqmeter: "m2",
  sqmetre: "m2",
  squaremeter: "m2",
  squaremetre: "m2",
  squaremeters: "m2",
  squaremetres: "m2",
  qm: "m2",
  m3: "m3",
  cbm: "m3",
  cubicmeter: "m3",
  cubicmetre: "m3",
  pc: "piece",
  pcs: "piece",
  pce: "piece",
  piece: "piece",
  pieces: "piece",
  stk: "piece",
  stck: "piece",
  stuck: "piece",
  ea: "piece",
  each: "piece",
  unit: "piece",
  units: "piece",
  item: "piece",
  items: "piece",
  box: "box",
  boxes: "box",
  carton: "box",
  cartons: "box",
  ctn: "box",
  ctns: "box",
  karton: "box",
  pack: "pack",
  packs: "pack",
  pk: "pack",
  pkg: "pack",
  package: "pack",
  bag: "bag",
  bags: "bag",
  sack: "bag",
  sacks: "bag",
  kg: "kg",
  kgs: "kg",
  kilogram: "kg",
  kilograms: "kg",
  g: "g",
  t: "t",
  ton: "t",
  tonne: "t",
  tonnes: "t",
  l: "l",
  lt: "l",
  ltr: "l",
  litre: "l",
  liter: "l",
  litres: "l",
  liters: "l",
  ml: "ml",
  m: "m",
  lm: "m",
  lfm: "m",
  rm: "m",
  meter: "m",
  metre: "m",
  meters: "m",
  metres: "m",
  linearm: "m",
  linearmeter: "m",
  linearmetre: "m",
  runningm: "m",
  runningmeter: "m",
  runningmetre: "m",
  pallet: "pallet",
  pallets: "pallet",
  pal: "pallet",
  roll: "roll",
  rolls: "roll",
  set: "set",
  sets: "set",
  pair: "pair",
  pairs: "pair",
};

/** Canonical unit ("m²" -> "m2", "Pcs." -> "piece"); unknown units are lower-cased as written. */
export function normalizeUnit(raw: string): string | null {
  const s = raw.normalize("NFKC").toLowerCase().replace(/²/g, "2").replace(/³/g, "3")
    .replace(/^\s*(?:per|pro|je|\/)\s*/, "").trim();
  if (!s) return null;
  const key = s.replace(/[^a-z0-9]/g, "");
  return UNIT_SYNONYMS[key] ?? s.replace(/\s+/g, " ");
}

/** True when the text is one of the known unit spellings (used to tell units from other words). */
export function isKnownUnit(raw: string): boolean {
  const key = raw.normalize("NFKC").toLowerCase().replace(/²/g, "2").replace(/³/g, "3").replace(
    /[^a-z0-9]/g,
    "",
  );
  return key in UNIT_SYNONYMS;
}

/** Currency markers recognised in amounts and headers. "$" is read as USD (documented choice). */
export const CURRENCY_PATTERN = /€|\$|£|\b(?:EUR|USD|GBP|CHF|PLN|CZK|SEK|NOK|DKK|HUF|RON)\b|\beuros?\b|zł/gi;

function normalizeCurrency(marker: string): string | null {
  const m = marker.trim().toLowerCase();
  if (m === "€" || m === "eur" || m === "euro" || m === "euros") return "EUR";
  if (m === "$" || m === "usd") return "USD";
  if (m === "£" || m === "gbp") return "GBP";
  if (m === "zł" || m === "pln") return "PLN";
  if (/^[a-z]{3}$/.test(m)) return m.toUpperCase();
  return null;
}

/** Distinct currencies named in a text. */
export function currenciesIn(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(CURRENCY_PATTERN)) {
    const c = normalizeCurrency(m[0]);
    if (c) found.add(c);
  }
  return [...found];
}

function fold(s: string): string {
  return s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

const LEGAL_SUFFIXES = new Set([
  "spa",
  "srl",
  "sa",
  "sl",
  "gmbh",
  "ag",
  "kg",
  "ltd",
  "limited",
  "inc",
  "llc",
  "plc",
  "bv",
  "nv",
  "co",
  "corp",
  "group",
  "grupo",
  "gruppo",
]);

/**
 * Tokenisers are pure and called with the same few names for every rule of every lookup, so
 * their results are cached (frozen, so a caller cannot alter a shared answer).
 */
function memoize(fn: (s: string) => string[]): (s: string) => readonly string[] {
  const cache = new Map<string, readonly string[]>();
  return (s) => {
    let v = cache.get(s);
    if (!v) {
      if (cache.size >= 50_000) cache.clear();
      v = Object.freeze(fn(s));
      cache.set(s, v);
    }
    return v;
  };
}

/** Manufacturer tokens without punctuation and legal-form words ("MAPEI S.p.A." -> ["mapei"]). */
export const manufacturerTokens = memoize((name) => {
  const collapsed = fold(name).replace(/\b([a-z])\.(?=[a-z]\.)/g, "$1").replace(/\./g, "");
  return collapsed.split(/[^\p{L}\p{N}&]+/u).filter((t) => t && !LEGAL_SUFFIXES.has(t));
});

/**
 * Two manufacturer names denote the same company when, after dropping legal forms, the tokens of
 * one are all contained in the other ("Porcelanosa" = "Porcelanosa Grupo", "Mapei" = "MAPEI S.p.A.").
 */
export function sameManufacturer(a: string, b: string): boolean {
  const ta = manufacturerTokens(a);
  const tb = manufacturerTokens(b);
  if (!ta.length || !tb.length) return false;
  const [small, big] = ta.length <= tb.length ? [ta, new Set(tb)] : [tb, new Set(ta)];
  return small.every((t) => big.has(t));
}

const STOPWORDS = new Set([
  "and",
  "the",
  "of",
  "for",
  "with",
  "in",
  "a",
  "an",
  "x",
  "de",
  "di",
  "und",
  "mit",
  "per",
]);
const NUMBER_WITH_UNIT = /^(\d+(?:[.,]\d+)?)(mm|cm|m|kg|g|l|ml|m2|m3)$/;

/**
 * Product-name tokens: accent- and case-folded words, "25kg" split into "25" + "kg", sizes such as
 * "60x60" kept whole, a plural "s" dropped (tiles = tile), stopwords removed.
 */
export const nameTokens = memoize((name) => {
  const s = fold(name).replace(/×/g, "x").replace(/²/g, "2").replace(/³/g, "3");
  const out: string[] = [];
  for (const raw of s.split(/[^\p{L}\p{N}.,]+/u)) {
    const w = raw.replace(/^[.,]+|[.,]+$/g, "");
    if (!w || STOPWORDS.has(w)) continue;
    const nu = NUMBER_WITH_UNIT.exec(w);
    if (nu) {
      out.push(nu[1].replace(",", "."), nu[2]);
      continue;
    }
    if (/^\d+(?:[.,]\d+)?(?:x\d+(?:[.,]\d+)?)+$/.test(w)) {
      out.push(w.replace(/,/g, "."));
      continue;
    }
    for (const part of w.split(/[.,]/)) {
      if (!part || STOPWORDS.has(part)) continue;
      out.push(part.length > 3 && part.endsWith("s") && !part.endsWith("ss") ? part.slice(0, -1) : part);
    }
  }
  return [...new Set(out)];
});

/** Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`. */
function boundedEditDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    prev = cur;
  }
  return prev[b.length];
}

/** Tokens equal for matching: identical, or both words of 5+ letters one typo apart. */
export function tokensMatch(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length < 5 || b.length < 5 || /\d/.test(a) || /\d/.test(b)) return false;
  return boundedEditDistance(a, b, 1) <= 1;
}
