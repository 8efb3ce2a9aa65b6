/**
 * The sandbox model's reading of a request (model_brain.ts decides with it): words and word
 * overlap, "Label: value" lookups, JSON Schema navigation and a validity check for the subset
 * tool schemas use, and the parsers of the platform's prompts (sources of a RAG answer, candidates
 * of a re-rank, pages of a catalogue, a price question). Pure functions; no randomness.
 */
import { z } from "zod";

export type Schema = Record<string, unknown>;

// ---- words --------------------------------------------------------------------------------------

const STOP = new Set(
  ("a an and are as at be by can do does for from has have how i in is it its me my of on or our please " +
    "show tell that the their them there these this to was we what when where which who why will with you " +
    "your any some all about into per than then also just").split(" "),
);

/** One spelling per word: lower case, British spellings and plurals folded. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/colour/g, "color").replace(/catalogue/g, "catalog");
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(xes|ches|shes|sses)$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  return w;
}

/** The content words of a text, stemmed (identifiers split on _ and -). */
export function termsOf(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).map(stem).filter((w) => !STOP.has(w));
}

/** How many distinct terms of `terms` occur in `text`'s terms. */
export function overlap(terms: readonly string[], text: Set<string>): number {
  return new Set(terms.filter((t) => text.has(t))).size;
}

// ---- labels -------------------------------------------------------------------------------------

/** Label words a property's value is written under, by the property's words. */
const SYNONYMS: Record<string, string[]> = {
  name: ["product name", "product", "name", "title", "item"],
  title: ["title", "name", "product name"],
  sku: [
    "sku",
    "code",
    "product code",
    "item code",
    "article",
    "article number",
    "art no",
    "ref",
    "reference",
  ],
  code: ["code", "sku", "product code"],
  manufacturer: ["manufacturer", "brand", "maker", "producer"],
  brand: ["brand", "manufacturer", "maker"],
  price: ["price", "unit price", "list price", "cost"],
  currency: ["currency"],
  unit: ["unit", "price unit", "per"],
  dimension: ["dimensions", "dimension", "size", "sizes", "format"],
  color: ["colors", "color", "colours", "colour"],
  material: ["materials", "material"],
  description: ["description", "about"],
  category: ["category", "type", "product type"],
  finish: ["finish", "finishes", "surface"],
  pattern: ["pattern", "patterns"],
  application: ["application", "applications", "use", "usage"],
  certification: ["certification", "certifications", "certificate", "standard", "standards"],
};

/** The label phrases that may carry a property's value. */
export function labelsFor(property: string): string[] {
  const words = property.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase().split(/[_\-\s]+/).filter(Boolean);
  const key = words.map(stem).find((w) => SYNONYMS[w]) ?? words.map(stem).at(-1) ?? property;
  return [...new Set([words.join(" "), ...(SYNONYMS[key] ?? [key])])];
}

/**
 * The value written under one of `labels` in `text`: a "Label: value" (or "Label = value",
 * "Label - value") line, a "| Label | value |" table row, or a "Label value" phrase when the value
 * starts with a digit or an upper-case code. Null when none.
 */
