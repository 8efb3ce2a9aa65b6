/**
 * Adapters for hosted embedding APIs:
 *
 * - OpenAI-compatible, through the official `openai` SDK (`client.embeddings.create`):
 *   {model, input[], dimensions: 1024, encoding_format: "float"} to {base}/embeddings, answer
 *   {data: [{index, embedding}]}. `encoding_format` is given so the SDK sends it as is (without
 *   it the SDK asks for base64 and decodes to Float32Array). The input type is not sent (OpenAI's
 *   API has no such field and rejects unknown ones). The SDK retries a 408/409/429/5xx or a
 *   connection failure `maxRetries` times (default 1, honouring Retry-After) and never reads
 *   OPENAI_* variables here (key, base, organization and project are given).
 * - Voyage, over fetch: POST {base}/embeddings {model, input[], input_type, output_dimension:
 *   1024}; at most 128 inputs per request. Its API is not OpenAI's (input_type, output_dimension,
 *   no `encoding_format: "float"`), so the openai SDK is not used for it.
 *
 * Requests are batched, time-limited (per attempt), and every answer is checked (count,
 * dimension, finite). Every failure is an EmbeddingError with the upstream status if any:
 * `{provider} embeddings answered {status}: {provider's message}`, `... request failed: ...`,
 * `... answered non-JSON: ...`, `{provider} embedding is not an array of floats`.
 */
import OpenAI from "openai";
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
  /** Per attempt. */
  timeoutMs?: number;
  /** Retries of a transient failure (OpenAI-compatible adapter only; default 1). */
  maxRetries?: number;
  fetch?: typeof fetch;
}

interface EmbeddingsAnswer {
  data?: { index?: number; embedding?: unknown }[];
}

abstract class RemoteEmbeddings implements EmbeddingProvider {
  abstract readonly name: string;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  readonly model: string;
  private readonly batchSize: number;

  constructor(opts: RemoteEmbeddingsOptions, defaultBatch: number) {
    this.model = opts.model;
    this.batchSize = opts.batchSize ?? defaultBatch;
  }

  /** One request for one batch; the provider's answer, not yet checked. */
  protected abstract request(
    texts: readonly string[],
    inputType: EmbeddingInputType,
  ): Promise<EmbeddingsAnswer>;

  async embed(texts: readonly string[], inputType: EmbeddingInputType): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize);
      out.push(...this.vectors(await this.request(batch, inputType), batch.length));
    }
    return out;
  }

  private vectors(answer: EmbeddingsAnswer, count: number): number[][] {
    if (!answer || typeof answer !== "object" || (answer.data !== undefined && !Array.isArray(answer.data))) {
      throw new EmbeddingError(`${this.name} embeddings answered without a data list`);
    }
    const rows = [...(answer.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    const vectors = rows.map((r) => {
      if (!Array.isArray(r.embedding)) {
        throw new EmbeddingError(`${this.name} embedding is not an array of floats`);
      }
      return r.embedding as number[];
    });
    return checkVectors(vectors, count, this.dimensions, this.name);
  }
}

/** The provider's own text of an SDK error (its JSON error.message when there is one). */
function sdkErrorDetail(err: InstanceType<typeof OpenAI.APIError>): string {
  const inner = (err.error as { message?: unknown } | undefined)?.message;
  // Without a JSON error the SDK's message is "{status} {body text}".
  const text = typeof inner === "string" ? inner : err.message.replace(`${err.status} `, "");
  return text.slice(0, 300);
}

/** The SDK's message with the cause it wraps ("Connection error." says little alone). */
function sdkFailure(err: unknown): string {
  const e = err as Error;
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : "";
  return `${e.message}${cause}`;
}

export class OpenAICompatibleEmbeddings extends RemoteEmbeddings {
  readonly name = "openai";
  private readonly client: OpenAI;

  constructor(opts: RemoteEmbeddingsOptions) {
    super(opts, 256);
    this.client = new OpenAI({
      apiKey: opts.apiKey,
      baseURL: opts.baseUrl.replace(/\/+$/, ""),
      organization: null,
      project: null,
      maxRetries: opts.maxRetries ?? 1,
      timeout: opts.timeoutMs ?? 30_000,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }

  protected async request(texts: readonly string[]): Promise<EmbeddingsAnswer> {
    let answer: unknown;
    try {
      answer = await this.client.embeddings.create({
        model: this.model,
        input: [...texts],
        dimensions: this.dimensions,
        encoding_format: "float",
      });
    } catch (err) {
      if (err instanceof OpenAI.APIError && typeof err.status === "number") {
        throw new EmbeddingError(
          `${this.name} embeddings answered ${err.status}: ${sdkErrorDetail(err)}`,
          err.status,
        );
      }
      if (err instanceof SyntaxError) {
        throw new EmbeddingError(`${this.name} embeddings answered non-JSON: ${err.message.slice(0, 120)}`);
      }
      throw new EmbeddingError(`${this.name} embeddings request failed: ${sdkFailure(err)}`);
    }
    // The SDK hands back the body as text when the answer is not labelled JSON.
    if (typeof answer === "string") {
      throw new EmbeddingError(`${this.name} embeddings answered non-JSON: ${answer.slice(0, 120)}`);
    }
    return answer as EmbeddingsAnswer;
  }
}

export class VoyageEmbeddings extends RemoteEmbeddings {
  readonly name = "voyage";
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly doFetch: typeof fetch;

  constructor(opts: RemoteEmbeddingsOptions) {
    super(opts, 128);
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.apiKey = opts.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.doFetch = opts.fetch ?? fetch;
  }

  protected async request(
    texts: readonly string[],
    inputType: EmbeddingInputType,
  ): Promise<EmbeddingsAnswer> {
    let res: Response;
    try {
      res = await this.doFetch(`${this.baseUrl}/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.apiKey}` },
        body: JSON.stringify({
          model: this.model,
          input: texts,
          input_type: inputType,
          output_dimension: this.dimensions,
        }),
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
    try {
      return JSON.parse(text);
    } catch (_) {
      // The body itself is the useful part of the message.
      throw new EmbeddingError(
        `${this.name} embeddings answered non-JSON: ${text.slice(0, 120)}`,
        res.status,
      );
    }
  }
}
