/**
 * CLIP-style joint embeddings: an image and a text each become one 768-dimension unit vector in
 * the SAME space, so a text query ranks images (and an image ranks images) by cosine similarity.
 * One interface (ClipProvider), two implementations:
 *
 * - `jina` (JinaClipEmbeddings): the documented Jina embeddings HTTP API with a CLIP model that
 *   supports 768 output dimensions (default `jina-clip-v2`, Matryoshka 64..1024):
 *   POST {CLIP_BASE_URL}/v1/embeddings, `Authorization: Bearer {CLIP_API_KEY}`,
 *   body {model, dimensions: 768, normalized: true, embedding_type: "float",
 *   input: [{image: <base64 or URL>} | {text}]}, answer {data: [{index, embedding}], usage}.
 *   Every answer is checked (count, 768 dimensions, finite) and re-normalised.
 * - `local` (LocalClipEmbeddings): deterministic and offline, for development and tests. Not a
 *   neural model: an image is described by visual concepts computed from its pixels (colour
 *   names by HSV share, light/dark, smooth/textured, vivid/muted); the concept words are
 *   feature-hashed into 768 dimensions exactly as a text is (local.ts `hashEmbed`), so the text
 *   "red" lands near red pictures; an image also carries its pixel layout (image.ts `visual`
 *   features), so near-identical pictures are nearer still. Texts embed as `hashEmbed(text, 768)`.
 *
 * Configuration (env): CLIP_PROVIDER `jina` | `local` (default `jina` when CLIP_API_KEY is set,
 * else `local`), CLIP_API_KEY, CLIP_BASE_URL (API origin without /v1, default
 * https://api.jina.ai), CLIP_MODEL (default jina-clip-v2). A configured provider that fails
 * makes the call fail (EmbeddingError with the upstream status); there is no silent fallback.
 *
 * This interface is imported by other modules (visual search): keep it stable.
 */
import { decodeImage, encodeBase64, requireImage } from "./decode.ts";
import { LocalImageEmbeddings } from "./image.ts";
import { hashEmbed } from "./local.ts";
import { checkVectors, EmbeddingError, l2Normalize } from "./provider.ts";

export const CLIP_DIMENSIONS = 768;

export interface ClipHealth {
  status: "healthy" | "unhealthy";
  provider: string;
  model: string;
  dimensions: number;
  /** Whether a hosted provider is configured (false: the local deterministic provider). */
  remote: boolean;
  /** Round trip of a one-text probe (remote providers), in ms. */
  latency_ms: number | null;
  error: string | null;
}

export interface ClipProvider {
  /** `local` or `jina`. */
  readonly name: string;
  readonly model: string;
  /** Always CLIP_DIMENSIONS (768). */
  readonly dimensions: number;
  /**
   * One unit vector for an encoded image (PNG, JPEG, GIF or WebP bytes). Throws ImageInputError
   * (decode.ts) for bytes that are not such an image, EmbeddingError when the provider fails.
   */
  embedImage(bytes: Uint8Array): Promise<number[]>;
  /** One unit vector for a text, in the images' space. Throws EmbeddingError when the provider fails. */
  embedText(text: string): Promise<number[]>;
  /** The provider's state (a remote provider is probed with one tiny text). */
  health(): Promise<ClipHealth>;
}

// ---------------------------------------------------------------------------------------------
// Local deterministic provider

/** Concept words of the local provider; each concept embeds as hashEmbed of its words. */
const COLOR_WORDS: Record<string, string[]> = {
  red: ["red"],
  orange: ["orange"],
  yellow: ["yellow"],
  green: ["green"],
  blue: ["blue"],
  purple: ["purple", "violet"],
  pink: ["pink"],
  brown: ["brown"],
  beige: ["beige", "cream"],
  white: ["white"],
  grey: ["grey", "gray"],
  black: ["black"],
};

/** The colour name of one pixel, by hue, saturation and value. */
export function colorName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  const v = max / 255;
  const s = max === 0 ? 0 : (max - min) / max;
  if (v < 0.2) return "black";
  let h = 0;
  if (max !== min) {
    const d = max - min;
    if (max === r) h = ((g - b) / d) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
    h = (h * 60 + 360) % 360;
  }
  if (s < 0.15) return v > 0.85 ? "white" : "grey";
  if (h >= 20 && h < 50 && s < 0.4 && v > 0.7) return "beige";
  if (h < 15 || h >= 345) return "red";
  if (h < 45) return v < 0.6 ? "brown" : "orange";
  if (h < 70) return "yellow";
  if (h < 170) return "green";
  if (h < 260) return "blue";
  if (h < 300) return "purple";
  return "pink";
}

