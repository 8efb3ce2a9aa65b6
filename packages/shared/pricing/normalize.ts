/**
 * Canonical forms for the identifiers prices are matched on: SKUs, units, currencies,
 * manufacturer names and product-name tokens. Units are only renamed to one spelling
 * (m² -> m2, pcs -> piece, mq -> m2, Stk -> piece, Palette -> pallet, pièce -> piece, "square
 * metre" -> m2); nothing here converts between units (a conversion the document states is read by
 * parse/context.ts and applied by base_price.ts).
 *
 * "ml" is millilitre here; in Italian and French trade documents it is the running metre (metro
 * lineare, mètre linéaire): parse/mod.ts re-reads it as "m" for such documents (see there).
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
  mq: "m2",
  squarem: "m2",
  mqs: "m2",
  metroquadrato: "m2",
  metriquadrati: "m2",
  metriquadri: "m2",
  quadratmeter: "m2",
  metrecarre: "m2",
  metrescarres: "m2",
  m3: "m3",
  cubicm: "m3",
  cubicmeters: "m3",
  cubicmetres: "m3",
  cum: "m3",
  metrocubo: "m3",
  metricubi: "m3",
  kubikmeter: "m3",
  metrecube: "m3",
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
  stueck: "piece",
  pz: "piece",
  pzi: "piece",
  pezzo: "piece",
  pezzi: "piece",
  cad: "piece",
  cadauno: "piece",
  cadauna: "piece",
  unite: "piece",
  unites: "piece",
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
  kartons: "box",
  scatola: "box",
  scatole: "box",
  bucket: "bucket",
  buckets: "bucket",
  pail: "bucket",
  pails: "bucket",
  eimer: "bucket",
  secchio: "bucket",
  secchi: "bucket",
  seau: "bucket",
  seaux: "bucket",
  pack: "pack",
  packs: "pack",
  pk: "pack",
  pkg: "pack",
  package: "pack",
  confezione: "pack",
  confezioni: "pack",
  conf: "pack",
  paket: "pack",
  bag: "bag",
  bags: "bag",
  sack: "bag",
  sacks: "bag",
  sacco: "bag",
  sacchi: "bag",
  sac: "bag",
  sacs: "bag",
  sackware: "bag",
  kg: "kg",
  kgs: "kg",
  kilogram: "kg",
  kilograms: "kg",
  kilo: "kg",
  kilos: "kg",
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
  litro: "l",
  litri: "l",
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
  runningmetres: "m",
  runningmeters: "m",
  linearmeters: "m",
  linearmetres: "m",
  laufmeter: "m",
  laufendermeter: "m",
  laufendenmeter: "m",
  linm: "m",
  sqft: "ft2",
  ft2: "ft2",
  metro: "m",
  metri: "m",
  metrolineare: "m",
  metrilineari: "m",
  metrelineaire: "m",
  metreslineaires: "m",
  mlin: "m",
  pallet: "pallet",
  pallets: "pallet",
  pal: "pallet",
  palette: "pallet",
  paletten: "pallet",
  palettes: "pallet",
  bancale: "pallet",
  bancali: "pallet",
  roll: "roll",
  rolls: "roll",
  rolle: "roll",
  rollen: "roll",
  rotolo: "roll",
  rotoli: "roll",
  rouleau: "roll",
  rouleaux: "roll",
  set: "set",
  sets: "set",
  pair: "pair",
  pairs: "pair",
};

/** Lower case, accents dropped, ² and ³ as digits ("Stück" -> "stuck", "m²" -> "m2"). */
function unitKey(raw: string): string {
  return raw.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/²/g, "2").replace(/³/g, "3")
    .replace(/[^a-z0-9]/g, "");
}

/** Canonical unit ("m²" -> "m2", "Pcs." -> "piece"); unknown units are lower-cased as written. */
export function normalizeUnit(raw: string): string | null {
  const s = raw.normalize("NFKC").toLowerCase().replace(/²/g, "2").replace(/³/g, "3")
    .replace(/^\s*(?:per|pro|je|\/)\s*/, "").trim();
  if (!s) return null;
  return UNIT_SYNONYMS[unitKey(s)] ?? s.replace(/\s+/g, " ");
}

/** True when the text is one of the known unit spellings (used to tell units from other words). */
export function isKnownUnit(raw: string): boolean {
  return unitKey(raw) in UNIT_SYNONYMS;
}

/**
 * A unit as written after an amount, one word or a phrase of several ("square metre", "metro
 * lineare", "laufender Meter", "mètre linéaire"): the phrases first, so that "per square metre"
 * is not cut to "square".
 */
export const UNIT_PHRASE = String
  .raw`(?:(?:square|sq\.?|running|linear|lin\.?|cubic|cu\.?)\s*(?:met(?:er|re)s?|m\b\.?)|met(?:ro|ri)\s+(?:quadrat[oi]|quadri|lineari?|lineare|cub[oi])|m[eè]tres?\s+(?:carr[eé]s?|lin[eé]aires?|cubes?)|laufende[rn]?\s+Meter|sq\.?\s*ft|[\p{L}²³][\p{L}\p{N}²³]*)`;

/**
 * Currency markers recognised in amounts and headers: symbols, ISO codes and the words people
 * write ("euro", "Euro", "dollars", "pounds sterling", "Swiss francs", "SFr."). "$" and "dollars"
 * are read as USD, "£" and "sterling" as GBP (documented choices); a bare "pounds" is not a
 * currency (it is also a weight) and "Fr." alone is not either (French, francs?).
 */
export const CURRENCY_PATTERN =
  /US\$|€|\$|£|\b(?:EUR|USD|GBP|CHF|PLN|CZK|SEK|NOK|DKK|HUF|RON)\b|\beuros?\b|\bdollars?\b|\bpounds?\s+sterling\b|\bsterling\b|\bSFr\.?|\bswiss\s+francs?\b|\bfrancs?\s+suisses?\b|zł/gi;

/** The same markers as a regex source for use inside amount patterns (case spelt out, no i flag). */
export const CURRENCY_MARK = String
  .raw`US\$|€|\$|£|\bSFr\.|\b(?:EUR|USD|GBP|CHF|EURO|Euro|euro|Euros|euros|[Dd]ollars?|[Pp]ounds?\s+[Ss]terling|[Ss]terling|SFr|[Ss]wiss\s+[Ff]rancs?|[Ff]rancs?\s+[Ss]uisses?)\b`;

function normalizeCurrency(marker: string): string | null {
  const m = marker.trim().toLowerCase().replace(/\s+/g, " ");
  if (m === "€" || m === "eur" || m === "euro" || m === "euros") return "EUR";
  if (m === "$" || m === "usd" || m === "us$" || m === "dollar" || m === "dollars") return "USD";
  if (m === "£" || m === "gbp" || m === "sterling" || /^pounds? sterling$/.test(m)) return "GBP";
  if (m === "chf" || m === "sfr" || m === "sfr." || /franc/.test(m)) return "CHF";
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
  "ek",
  "sas",
  "sarl",
  "ohg",
  "gesmbh",
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
