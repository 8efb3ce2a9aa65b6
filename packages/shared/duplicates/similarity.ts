/**
 * Feature extraction for the four detection rules: factory, name, description words and
 * metadata properties. Words, keys and properties are interned to integers once per product
 * so that comparing two products is a merge of sorted integer arrays, which is what lets a
 * batch afford millions of comparisons.
 */
import { multisetIntersection, PreparedSequence, toCodePoints } from "./sequence_matcher.ts";
import type { Product } from "./types.ts";

/** Metadata keys naming the factory, in the spec's order of precedence. */
const FACTORY_KEYS = ["factory", "manufacturer", "factory_group", "brand", "company"] as const;
const FACTORY_KEY_SET: ReadonlySet<string> = new Set(FACTORY_KEYS);

/**
 * The product's factory: the first of FACTORY_KEYS whose value is present, trimmed and
 * lowercased. "Present" means a non-blank string or a finite number; null, blank strings and
 * structured values fall through to the next key, since a blank `factory` written by an
 * extraction run should not hide a real `brand`.
 */
export function extractFactory(metadata: Record<string, unknown> | null | undefined): string | null {
  if (!metadata) return null;
  for (const key of FACTORY_KEYS) {
    const value = metadata[key];
    if (typeof value === "string") {
      const normalised = value.trim().toLowerCase();
      if (normalised) return normalised;
    } else if (typeof value === "number" && Number.isFinite(value)) {
      return String(value);
    }
  }
  return null;
}

/** Names are compared lowercased and trimmed, as the spec says; nothing else is folded. */
function normaliseName(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * Description words: lowercase, split on every run of characters that are not letters, marks
 * or digits (so "60x60" is one word, "anti-slip" is two, accents stay inside words), then
 * deduplicated. Counting unique words keeps a repeated marketing phrase from inflating or
 * deflating the score.
 */
export function descriptionWords(description: string | null | undefined): Set<string> {
  const words = new Set<string>();
  if (!description) return words;
  for (const word of description.toLowerCase().split(/[^\p{L}\p{M}\p{N}]+/u)) if (word) words.add(word);
  return words;
}

/**
 * Canonical form of a metadata value, or null when the value counts as absent (null,
 * undefined, blank string). Strings compare trimmed and lowercased at any depth; numbers,
 * booleans, arrays (in order) and objects (key order ignored) compare structurally. Types are
 * never coerced: "60" and 60 differ, because an extractor that changed type changed meaning.
 */
export function canonicalValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") {
    const s = value.trim().toLowerCase();
    return s ? JSON.stringify(s) : null;
  }
  return canonicalNested(value);
}

function canonicalNested(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value.trim().toLowerCase());
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return `${typeof value}:${String(value)}`;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalNested).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.keys(value as Record<string, unknown>)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalNested((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return `${typeof value}:${String(value)}`;
}

/**
 * The properties metadata similarity counts: every key except the factory keys (they already
 * had to match to get here), mapped to its canonical value. Keys are taken exactly as stored.
 */
export function metadataProperties(
  metadata: Record<string, unknown> | null | undefined,
): Map<string, string> {
  const props = new Map<string, string>();
  if (!metadata) return props;
  for (const key of Object.keys(metadata)) {
    if (FACTORY_KEY_SET.has(key)) continue;
    const canonical = canonicalValue(metadata[key]);
    if (canonical !== null) props.set(key, canonical);
  }
  return props;
}

/** Assigns small integers to strings so set intersections run on sorted Int32Arrays. */
export class Interner {
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(s, id);
    }
    return id;
  }
}

function sortedIds(values: Iterable<string>, interner: Interner): Int32Array {
  const out = Int32Array.from(values, (v) => interner.id(v));
  return out.sort();
}

/** Everything the rules need from one product, computed once. */
export interface PreparedProduct {
  readonly product: Product;
  readonly factory: string | null;
  /** Normalised name as code points (the `a` side of a comparison). */
  readonly nameSeq: Int32Array;
  /** nameSeq sorted, for quick_ratio. */
  readonly nameSorted: Int32Array;
  /** Per-character counts when the name is printable ASCII (null otherwise), for quick_ratio. */
  readonly nameHistogram: Uint16Array | null;
  /** The histogram slots the name uses, so an overlap visits only those. */
  readonly nameSlots: Uint8Array;
  readonly words: Int32Array;
  readonly keys: Int32Array;
  /** (key, canonical value) pairs: two products share one exactly when that property matches. */
  readonly properties: Int32Array;
  /** The name as the `b` side (b2j); built on first use since pruning skips most of them. */
  matcher(): PreparedSequence;
}