export function labelValue(text: string, labels: readonly string[]): string | null {
  const lines = text.split(/\r?\n/);
  const want = new Set(labels.map((l) => termsOf(l).join(" ")));
  for (const line of lines) {
    const m = /^\s*(?:[-*•]\s*)?([\p{L}][\p{L}\p{N} /().'-]{0,40}?)\s*(?::|=|\s-\s|\t)\s*(.+?)\s*$/u.exec(
      line,
    );
    if (m && want.has(termsOf(m[1]).join(" ")) && m[2].trim()) return m[2].trim();
    const cells = line.split("|").map((c) => c.trim()).filter(Boolean);
    if (line.includes("|") && cells.length >= 2 && want.has(termsOf(cells[0]).join(" "))) return cells[1];
  }
  for (const label of labels) {
    const re = new RegExp(`\\b${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s+([0-9A-Z][\\w.,/-]*)`, "i");
    const m = re.exec(text);
    if (m) return m[1].replace(/[.,]$/, "");
  }
  return null;
}

/** The first number in a text ("1.234,50" and "1,234.50" both read), or null. */
export function numberIn(text: string): number | null {
  const m = /-?\d{1,3}(?:[ ,.]\d{3})*(?:[.,]\d+)?|-?\d+(?:[.,]\d+)?/.exec(text);
  if (!m) return null;
  let s = m[0].replace(/ /g, "");
  const lastSep = Math.max(s.lastIndexOf("."), s.lastIndexOf(","));
  if (lastSep >= 0 && s.length - lastSep - 1 !== 3) {
    s = s.slice(0, lastSep).replace(/[.,]/g, "") + "." + s.slice(lastSep + 1);
  } else s = s.replace(/[.,]/g, "");
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

const CURRENCIES: [RegExp, string][] = [
  [/€|\beur(?:o|os)?\b/i, "EUR"],
  [/\$|\busd\b/i, "USD"],
  [/£|\bgbp\b/i, "GBP"],
  [/\bchf\b/i, "CHF"],
  [/\bsek\b/i, "SEK"],
  [/\bdkk\b/i, "DKK"],
  [/\bnok\b/i, "NOK"],
  [/\bpln\b/i, "PLN"],
];

export function currencyIn(text: string): string | null {
  return CURRENCIES.find(([re]) => re.test(text))?.[1] ?? null;
}

/** A price in a text: a number next to a currency sign or code. */
export function priceIn(text: string): { amount: number; currency: string } | null {
  const m =
    /(?:(€|\$|£|\b(?:EUR|USD|GBP|CHF|SEK|DKK|NOK|PLN)\b)\s?(\d[\d.,]*))|(?:(\d[\d.,]*)\s?(€|\$|£|\b(?:EUR|USD|GBP|CHF|SEK|DKK|NOK|PLN)\b))/i
      .exec(text);
  if (!m) return null;
  const amount = numberIn(m[2] ?? m[3]);
  const currency = currencyIn(m[1] ?? m[4]);
  return amount === null || !currency ? null : { amount, currency };
}

// ---- vocabularies for catalogue attributes ------------------------------------------------------

export const VOCAB: Record<string, string[]> = {
  color: ("white black grey gray anthracite beige brown natural red blue green yellow orange cream ivory " +
    "sand taupe silver gold walnut oak terracotta").split(" "),
  material: ("oak walnut ash beech pine wood timber bamboo slate marble granite limestone travertine " +
    "sandstone stone ceramic porcelain terracotta concrete cement vinyl laminate linoleum cork glass steel " +
    "aluminium aluminum brass copper zinc plaster gypsum brick quartz").split(" "),
  finish:
    "brushed oiled lacquered varnished matt matte polished honed glazed satin textured cleft smooth sanded"
      .split(" "),
  pattern: "herringbone chevron plank hexagon mosaic striped veined".split(" "),
  application: "floor wall terrace bathroom kitchen outdoor indoor facade roof pool stair".split(" "),
  texture: "smooth rough grainy textured cleft glossy matt brushed".split(" "),
};

/** Vocabulary words of `kind` found in the text, in the order they appear. */
export function vocabIn(text: string, kind: string): string[] {
  const terms = new Set(termsOf(text));
  const found = (VOCAB[kind] ?? []).filter((w) => terms.has(stem(w)));
  const lower = text.toLowerCase();
  return found.sort((a, b) => lower.indexOf(a) - lower.indexOf(b));
}

/** Sizes written in the text: "60 x 30 cm", "20 mm thick", "1800 mm long". */
export function dimensionsIn(text: string): string[] {
  const out = new Set<string>();
  for (
    const m of text.matchAll(
      /\d+(?:[.,]\d+)?\s*[x×]\s*\d+(?:[.,]\d+)?(?:\s*[x×]\s*\d+(?:[.,]\d+)?)?\s*(?:mm|cm|m)\b/gi,
    )
  ) {
    out.add(m[0].replace(/\s+/g, " "));
  }
  for (const m of text.matchAll(/\d+(?:[.,]\d+)?\s*(?:mm|cm|m)\s+(?:thick|wide|long|high|deep)/gi)) {
    out.add(m[0].replace(/\s+/g, " ").toLowerCase());
  }
  return [...out].slice(0, 10);
}

export function certificationsIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/\b(?:EN|ISO|DIN|ASTM|BS)\s?\d{3,5}(?:-\d+)?\b|\bCE(?= mark)/g)) {
    out.add(m[0]);
  }
  return [...out].slice(0, 10);
}

// ---- JSON Schema --------------------------------------------------------------------------------

function obj(v: unknown): Schema {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Schema : {};
}