const conceptCache = new Map<string, number[]>();
function conceptVector(words: readonly string[]): number[] {
  const key = words.join(" ");
  let v = conceptCache.get(key);
  if (!v) {
    const sum = new Array<number>(CLIP_DIMENSIONS).fill(0);
    for (const w of words) hashEmbed(w, CLIP_DIMENSIONS).forEach((x, i) => sum[i] += x / words.length);
    v = sum;
    conceptCache.set(key, v);
  }
  return v;
}

/** Concept weights of a 64x64 RGB raster (what the local provider "sees"). */
export function imageConcepts(data: Uint8Array, width: number, height: number): Map<string, number> {
  const n = width * height;
  const colors = new Map<string, number>();
  let sumV = 0, sumS = 0;
  const grey = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const r = data[i * 3], g = data[i * 3 + 1], b = data[i * 3 + 2];
    const name = colorName(r, g, b);
    colors.set(name, (colors.get(name) ?? 0) + 1);
    const max = Math.max(r, g, b), min = Math.min(r, g, b);
    sumV += max / 255;
    sumS += max === 0 ? 0 : (max - min) / max;
    grey[i] = 0.299 * r + 0.587 * g + 0.114 * b;
  }
  let energy = 0, count = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      energy += Math.hypot(grey[i + 1] - grey[i - 1], grey[i + width] - grey[i - width]);
      count++;
    }
  }
  const out = new Map<string, number>();
  // A colour covering a share p of the picture weighs sqrt(p): minor colours still count.
  for (const [name, c] of colors) {
    const p = c / n;
    if (p >= 0.03) out.set(name, Math.sqrt(p));
  }
  const meanV = sumV / n, meanS = sumS / n, meanEnergy = count ? energy / count : 0;
  if (meanV > 0.7) out.set("light", 0.5);
  if (meanV < 0.3) out.set("dark", 0.5);
  if (meanS > 0.5) out.set("vivid", 0.3);
  else if (meanS < 0.15) out.set("muted", 0.3);
  if (meanEnergy < 6) out.set("smooth", 0.5);
  else if (meanEnergy > 25) out.set("textured", 0.5);
  return out;
}

const CONCEPT_WORDS: Record<string, string[]> = {
  ...COLOR_WORDS,
  light: ["light", "bright"],
  dark: ["dark"],
  vivid: ["vivid", "colourful", "colorful"],
  muted: ["muted", "neutral"],
  smooth: ["smooth", "plain", "polished"],
  textured: ["textured", "rough", "patterned"],
};

/** Share of the concept part in a local image vector (the rest is pixel layout). */
const CONCEPT_WEIGHT = 0.85;
const PIXEL_WEIGHT = 0.5;
/** Side of the square the local provider looks at. */
const LOCAL_SIDE = 64;

export class LocalClipEmbeddings implements ClipProvider {
  readonly name = "local";
  readonly model = "local-clip-concepts-768";
  readonly dimensions = CLIP_DIMENSIONS;
  readonly #pixels = new LocalImageEmbeddings();

  async embedImage(bytes: Uint8Array): Promise<number[]> {
    const { raster } = await decodeImage(bytes, { exact: LOCAL_SIDE });
    const rgb = raster.channels === 3 ? raster.data : toRgb(raster.data, raster.channels);
    const concepts = imageConcepts(rgb as Uint8Array, raster.width, raster.height);
    const c = new Array<number>(CLIP_DIMENSIONS).fill(0);
    for (const [name, w] of concepts) conceptVector(CONCEPT_WORDS[name]).forEach((x, i) => c[i] += w * x);
    const concept = l2Normalize(c);
    const { visual } = await this.#pixels.embedImage(raster);
    return l2Normalize(concept.map((x, i) => CONCEPT_WEIGHT * x + PIXEL_WEIGHT * visual[i]));
  }

  embedText(text: string): Promise<number[]> {
    if (text.trim() === "") return Promise.reject(new EmbeddingError("embedText: the text is empty"));
    return Promise.resolve(hashEmbed(text, CLIP_DIMENSIONS));
  }

