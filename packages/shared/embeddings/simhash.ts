/**
 * SimHash sketches of 1024-dimension embeddings for the knowledge base's vector index.
 *
 * pgvector's HNSW index on the full `vector(1024)` column cost ~17 ms per 3-chunk document on
 * PGlite (WASM, one thread: every insert computes hundreds of 1024-float distances), three
 * quarters of KB ingest. `kb_doc_chunks` is therefore indexed on a 1024-bit sketch instead (HNSW
 * with Hamming distance, 128 bytes per element: ~1.5 ms per document), and kb_hybrid_search
 * re-ranks the sketch's nearest candidates by the exact cosine distance of the full vectors
 * (pgvector's "binary quantization with re-ranking"). Scores never come from the sketch.
 *
 * The sketch is the sign pattern of a random rotation of the embedding (Charikar's SimHash: the
 * Hamming distance of two sketches estimates the angle between the vectors). Taking the signs of
 * the raw components (pgvector's binary_quantize) is not enough for every provider: the local
 * provider's vectors are sparse (feature hashing), and their signs measured near nothing (recall
 * 0.03 in our measurement). The rotation is a randomized Hadamard transform, H·D2·H·D1·v with D1
 * and D2 fixed random ±1 diagonals: orthogonal, O(n log n), and it spreads a sparse vector over
 * every component. Bit j is 1 when component j of the rotated vector is > 0.
 *
 * Exactness: the input is taken at float32 (what pgvector stores) and the transform only adds,
 * subtracts and flips signs in float64, in a fixed order, without scaling (signs need none). The
 * SQL function public.kb_embedding_bits (migration 20260218000100) performs the same operations
 * in the same order, so both give the same bits for a stored vector; a test holds them together.
 * The seeds below are part of the stored index: changing them needs a migration that recomputes
 * every sketch.
 */
export const SKETCH_BITS = 1024;

/** A fixed ±1 diagonal: splitmix32 from a seed, one sign per component (true = -1). */
function signs(seed: number): boolean[] {
  let s = seed >>> 0;
  const out: boolean[] = [];
  for (let i = 0; i < SKETCH_BITS; i++) {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z = (z ^ (z >>> 16)) >>> 0;
    out.push((z & 1) === 1);
  }
  return out;
}

/** The two diagonals D1, D2 (seeds fixed for good: see the module doc). */
export const SKETCH_SIGNS: readonly (readonly boolean[])[] = [signs(0x51a1), signs(0x51a2)];

/** In-place unnormalised fast Walsh-Hadamard transform (length a power of two). */
function fwht(a: Float64Array): void {
  const n = a.length;
  for (let h = 1; h < n; h *= 2) {
    for (let i = 0; i < n; i += 2 * h) {
      for (let j = i; j < i + h; j++) {
        const x = a[j];
        const y = a[j + h];
        a[j] = x + y;
        a[j + h] = x - y;
      }
    }
  }
}

/** The sketch's bits as 0/1, component order. */
export function sketchBits(embedding: readonly number[]): Uint8Array {
  if (embedding.length !== SKETCH_BITS) {
    throw new RangeError(`a sketch needs ${SKETCH_BITS} dimensions, got ${embedding.length}`);
  }
  const a = new Float64Array(SKETCH_BITS);
  for (let i = 0; i < SKETCH_BITS; i++) a[i] = Math.fround(embedding[i]);
  for (const d of SKETCH_SIGNS) {
    for (let i = 0; i < SKETCH_BITS; i++) if (d[i]) a[i] = -a[i];
    fwht(a);
  }
  const bits = new Uint8Array(SKETCH_BITS);
  for (let i = 0; i < SKETCH_BITS; i++) bits[i] = a[i] > 0 ? 1 : 0;
  return bits;
}

/**
 * The sketch as Postgres bit-string input in hexadecimal (`x` and 256 hex digits), the compact
 * form `'...'::bit(1024)` reads.
 */
export function embeddingSketch(embedding: readonly number[]): string {
  const bits = sketchBits(embedding);
  let out = "x";
  for (let i = 0; i < SKETCH_BITS; i += 4) {
    out += ((bits[i] << 3) | (bits[i + 1] << 2) | (bits[i + 2] << 1) | bits[i + 3]).toString(16);
  }
  return out;
}

/** The D1 and D2 diagonals as Postgres bit-string literals (1 = flip), for the SQL function. */
export function signLiterals(): string[] {
  return SKETCH_SIGNS.map((d) => d.map((b) => (b ? "1" : "0")).join(""));
}
