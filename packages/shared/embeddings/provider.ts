/**
 * Text embeddings for the knowledge base: 1024 dimensions, unit length, with the input type the
 * retrieval models distinguish (`document` for stored chunks, `query` for searches; the spec's
 * text_embedding_input_type). One interface, three implementations: a local deterministic one
 * (no key, no network), an OpenAI-compatible adapter and a Voyage adapter.
 */
export const EMBEDDING_DIMENSIONS = 1024;

export type EmbeddingInputType = "document" | "query";

export interface EmbeddingProvider {
  /** Short provider name for health output and logs: `local`, `openai`, `voyage`. */
  readonly name: string;
  /** Model id recorded with every stored chunk (kb_docs.embedding_model). */
  readonly model: string;
  readonly dimensions: number;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[], inputType: EmbeddingInputType): Promise<number[][]>;
}

/** A provider failed (network, HTTP status, malformed answer); status is the upstream HTTP status if any. */
export class EmbeddingError extends Error {
  constructor(message: string, readonly status: number | null = null) {
    super(message);
    this.name = "EmbeddingError";
  }
}

/** Scales a vector to unit length (a zero vector stays zero). */
export function l2Normalize(v: number[]): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  return v.map((x) => x * inv);
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** pgvector's text form, `[x1,x2,...]`, which PostgREST casts to vector. */
export function toPgVector(v: readonly number[]): string {
  return `[${v.join(",")}]`;
}

/** Checks an upstream answer: the right count, the right dimension, finite numbers. */
export function checkVectors(
  vectors: number[][],
  count: number,
  dimensions: number,
  who: string,
): number[][] {
  if (vectors.length !== count) {
    throw new EmbeddingError(`${who} returned ${vectors.length} embeddings for ${count} inputs`);
  }
  for (const v of vectors) {
    if (v.length !== dimensions) {
      throw new EmbeddingError(`${who} returned ${v.length} dimensions; ${dimensions} are required`);
    }
    if (!v.every(Number.isFinite)) throw new EmbeddingError(`${who} returned a non-finite value`);
  }
  return vectors.map(l2Normalize);
}