function deref(ref: string, root: Schema): Schema {
  let node: unknown = root;
  for (const raw of ref.replace(/^#/, "").split("/").filter(Boolean)) {
    node = obj(node)[decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return obj(node);
}

/** The schema with $ref, allOf and anyOf/oneOf (its first non-null branch) resolved. */
export function resolve(raw: unknown, root: Schema): Schema {
  let s = obj(raw);
  for (let hops = 0; typeof s.$ref === "string" && hops < 32; hops++) {
    const { $ref, ...rest } = s;
    s = { ...deref($ref as string, root), ...rest };
  }
  if (Array.isArray(s.allOf)) {
    let out: Schema = { ...s, allOf: undefined };
    for (const part of s.allOf) {
      const p = resolve(part, root);
      out = {
        ...out,
        ...p,
        properties: { ...obj(out.properties), ...obj(p.properties) },
        required: [...new Set([...(out.required as string[] ?? []), ...(p.required as string[] ?? [])])],
      };
    }
    s = out;
  }
  const branches = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null) as
    | unknown[]
    | null;
  if (branches?.length) {
    const { anyOf: _a, oneOf: _o, ...rest } = s;
    const branch = branches.find((b) => resolve(b, root).type !== "null") ?? branches[0];
    s = { ...rest, ...resolve(branch, root) };
  }
  return s;
}

export function typeOf(s: Schema): string {
  const t = Array.isArray(s.type) ? (s.type.find((x) => x !== "null") ?? s.type[0]) : s.type;
  if (typeof t === "string") return t;
  if (Array.isArray(s.enum)) return typeof s.enum[0] === "number" ? "number" : "string";
  if (s.properties || s.additionalProperties !== undefined) return "object";
  if (s.items !== undefined) return "array";
  return "string";
}

export function propertiesOf(s: Schema): [string, unknown][] {
  return Object.entries(obj(s.properties));
}

/** Whether `value` satisfies `raw` (the keywords tool schemas use; unknown keywords pass). */
export function fits(value: unknown, raw: unknown, root: Schema): boolean {
  if (raw === true || raw === undefined) return true;
  if (raw === false) return false;
  const original = obj(raw);
  const nullable = value === null && (Array.isArray(original.anyOf) || Array.isArray(original.oneOf) ||
    (Array.isArray(original.type) && original.type.includes("null")) || original.type === "null");
  if (nullable) return true;
  const s = resolve(raw, root);
  if ("const" in s) return JSON.stringify(s.const) === JSON.stringify(value);
  if (Array.isArray(s.enum)) return s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value));
  switch (typeOf(s)) {
    case "string": {
      if (typeof value !== "string") return false;
      if (typeof s.minLength === "number" && [...value].length < s.minLength) return false;
      if (typeof s.maxLength === "number" && [...value].length > s.maxLength) return false;
      if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) return false;
      return true;
    }
    case "integer":
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) return false;
      if (s.type === "integer" && !Number.isInteger(value)) return false;
      if (typeof s.minimum === "number" && value < s.minimum) return false;
      if (typeof s.maximum === "number" && value > s.maximum) return false;
      if (typeof s.exclusiveMinimum === "number" && value <= s.exclusiveMinimum) return false;
      if (typeof s.exclusiveMaximum === "number" && value >= s.exclusiveMaximum) return false;
      return true;
    }
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array": {
      if (!Array.isArray(value)) return false;
      if (typeof s.minItems === "number" && value.length < s.minItems) return false;
      if (typeof s.maxItems === "number" && value.length > s.maxItems) return false;
      return value.every((v) => fits(v, s.items, root));
    }
    case "object": {
      if (!value || typeof value !== "object" || Array.isArray(value)) return false;
      const o = value as Record<string, unknown>;
      for (const key of (s.required as string[] | undefined) ?? []) if (!(key in o)) return false;
      const props = obj(s.properties);
      for (const [key, v] of Object.entries(o)) {
        if (key in props) {
          if (!fits(v, props[key], root)) return false;
        } else if (s.additionalProperties === false) return false;
        else if (s.additionalProperties && typeof s.additionalProperties === "object") {
          if (!fits(v, s.additionalProperties, root)) return false;
        }
      }
      return true;
    }
    default:
      return true;
  }
}