export function prepareProduct(product: Product, interner: Interner): PreparedProduct {
  const nameSeq = toCodePoints(normaliseName(product.name));
  const props = metadataProperties(product.metadata);
  const [nameHistogram, nameSlots] = histogram(nameSeq);
  let matcher: PreparedSequence | undefined;
  return {
    product,
    factory: extractFactory(product.metadata),
    nameSeq,
    nameSorted: nameSeq.slice().sort(),
    nameHistogram,
    nameSlots,
    words: sortedIds(descriptionWords(product.description), interner),
    keys: sortedIds(props.keys(), interner),
    // JSON-encoding the pair keeps any key/value split unambiguous.
    properties: sortedIds(Array.from(props, (kv) => JSON.stringify(kv)), interner),
    matcher: () => (matcher ??= new PreparedSequence(nameSeq)),
  };
}

const FIRST_PRINTABLE = 0x20, HISTOGRAM_SLOTS = 0x80 - FIRST_PRINTABLE;

function histogram(seq: Int32Array): [Uint16Array | null, Uint8Array] {
  const counts = new Uint16Array(HISTOGRAM_SLOTS);
  const slots: number[] = [];
  for (const c of seq) {
    const slot = c - FIRST_PRINTABLE;
    if (slot < 0 || slot >= HISTOGRAM_SLOTS || counts[slot] === 0xffff) return [null, new Uint8Array(0)];
    if (counts[slot]++ === 0) slots.push(slot);
  }
  return [counts, Uint8Array.from(slots)];
}

/**
 * The multiset intersection of the two names' characters: the match count of difflib's
 * quick_ratio. Product names are nearly always ASCII, where a sum of per-character minimums
 * over a's characters is several times faster than merging the sorted code points.
 */
export function nameCharacterOverlap(a: PreparedProduct, b: PreparedProduct): number {
  const ha = a.nameHistogram, hb = b.nameHistogram;
  if (ha === null || hb === null) return multisetIntersection(a.nameSorted, b.nameSorted);
  const slots = a.nameSlots;
  let n = 0;
  for (let t = 0; t < slots.length; t++) {
    const x = ha[slots[t]], y = hb[slots[t]];
    n += x < y ? x : y;
  }
  return n;
}

/** Size of the intersection of two ascending arrays of distinct integers. */
function intersectionSize(x: Int32Array, y: Int32Array): number {
  let i = 0, j = 0, n = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      n++;
      i++;
      j++;
    } else if (x[i] < y[j]) i++;
    else j++;
  }
  return n;
}

/** Counts behind description similarity: common words and the larger word count. */
export interface WordOverlap {
  common: number;
  larger: number;
}

/** Counts behind metadata similarity: matching properties and the union of keys. */
export interface PropertyOverlap {
  matching: number;
  total: number;
}

/**
 * What two products share, by count: all that description and metadata similarity need.
 * The batch fills these from inverted indexes; one-off comparisons merge the sorted arrays.
 */
export interface SharedCounts {
  words: number;
  properties: number;
  keys: number;
}

export function countShared(a: PreparedProduct, b: PreparedProduct): SharedCounts {
  return {
    words: intersectionSize(a.words, b.words),
    properties: intersectionSize(a.properties, b.properties),
    keys: intersectionSize(a.keys, b.keys),
  };
}

export function wordOverlap(a: PreparedProduct, b: PreparedProduct, shared: SharedCounts): WordOverlap {
  return { common: shared.words, larger: Math.max(a.words.length, b.words.length) };
}

export function propertyOverlap(
  a: PreparedProduct,
  b: PreparedProduct,
  shared: SharedCounts,
): PropertyOverlap {
  return { matching: shared.properties, total: a.keys.length + b.keys.length - shared.keys };
}

/** A ratio of counts where "nothing to compare" scores 0: absence of text is not evidence of a match. */
export function countRatio(numerator: number, denominator: number): number {
  return denominator ? numerator / denominator : 0;
}
