/**
 * The local embedding provider: deterministic, offline, 1024 dimensions, unit length. Used when
 * no embeddings key is configured (development, tests, benchmarks), so the whole KB path -
 * chunk, embed, store, HNSW search - runs for real without a network.
 *
 * It is feature hashing (the "hashing trick"), not a language model: features are word unigrams
 * (weight 1), word bigrams (0.7) and the character trigrams of each word with boundary marks
 * (0.5 spread over the word's trigrams, so misspellings and inflections still overlap); a
 * feature's count is damped to 1 + ln(count); each feature adds its weight at a hashed index
 * with a hashed sign (signed hashing keeps collisions unbiased); the sum is L2-normalised.
 * Cosine similarity is then lexical overlap: good for SKUs, manufacturer names and product
 * words, blind to synonyms. Both input types embed the same way (the space is symmetric).
 */
import {
  EMBEDDING_DIMENSIONS,
  type EmbeddingInputType,
  type EmbeddingProvider,
  l2Normalize,
} from "./provider.ts";

const STOP_WORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "for",
  "from",
  "in",
  "is",
  "it",
  "of",
  "on",
  "or",
  "the",
  "to",
  "with",
  "der",
  "die",
  "das",
  "und",
  "oder",
  "mit",
  "für",
  "von",
  "im",
  "ist",
  "ein",
  "eine",
]);

const WORD = /[\p{L}\p{N}]+/gu;

/** 32-bit FNV-1a over UTF-16 code units, finished with murmur3's fmix32 so every bit is mixed. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function words(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(WORD) ?? [];
}

/** Features of a text with their weight and count (before damping and hashing). */
function features(text: string): Map<string, { weight: number; count: number }> {
  const out = new Map<string, { weight: number; count: number }>();
  const add = (f: string, weight: number) => {
    const cur = out.get(f);
    if (cur) {
      cur.count++;
      cur.weight = Math.max(cur.weight, weight);
    } else out.set(f, { weight, count: 1 });
  };
  const ws = words(text);
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    if (!STOP_WORDS.has(w)) add(`w:${w}`, 1);
    if (i + 1 < ws.length) add(`b:${w} ${ws[i + 1]}`, 0.7);
    const marked = `#${w}#`;
    const each = 0.5 / Math.sqrt(Math.max(1, marked.length - 2));
    for (let j = 0; j + 3 <= marked.length; j++) add(`c:${marked.slice(j, j + 3)}`, each);
  }
  return out;
}

export function hashEmbed(text: string, dimensions = EMBEDDING_DIMENSIONS): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const [f, { weight, count }] of features(text)) {
    const h = hash32(f);
    const sign = (h & 0x80000000) === 0 ? 1 : -1;
    // Damped counts: a word repeated ten times is not ten times as relevant.
    v[h % dimensions] += sign * weight * (1 + Math.log(count));
  }
  return l2Normalize(v);
}

export class LocalHashEmbeddings implements EmbeddingProvider {
  readonly name = "local";
  readonly model = "local-hash-v1";
  readonly dimensions = EMBEDDING_DIMENSIONS;

  embed(texts: readonly string[], _inputType: EmbeddingInputType): Promise<number[][]> {
    return Promise.resolve(texts.map((t) => hashEmbed(t, this.dimensions)));
  }
}
