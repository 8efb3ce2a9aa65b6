/**
 * generate-social-image: one image from an image provider speaking the OpenAI Images API,
 * asked through the official `openai` SDK (`client.images.generate`: POST
 * {base}/images/generations, `Authorization: Bearer`, one attempt of at most 120 s, no retry),
 * fitted to the aspect ratio's pixel size, stored in the public `social-images` bucket and
 * returned by URL.
 *
 * Stages: price by image_type and debit (spec Limits) -> generate -> decode and fit (sharp,
 * cover: fill the box, crop the centre) -> upload -> answer; a failure after the debit refunds it.
 *
 * | image_type         | credits |   | aspect_ratio | stored size (px) | requested size |
 * | ------------------ | ------- | - | ------------ | ---------------- | -------------- |
 * | lifestyle, people  | 10      |   | 1:1          | 1080 x 1080      | 1024x1024      |
 * | product, interior  | 5       |   | 4:5          | 1080 x 1350      | 1024x1536      |
 * | artistic, textured | 6       |   | 9:16         | 1080 x 1920      | 1024x1536      |
 * |                    |         |   | 16:9         | 1920 x 1080      | 1536x1024      |
 *
 * Configuration: IMAGE_API_KEY (required; 503 image_provider_not_configured without it),
 * IMAGE_API_BASE_URL (default https://api.openai.com/v1), IMAGE_MODEL (default gpt-image-1;
 * the request's `model` overrides it). gpt-image models answer `b64_json`; for others
 * `response_format: "b64_json"` is asked; an answer with a `url` instead is fetched through
 * safe_fetch. Answer: {success, image_url, storage_path, width, height, aspect_ratio,
 * image_type, model, credits_used, balance}.
 *
 * Provider failures (all 502, the credits refunded): `image_provider_error` for an HTTP error
 * status (with the provider's error.message), invalid JSON, an answer without an image, an image
 * URL not answering 200, or bytes that do not decode; `image_provider_unreachable` for a
 * connection failure or the timeout (`details.cause`); anything else `image_generation_failed`
 * (e.g. an image URL safe_fetch refuses).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import OpenAI from "openai";
import { DEFAULT_IMAGE_MODEL } from "../llm/models.ts";
import sharp from "sharp";
import { runBilled } from "../credits/ledger.ts";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";
import { safeFetch } from "../net/safe_fetch.ts";
import type { WorkspaceScope } from "../auth/scope.ts";
import { ASPECT_RATIOS, IMAGE_TYPES, type ImageBody } from "./schemas.ts";
import { actingUser } from "./accounts.ts";

export const SOCIAL_IMAGE_BUCKET = "social-images";

export const IMAGE_CREDITS: Readonly<Record<(typeof IMAGE_TYPES)[number], number>> = {
  lifestyle: 10,
  people: 10,
  product: 5,
  interior: 5,
  artistic: 6,
  textured: 6,
};

export const ASPECT_SIZES: Readonly<
  Record<(typeof ASPECT_RATIOS)[number], { width: number; height: number; request: string }>
> = {
  "1:1": { width: 1080, height: 1080, request: "1024x1024" },
  "4:5": { width: 1080, height: 1350, request: "1024x1536" },
  "9:16": { width: 1080, height: 1920, request: "1024x1536" },
  "16:9": { width: 1920, height: 1080, request: "1536x1024" },
};

const MAX_IMAGE_BYTES = 25 * 1024 * 1024;
const TIMEOUT_MS = 120_000;

interface ImageProvider {
  baseUrl: string;
  key: string;
  model: string;
}

export function imageProviderFromEnv(model?: string): ImageProvider {
  const key = env("IMAGE_API_KEY");
  if (!key) {
    throw new DomainError(
      "unavailable",
      "image_provider_not_configured",
      "The image provider is not configured: set IMAGE_API_KEY (and IMAGE_API_BASE_URL for a stand-in)",
    );
  }
  return {
    baseUrl: (env("IMAGE_API_BASE_URL") ?? "https://api.openai.com/v1").replace(/\/+$/, ""),
    key,
    model: model ?? env("IMAGE_MODEL") ?? DEFAULT_IMAGE_MODEL,
  };
}

function base64Bytes(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

/** The SDK client for one request: key and base given, no OPENAI_* variable read, no retries. */
function imageClient(p: ImageProvider): OpenAI {
  return new OpenAI({
    apiKey: p.key,
    baseURL: p.baseUrl,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: TIMEOUT_MS,
  });
}

