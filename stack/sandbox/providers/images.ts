/**
 * Stand-in for an image generation API in the OpenAI Images shape: POST /images/generations
 * (also under /v1) with `Authorization: Bearer`, body {model, prompt, n?, size?, output_format?,
 * response_format?}; answer {created, data: [{b64_json, revised_prompt}] (n items, 1..10),
 * usage?}, or with `response_format: "url"` data: [{url, revised_prompt}] where each url serves the
 * PNG from the stand-in (GET /images/files/{id}.png, no key, as OpenAI's signed blob URLs). Sizes
 * are `WIDTHxHEIGHT` (default 1024x1024, each side 256..4096) or `auto`; each image is a real PNG
 * of exactly that size (sharp), its colour a function of the prompt and its index, so tests can
 * decode it.
 * Errors use OpenAI's {error: {message, type, param, code}}. Tests script failures with
 * failNext() and unusable answers with `nextAnswer` (e.g. a data item without an image).
 */
import { StandIn, type StandInRequest } from "../standin.ts";

type Obj = Record<string, unknown>;

async function colourOf(prompt: string): Promise<{ r: number; g: number; b: number }> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(prompt)));
  return { r: d[0], g: d[1], b: d[2] };
}

export class ImagesStandIn extends StandIn {
  readonly name = "images";
  /** Images made, oldest first: what was asked and the size returned. */
  readonly generated: { model: string; prompt: string; size: string; width: number; height: number }[] = [];
  /** The next answer's JSON instead of an image (once). */
  nextAnswer: Obj | null = null;
  /** PNGs answered by URL, by file id. */
  readonly #files = new Map<string, Uint8Array<ArrayBuffer>>();

  override reset(): void {
    super.reset();
    this.generated.length = 0;
    this.nextAnswer = null;
    this.#files.clear();
  }

  errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
    const type = status === 401
      ? "invalid_request_error"
      : status === 429
      ? "rate_limit_exceeded"
      : status >= 500
      ? "server_error"
      : "invalid_request_error";
    return Response.json({ error: { message, type, param: null, code: null } }, { status, headers });
  }

  protected override async route(req: StandInRequest): Promise<Response> {
    const path = req.path.replace(/\/+$/, "").replace(/^\/v1/, "");
    const file = /^\/images\/files\/([A-Za-z0-9_-]+)\.png$/.exec(path);
    if (file && req.method === "GET") {
      const png = this.#files.get(file[1]);
      if (!png) return this.errorResponse(404, `No such file: ${file[1]}`);
      return new Response(png, { headers: { "content-type": "image/png" } });
    }
    if (path !== "/images/generations") {
      return this.errorResponse(404, `Invalid URL (${req.method} ${req.path})`);
    }
    if (req.method !== "POST") return this.errorResponse(405, `Method ${req.method} not allowed`);
    if (!/^Bearer\s+\S+/i.test(req.headers.get("authorization") ?? "")) {
      return this.errorResponse(401, "You didn't provide an API key.");
    }
    const b = req.json() as Obj | undefined;
    if (!b || typeof b !== "object") {
      return this.errorResponse(400, "We could not parse the JSON body of your request.");
    }
    if (typeof b.prompt !== "string" || !b.prompt) {
      return this.errorResponse(400, "Missing required parameter: 'prompt'.");
    }
    if (typeof b.model !== "string" || !b.model) {
      return this.errorResponse(400, "Missing required parameter: 'model'.");
    }
    const size = typeof b.size === "string" ? b.size : "1024x1024";
    const m = /^(\d{3,4})x(\d{3,4})$/.exec(size === "auto" ? "1024x1024" : size);
    const width = m ? Number(m[1]) : NaN;
    const height = m ? Number(m[2]) : NaN;
    if (!m || width < 256 || height < 256 || width > 4096 || height > 4096) {
      return this.errorResponse(
        400,
        `Invalid value: '${size}'. Supported values are WIDTHxHEIGHT or 'auto'.`,
      );
    }
    const n = b.n ?? 1;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 10) {
      return this.errorResponse(400, `Invalid 'n': ${JSON.stringify(n)}. Expected an integer from 1 to 10.`);
    }
    const format = b.response_format ?? "b64_json";
    if (format !== "b64_json" && format !== "url") {
      return this.errorResponse(
        400,
        `Invalid value: '${format}'. Supported values are: 'url' and 'b64_json'.`,
      );
    }
    if (this.nextAnswer) {
      const answer = this.nextAnswer;
      this.nextAnswer = null;
      return Response.json(answer);
    }
    const data: Obj[] = [];
    for (let i = 0; i < n; i++) {
      // The first image's colour is the prompt's (as before n was honoured); the others differ.
      const background = await colourOf(i === 0 ? b.prompt : `${b.prompt}#${i}`);
      // sharp's native addon (140 ms to load) loads with the first image, not when the platform boots.
      const { default: sharp } = await import("sharp");
      const png = await sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
      this.generated.push({ model: b.model, prompt: b.prompt, size, width, height });
      if (format === "url") {
        const id = `img_${crypto.randomUUID().replaceAll("-", "")}`;
        this.#files.set(id, new Uint8Array(png));
        data.push({ url: `${this.baseUrl}/images/files/${id}.png`, revised_prompt: b.prompt });
      } else {
        data.push({ b64_json: png.toString("base64"), revised_prompt: b.prompt });
      }
    }
    return Response.json({
      created: Math.floor(Date.now() / 1000),
      data,
      usage: {
        input_tokens: Math.ceil(b.prompt.length / 4),
        output_tokens: 0,
        total_tokens: Math.ceil(b.prompt.length / 4),
      },
    });
  }
}
