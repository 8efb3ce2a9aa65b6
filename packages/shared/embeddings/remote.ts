/**
 * Adapters for hosted embedding APIs, over their documented HTTP APIs with fetch (no SDK: the
 * openai SDK asks for base64 unless told otherwise, and Voyage's SDK does not expose
 * output_dimension):
 *
 * - OpenAI-compatible: POST {base}/embeddings {model, input[], dimensions: 1024,
 *   encoding_format: "float"}; answer {data: [{index, embedding}]}. The input type is not sent
 *   (OpenAI's API has no such field and rejects unknown ones).
 * - Voyage: POST {base}/embeddings {model, input[], input_type, output_dimension: 1024}; at most
 *   128 inputs per request.
 *
 * Requests are batched, time-limited, and every answer is checked (count, dimension, finite).
 */
import {
  checkVectors,
  EMBEDDING_DIMENSIONS,
  EmbeddingError,
  type EmbeddingInputType,
  type EmbeddingProvider,
} from "./provider.ts";

export interface RemoteEmbeddingsOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Inputs per request. */
  batchSize?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

interface EmbeddingsAnswer {
  data?: { index?: number; embedding?: unknown }[];
}

abstract class RemoteEmbeddings implements EmbeddingProvider {
  abstract readonly name: string;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  readonly model: string;
  protected readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly doFetch: typeof fetch;

  constructor(opts: RemoteEmbeddingsOptions, defaultBatch: number) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.apiKey = opts.apiKey;
    this.model = opts.model;
    this.batchSize = opts.batchSize ?? defaultBatch;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.doFetch = opts.fetch ?? fetch;
  }

  protected abstract body(texts: readonly string[], inputType: EmbeddingInputType): Record<string, unknown>;

  async embed(texts: readonly string[], inputType: EmbeddingInputType): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...await this.request(texts.slice(i, i + this.batchSize), inputType));
    }
    return out;
  }

  private async request(texts: readonly string[], inputType: EmbeddingInputType): Promise<number[][]> {
    let res: Response;
    try {
      res = await this.doFetch(`${this.baseUrl}/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.apiKey}` },
        body: JSON.stringify(this.body(texts, inputType)),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new EmbeddingError(`${this.name} embeddings request failed: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) {
      throw new EmbeddingError(
        `${this.name} embeddings answered ${res.status}: ${text.slice(0, 300)}`,
        res.status,
      );
    }
    let answer: EmbeddingsAnswer;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new EmbeddingError(
        `${this.name} embeddings answered non-JSON: ${text.slice(0, 120)}`,
        res.status,
      );
    }
    const rows = [...(answer.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    const vectors = rows.map((r) => {
      if (!Array.isArray(r.embedding)) {
        throw new EmbeddingError(`${this.name} embedding is not an array of floats`);
      }
      return r.embedding as number[];
    });
    return checkVectors(vectors, texts.length, this.dimensions, this.name);
  }
}

export class OpenAICompatibleEmbeddings extends RemoteEmbeddings {
  readonly name = "openai";
  constructor(opts: RemoteEmbeddingsOptions) {
    super(opts, 256);
  }
  protected body(texts: readonly string[]) {
    return { model: this.model, input: texts, dimensions: this.dimensions, encoding_format: "float" };
  }
}

export class VoyageEmbeddings extends RemoteEmbeddings {
  readonly name = "voyage";
  constructor(opts: RemoteEmbeddingsOptions) {
    super(opts, 128);
  }
  protected body(texts: readonly string[], inputType: EmbeddingInputType) {
    return { model: this.model, input: texts, input_type: inputType, output_dimension: this.dimensions };
  }
}