  health(): Promise<ClipHealth> {
    return Promise.resolve({
      status: "healthy",
      provider: this.name,
      model: this.model,
      dimensions: this.dimensions,
      remote: false,
      latency_ms: null,
      error: null,
    });
  }
}

function toRgb(data: Uint8Array | Uint8ClampedArray, channels: number): Uint8Array {
  const n = data.length / channels;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) out[i * 3 + k] = data[i * channels + (channels < 3 ? 0 : k)];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Jina embeddings API

export interface JinaClipOptions {
  /** API origin without /v1, e.g. https://api.jina.ai. */
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** One input of the Jina embeddings API. */
export type JinaInput = { text: string } | { image: string };

export class JinaClipEmbeddings implements ClipProvider {
  readonly name = "jina";
  readonly dimensions = CLIP_DIMENSIONS;
  readonly model: string;
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(opts: JinaClipOptions) {
    this.#baseUrl = opts.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
    this.#apiKey = opts.apiKey;
    this.model = opts.model;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#fetch = opts.fetch ?? fetch;
  }

  async embedImage(bytes: Uint8Array): Promise<number[]> {
    requireImage(bytes);
    return (await this.embed([{ image: encodeBase64(bytes) }]))[0];
  }

  async embedText(text: string): Promise<number[]> {
    if (text.trim() === "") throw new EmbeddingError("embedText: the text is empty");
    return (await this.embed([{ text }]))[0];
  }

  async health(): Promise<ClipHealth> {
    const started = performance.now();
    const base = {
      provider: this.name,
      model: this.model,
      dimensions: this.dimensions,
      remote: true,
    };
    try {
      await this.embed([{ text: "health check" }]);
      return { ...base, status: "healthy", latency_ms: Math.round(performance.now() - started), error: null };
    } catch (err) {
      return {
        ...base,
        status: "unhealthy",
        latency_ms: Math.round(performance.now() - started),
        error: (err as Error).message,
      };
    }
  }

  /** One request to POST /v1/embeddings; the vectors in input order, checked and unit length. */
  async embed(input: JinaInput[]): Promise<number[][]> {
    let res: Response;
    try {
      res = await this.#fetch(`${this.#baseUrl}/v1/embeddings`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${this.#apiKey}`,
        },
        body: JSON.stringify({
          model: this.model,
          dimensions: this.dimensions,
          normalized: true,
          embedding_type: "float",
          input,
        }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (err) {
      throw new EmbeddingError(`jina embeddings request failed: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) {
      let detail = text.slice(0, 300);
      try {
        const j = JSON.parse(text);
        if (typeof j?.detail === "string") detail = j.detail;
      } catch (_) {
        // Not JSON: the raw text (cut) is the detail.
      }
      throw new EmbeddingError(`jina embeddings answered ${res.status}: ${detail}`, res.status);
    }
    let answer: { data?: { index?: number; embedding?: unknown }[] };
    try {
      answer = JSON.parse(text);
    } catch (_) {
      throw new EmbeddingError(`jina embeddings answered non-JSON: ${text.slice(0, 120)}`, res.status);
    }
    const rows = [...(answer.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    const vectors = rows.map((r) => {
      if (!Array.isArray(r.embedding)) throw new EmbeddingError("jina embedding is not an array of floats");
      return r.embedding as number[];
    });
    return checkVectors(vectors, input.length, this.dimensions, "jina");
  }
}

// ---------------------------------------------------------------------------------------------

export function clipFromEnv(
  get: (name: string) => string | undefined = (n) => Deno.env.get(n),
): ClipProvider {
  const value = (n: string) => {
    const v = get(n);
    return v === undefined || v === "" ? undefined : v;
  };
  const key = value("CLIP_API_KEY");
  const kind = value("CLIP_PROVIDER") ?? (key ? "jina" : "local");
  if (kind === "local") return new LocalClipEmbeddings();
  if (kind !== "jina") throw new Error(`unknown CLIP_PROVIDER ${kind} (jina or local)`);
  if (!key) throw new Error("CLIP_PROVIDER=jina needs CLIP_API_KEY");
  return new JinaClipEmbeddings({
    baseUrl: value("CLIP_BASE_URL") ?? "https://api.jina.ai",
    apiKey: key,
    model: value("CLIP_MODEL") ?? "jina-clip-v2",
  });
}