/** An SDK failure as the function's error: an HTTP status is image_provider_error, else unreachable. */
function providerError(err: unknown): DomainError {
  if (err instanceof OpenAI.APIError && typeof err.status === "number") {
    const inner = (err.error as { message?: unknown } | undefined)?.message;
    return new DomainError(
      "upstream",
      "image_provider_error",
      `The image provider answered HTTP ${err.status}${
        typeof inner === "string" && inner ? `: ${inner.slice(0, 300)}` : ""
      }`,
    );
  }
  if (err instanceof SyntaxError) {
    return new DomainError("upstream", "image_provider_error", "The image provider answered invalid JSON");
  }
  const cause = err instanceof OpenAI.APIConnectionTimeoutError
    ? "TimeoutError"
    : ((err as Error).cause as Error | undefined)?.name ?? (err as Error).name;
  return new DomainError(
    "upstream",
    "image_provider_unreachable",
    "The image provider could not be reached",
    { cause },
  );
}

/** Asks the provider for one image; returns its encoded bytes. */
export async function requestImage(p: ImageProvider, prompt: string, size: string): Promise<Uint8Array> {
  const gpt = p.model.startsWith("gpt-image");
  let answer: unknown;
  try {
    answer = await imageClient(p).images.generate({
      model: p.model,
      prompt,
      n: 1,
      size,
      ...(gpt ? { output_format: "png" as const } : { response_format: "b64_json" as const }),
    });
  } catch (err) {
    throw providerError(err);
  }
  // A body not labelled JSON comes back as text: no image in it.
  const item = typeof answer === "object" && answer !== null
    ? (answer as { data?: { b64_json?: unknown; url?: unknown }[] }).data?.[0]
    : undefined;
  if (typeof item?.b64_json === "string" && item.b64_json) return base64Bytes(item.b64_json);
  if (typeof item?.url === "string" && item.url) {
    const got = await safeFetch(item.url, {
      responseType: "bytes",
      maxBytes: MAX_IMAGE_BYTES,
      timeoutMs: 60_000,
    });
    if (got.status !== 200 || !got.bytes) {
      throw new DomainError("upstream", "image_provider_error", `The image URL answered HTTP ${got.status}`);
    }
    return got.bytes;
  }
  throw new DomainError("upstream", "image_provider_error", "The image provider answered without an image");
}

/** Fits any decodable image to exactly width x height (cover), as PNG. */
export async function fitImage(bytes: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  try {
    const out = await sharp(bytes).rotate().resize(width, height, { fit: "cover", position: "centre" }).png()
      .toBuffer();
    return new Uint8Array(out);
  } catch (err) {
    throw new DomainError(
      "upstream",
      "image_provider_error",
      `The image provider's image cannot be decoded: ${(err as Error).message}`,
    );
  }
}

async function store(service: SupabaseClient, path: string, png: Uint8Array): Promise<string> {
  const { error } = await service.storage.from(SOCIAL_IMAGE_BUCKET).upload(path, png, {
    contentType: "image/png",
    upsert: false,
  });
  if (error) throw DomainError.internal(`Could not store the image: ${error.message}`);
  return service.storage.from(SOCIAL_IMAGE_BUCKET).getPublicUrl(path).data.publicUrl;
}

export async function generateImage(s: WorkspaceScope, req: ImageBody) {
  const provider = imageProviderFromEnv(req.model);
  const credits = IMAGE_CREDITS[req.image_type];
  const size = ASPECT_SIZES[req.aspect_ratio];
  const request = {
    userId: actingUser(s),
    action: "social_image_generation",
    credits,
    metadata: { workspace_id: s.workspaceId, image_type: req.image_type, aspect_ratio: req.aspect_ratio },
  };
  try {
    const { result, charge } = await runBilled(
      () => s.service,
      request,
      async () => {
        const raw = await requestImage(provider, req.prompt, size.request);
        const png = await fitImage(raw, size.width, size.height);
        const path = `${s.workspaceId}/${new Date().toISOString().slice(0, 10)}/${crypto.randomUUID()}.png`;
        return { url: await store(s.service, path, png), path };
      },
      () => null,
      (err) => `social image generation failed: ${err.message}`,
    );
    return {
      success: true,
      image_url: result.url,
      storage_path: result.path,
      width: size.width,
      height: size.height,
      aspect_ratio: req.aspect_ratio,
      image_type: req.image_type,
      model: provider.model,
      credits_used: credits,
      balance: charge!.balance,
    };
  } catch (err) {
    // A short balance (402) and other DomainErrors as they are; anything else, refunded, is a 502.
    if (err instanceof DomainError) throw err;
    throw new DomainError(
      "upstream",
      "image_generation_failed",
      "The image could not be generated; the credits were refunded",
    );
  }
}
