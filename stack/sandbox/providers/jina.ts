/**
 * Stand-in for Jina AI's embeddings API with a CLIP model (jina-clip-v2): POST /v1/embeddings,
 * `Authorization: Bearer <key>`, body {model, input, dimensions?, normalized?, embedding_type?},
 * where input is a list of {text} / {image: base64 or URL} objects (plain strings are texts).
 * The answer is Jina's: {model, object: "list", usage: {total_tokens, prompt_tokens},
 * data: [{object: "embedding", index, embedding}]}; errors are FastAPI's {detail} with the status.
 *
 * Vectors are computed by the local CLIP provider (packages/shared/embeddings/clip.ts), so the
 * sandbox's images and texts share one meaningful space; `dimensions` below 768 folds the vector
 * (component i added into i mod dimensions) and re-normalises - the stand-in's hashed features are
 * sparse, so plain Matryoshka truncation could leave a short vector empty; more than 768 is
 * refused (the stand-in's model has 768). Image URLs are fetched by the stand-in (it is test infrastructure).
 *
 * Scripting: `failNext(status)` (from StandIn), and `answerNext(body)` to queue raw JSON answers
 * (e.g. malformed vectors) given to the next requests in order.
 */
import { decodeBase64Image, ImageInputError } from "@shared/embeddings/decode.ts";
import { LocalClipEmbeddings } from "@shared/embeddings/clip.ts";
import { l2Normalize } from "@shared/embeddings/provider.ts";
import { StandIn, type StandInRequest } from "../standin.ts";

const MODELS = new Set(["jina-clip-v2", "jina-clip-v1"]);
const MAX_DIMENSIONS = 768;
/** Usage accounting of the stand-in: one token per word of a text, a flat 1000 per image. */
const IMAGE_TOKENS = 1000;

type Body = Record<string, unknown>;

export class JinaStandIn extends StandIn {
  readonly name = "jina";
  readonly #clip = new LocalClipEmbeddings();
  #answers: unknown[] = [];

  /** Queues raw JSON answers (status 200), given to the next requests in order. */
  answerNext(...bodies: unknown[]): this {
    this.#answers.push(...bodies);
    return this;
  }

  override reset(): void {
    super.reset();
    this.#answers = [];
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    return Response.json({ detail: message }, { status, headers });
  }

  protected async route(req: StandInRequest): Promise<Response> {
    const endpoint = req.path.replace(/\/+$/, "");
    if (endpoint !== "/v1/embeddings") return this.errorResponse(404, "Not Found");
    if (req.method !== "POST") return this.errorResponse(405, "Method Not Allowed");
    if (!/^Bearer\s+\S+/i.test(req.headers.get("authorization") ?? "")) {
      return this.errorResponse(401, "Unauthorized: a Bearer API key is required");
    }
    const body = req.json() as Body | undefined;
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      return this.errorResponse(422, "body: Input should be a valid JSON object");
    }
    if (typeof body.model !== "string" || !MODELS.has(body.model)) {
      return this.errorResponse(422, `model: must be one of ${[...MODELS].join(", ")}`);
    }
    const dims = body.dimensions ?? MAX_DIMENSIONS;
    if (!Number.isInteger(dims) || (dims as number) < 64 || (dims as number) > MAX_DIMENSIONS) {
      return this.errorResponse(422, `dimensions: must be an integer from 64 to ${MAX_DIMENSIONS}`);
    }
    if (body.embedding_type !== undefined && body.embedding_type !== "float") {
      return this.errorResponse(422, "embedding_type: the sandbox answers float only");
    }
    if (!Array.isArray(body.input) || body.input.length === 0) {
      return this.errorResponse(422, "input: a non-empty list is required");
    }
    const scripted = this.#answers.shift();
    if (scripted !== undefined) return Response.json(scripted);

    const data = [];
    let tokens = 0;
    for (const [index, item] of (body.input as unknown[]).entries()) {
      let vector: number[];
      try {
        if (typeof item === "string" || (item && typeof (item as Body).text === "string")) {
          const text = typeof item === "string" ? item : (item as Body).text as string;
          if (text.trim() === "") return this.errorResponse(422, `input.${index}.text: must not be empty`);
          tokens += text.split(/\s+/).filter(Boolean).length;
          vector = await this.#clip.embedText(text);
        } else if (item && typeof (item as Body).image === "string") {
          tokens += IMAGE_TOKENS;
          vector = await this.#clip.embedImage(await this.#imageBytes((item as Body).image as string));
        } else {
          return this.errorResponse(422, `input.${index}: must be {text} or {image}`);
        }
      } catch (err) {
        if (err instanceof ImageInputError) {
          return this.errorResponse(400, `input.${index}.image: ${err.message}`);
        }
        throw err;
      }
      const cut = fold(vector, dims as number);
      data.push({
        object: "embedding",
        index,
        embedding: body.normalized === false ? cut : l2Normalize(cut),
      });
    }
    return Response.json({
      model: body.model,
      object: "list",
      usage: { total_tokens: tokens, prompt_tokens: tokens },
      data,
    });
  }

  async #imageBytes(image: string): Promise<Uint8Array> {
    if (!/^https?:\/\//i.test(image)) return decodeBase64Image(image);
    const res = await fetch(image);
    if (!res.ok) {
      await res.body?.cancel();
      throw new ImageInputError(`fetching ${image} answered ${res.status}`);
    }
    return new Uint8Array(await res.arrayBuffer());
  }
}

/** A vector folded into fewer dimensions (component i added into i mod dims). */
function fold(v: number[], dims: number): number[] {
  if (dims >= v.length) return v;
  const out = new Array<number>(dims).fill(0);
  v.forEach((x, i) => out[i % dims] += x);
  return out;
}