/** `value` checked by zod against the whole tool schema (z.fromJSONSchema), or by fits(). */
export function validAgainst(value: unknown, schema: Schema): boolean {
  if (!fits(value, schema, schema)) return false;
  let validator: z.ZodType;
  try {
    const { $schema: _s, ...rest } = schema;
    validator = z.fromJSONSchema(rest as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (_) {
    return true; // a schema zod cannot read: fits() above is the check
  }
  return validator.safeParse(value).success;
}

// ---- the platform's prompts ---------------------------------------------------------------------

/** A text's sentences (split after . ! ? and at line breaks). */
export function sentencesOf(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Clips at a word boundary to at most `max` characters. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(0, max - 1));
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`.slice(0, max);
}

export interface Source {
  label: string;
  heading: string;
  content: string;
}

/** RAG sources as rag/answer.ts presents them: `[S1] (file, page 2)\ncontent`, up to "Question:". */
export function sourcesIn(text: string): { sources: Source[]; question: string } | null {
  const q = /(?:^|\n)Question:\s*([\s\S]+)$/.exec(text);
  const parts = [
    ...text.matchAll(/^\[([A-Za-z]*\d+)\]\s*(.*)\n([\s\S]*?)(?=^\[[A-Za-z]*\d+\]|\nQuestion:|$(?![\s\S]))/gm),
  ];
  if (!q || !parts.length) return null;
  return {
    sources: parts.map((m) => ({ label: m[1], heading: m[2].trim(), content: m[3].trim() })),
    question: q[1].trim(),
  };
}

/** Re-rank candidates: the objects with an `id` of the JSON arrays in the text, else `[id]` lines. */
export function candidatesIn(text: string): { id: string; text: string }[] {
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("[") || !t.endsWith("]")) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(t);
    } catch (_) {
      continue; // a line that only looks like JSON (e.g. "[p1] text"): read below
    }
    if (Array.isArray(parsed) && parsed.every((x) => x && typeof x === "object" && "id" in x)) {
      return parsed.map((x) => ({ id: String((x as Record<string, unknown>).id), text: JSON.stringify(x) }));
    }
  }
  return [...text.matchAll(/^\s*\[([^\]\s]+)\]\s*(.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
}

/** The query of a re-rank or search prompt: a "Query:" line (JSON-quoted or not). */
export function queryIn(text: string): string | null {
  const m = /^(?:Query|Search query|Question):\s*(.+)$/im.exec(text);
  if (!m) return null;
  const raw = m[1].trim();
  if (raw.startsWith('"')) {
    try {
      return String(JSON.parse(raw));
    } catch (_) {
      return raw.replace(/^"|"$/g, "");
    }
  }
  return raw;
}

export interface Page {
  number: number;
  text: string;
}

/** Pages of a catalogue text as the pipeline sends it (`--- Page N ---` markers). */
export function pagesIn(text: string): Page[] {
  const parts = [...text.matchAll(/^--- Page (\d+) ---\s*\n([\s\S]*?)(?=^--- Page \d+ ---|$(?![\s\S]))/gm)];
  return parts.map((m) => ({ number: Number(m[1]), text: m[2].trim() }));
}

const INDEX_LINE = /^(.*?\S)\s*(?:\.{2,}|…+|\s{2,}|\t)\s*(\d{1,4})\s*$/;

/** Whether a page is a table of contents or an index. */
export function isIndexPage(page: Page): boolean {
  const lines = page.text.split("\n").map((l) => l.trim()).filter(Boolean);
  if (/^(contents|table of contents|index|inhalt|sommaire)\b/i.test(lines[0] ?? "")) return true;
  return lines.length >= 2 && lines.filter((l) => INDEX_LINE.test(l)).length >= lines.length / 2;
}

export interface FoundProduct {
  name: string;
  page_start?: number;
  page_end?: number;
  /** The line or passage it was found in. */
  text: string;
}

const HEADING = /^[\p{Lu}\p{N}][\p{L}\p{N} &'./-]{1,80}$/u;

function looksLikeHeading(line: string): boolean {
  const words = line.split(/\s+/);
  return HEADING.test(line) && words.length <= 8 && !/[.:]$/.test(line) && words.length >= 1 &&
    words.filter((w) => /^[\p{Lu}\p{N}]/u.test(w)).length >= Math.ceil(words.length / 2);
}

/**
 * The products of a paged catalogue: the entries of its index pages (name .... page), else each
 * page's heading; a product runs from its page to the last following page that still names it
 * (and before the next product's first page).
 */
export function catalogueProducts(pages: Page[]): FoundProduct[] {
  const indexPages = new Set(pages.filter(isIndexPage).map((p) => p.number));
  const starts: { name: string; page: number }[] = [];
  for (const p of pages.filter((p) => indexPages.has(p.number))) {
    for (const line of p.text.split("\n")) {
      const m = INDEX_LINE.exec(line.trim());
      if (m && pages.some((x) => x.number === Number(m[2]))) {
        starts.push({ name: m[1].trim(), page: Number(m[2]) });
      }
    }
  }
  if (!starts.length) {
    for (const p of pages.filter((p) => !indexPages.has(p.number))) {
      const first = p.text.split("\n")[0]?.trim() ?? "";
      const heading = looksLikeHeading(first) ? first : /^(.{3,80}?)(?=\s+is\s+an?\s)/.exec(first)?.[1];
      if (!heading) continue;
      if (starts.some((s) => heading.toLowerCase().startsWith(s.name.toLowerCase()))) continue;
      starts.push({ name: heading.split(/\s+-\s+/)[0].trim(), page: p.number });
    }
  }
  starts.sort((a, b) => a.page - b.page);
  const numbers = pages.map((p) => p.number).sort((a, b) => a - b);
  return starts.map((s, i) => {
    const next = starts.slice(i + 1).find((x) => x.page > s.page)?.page ?? Infinity;
    let end = s.page;
    for (const n of numbers.filter((n) => n > s.page && n < next)) {
      const text = pages.find((p) => p.number === n)!.text.toLowerCase();
      if (!text.includes(s.name.toLowerCase())) break;
      end = n;
    }
    const page = pages.find((p) => p.number === s.page);
    return { name: s.name, page_start: s.page, page_end: end, text: page?.text ?? s.name };
  });
}

const CODE = /\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+\b/;

/** The SKU of a text: after "SKU"/"code"/"art." or a hyphenated code such as OP-123. */
export function skuIn(text: string): string | null {
  const labelled =
    /\b(?:sku|item code|product code|art(?:icle)?\.?\s*(?:no\.?|number)?)\s*[:#]?\s*([A-Za-z0-9][A-Za-z0-9-]*\d[A-Za-z0-9-]*)/i
      .exec(text);
  if (labelled) return labelled[1];
  return CODE.exec(text.replace(/\b\d+(?:[.,]\d+)?\s*[-–]\s*\d+\b/g, ""))?.[0] ?? null;
}

/**
 * Products listed line by line in a text (a web page, a price list, a table): lines with a name
 * and a code or a price, e.g. "Oak Parquet OP-123 42.50 EUR/m2" or "| Oak Parquet | OP-123 | 42.50 |".
 */
export function listedProducts(text: string): FoundProduct[] {
  const out: FoundProduct[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, "").trim();
    if (!line || line.length > 300) continue;
    const cells = line.includes("|") ? line.split("|").map((c) => c.trim()).filter(Boolean) : null;
    const sku = skuIn(line);
    const price = priceIn(line);
    if (!sku && !price) continue;
    let name = cells
      ? cells.find((c) => /\p{L}{3,}/u.test(c) && c !== sku && !priceIn(c)) ?? ""
      : line.split(/\s[-–|,;]\s|\t/)[0];
    if (sku) name = name.replace(sku, "");
    name = name.replace(/\b(?:sku|code|price)\b\s*[:#]?/gi, "").replace(
      /(€|\$|£)?\s?\d[\d.,]*\s?(€|\$|£|EUR|USD|GBP)?.*$/i,
      "",
    )
      .replace(/[\s:,;(\-–]+$/, "").trim();
    if (!/\p{L}{2,}/u.test(name) || /^(sku|code|name|product|price)$/i.test(name)) continue;
    if (out.some((p) => p.name === name)) continue;
    out.push({ name, text: line });
  }
  return out;
}

// ---- a price question ---------------------------------------------------------------------------

const UNITS: [RegExp, string][] = [
  [/^(?:m2|m²|sqm|sq\.?\s?m|square met(?:er|re)s?)$/i, "m2"],
  [/^(?:m3|m³|cubic met(?:er|re)s?)$/i, "m3"],
  [/^(?:lm|linear met(?:er|re)s?|running met(?:er|re)s?)$/i, "lm"],
  [/^(?:m|met(?:er|re)s?)$/i, "m"],
  [/^(?:pcs?|pieces?|units?|items?)$/i, "pcs"],
  [/^box(?:es)?$/i, "box"],
  [/^packs?$/i, "pack"],
  [/^pallets?$/i, "pallet"],
  [/^rolls?$/i, "roll"],
  [/^sheets?$/i, "sheet"],
  [/^bags?$/i, "bag"],
  [/^tiles?$/i, "tile"],
  [/^planks?$/i, "plank"],
  [/^(?:kg|kilos?|kilograms?)$/i, "kg"],
  [/^(?:l|lit(?:er|re)s?)$/i, "l"],
];
const UNIT_WORDS = "m2|m²|m3|m³|sqm|sq\\.?\\s?m|square met(?:er|re)s?|cubic met(?:er|re)s?|lm|" +
  "linear met(?:er|re)s?|running met(?:er|re)s?|met(?:er|re)s?|m|pcs?|pieces?|units?|items?|box(?:es)?|" +
  "packs?|pallets?|rolls?|sheets?|bags?|tiles?|planks?|kg|kilos?|kilograms?|l|lit(?:er|re)s?";

export interface PriceQuestion {
  product_name: string;
  sku?: string;
  quantity?: number;
  unit?: string;
  customer?: string;
}

/** Whether a message asks for a price. */
export function asksPrice(text: string): boolean {
  return /\b(price[sd]?|pricing|cost[s]?|how much|quote|quotation|priced)\b/i.test(text);
}

/** Whether a message asks to find something. */
export function asksSearch(text: string): boolean {
  return /\b(find|search|look(?:ing)? for|show me|do you (?:have|sell|stock|carry)|list|which products|any products)\b/i
    .test(text);
}

/** The product, SKU, quantity and unit of a price question ("how much is X SKU-1 for 40 m2?"). */
export function priceQuestion(text: string): PriceQuestion {
  let rest = ` ${text.replace(/\s+/g, " ")} `;
  const out: Partial<PriceQuestion> = {};
  const qty = new RegExp(`\\b(\\d+(?:[.,]\\d+)?)\\s*(${UNIT_WORDS})(?![\\p{L}\\p{N}])`, "iu").exec(rest);
  if (qty) {
    out.quantity = Number(qty[1].replace(",", "."));
    out.unit = UNITS.find(([re]) => re.test(qty[2].trim()))?.[1] ?? qty[2].trim().toLowerCase();
    rest = rest.replace(
      new RegExp(`(?:\\bfor\\s+)?${qty[0].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:\\s+of\\b)?`, "i"),
      " ",
    );
  }
  const customer =
    /\bfor (?:customer|client|the customer|the client)\s+([\p{Lu}][\p{L}\p{N}&.' -]{1,60}?)(?=[,.?!]|\s+(?:for|with|at)\b|\s*$)/u
      .exec(rest);
  if (customer) {
    out.customer = customer[1].trim();
    rest = rest.replace(customer[0], " ");
  }
  const sku = skuIn(rest);
  if (sku) {
    out.sku = sku;
    rest = rest.replace(
      new RegExp(`\\b(?:sku|code)?\\s*[:#]?\\s*${sku.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "i"),
      " ",
    );
  }
  const name = rest
    .replace(
      /\b(?:what(?:'s| is| are| does| do| would)?|how much(?: is| are| does| do| would)?|can you|could you|please|give me|i need|i want|we need|tell me|get me)\b/gi,
      " ",
    )
    .replace(/\b(?:the |a |an )?(?:price[sd]?|pricing|cost[s]?|quote|quotation)(?: of| for)?\b/gi, " ")
    .replace(/\b(?:be|is|are|to|of|for|it|me|us|per|and)\b/gi, " ")
    .replace(/^[\s,.?!:;-]*(?:the|a|an)\s/i, " ")
    .replace(/[?!.,;:"]+/g, " ")
    .replace(/\s+/g, " ").trim()
    .replace(/^(?:the|a|an)\s/i, "");
  return { product_name: name || sku || "product", ...out };
}

/** The search words of a request ("find oak floors for a kitchen" -> "oak floors kitchen"). */
export function searchQuery(text: string): string {
  const q = text
    .replace(
      /\b(?:can you|could you|please|find|search(?: for)?|look(?:ing)? for|show me|do you (?:have|sell|stock|carry)|list|which products|any products|i need|we need|i want|some|any|the|a|an|for|me|us|in|of|with|that|are|is)\b/gi,
      " ",
    )
    .replace(/[?!.,;:"]+/g, " ").replace(/\s+/g, " ").trim();
  return q || text.trim();
}
