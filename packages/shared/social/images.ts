/**
 * generate-social-image: one image from an image provider speaking the OpenAI Images API
 * (POST {base}/images/generations, `Authorization: Bearer`), fitted to the aspect ratio's pixel
 * size, stored in the public `social-images` bucket and returned by URL.
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
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import sharp from "sharp";
import { debit, refund } from "../credits/ledger.ts";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";
import { safeFetch } from "../net/safe_fetch.ts";
import type { SocialScope } from "./accounts.ts";
import { ASPECT_RATIOS, IMAGE_TYPES, type ImageBody } from "./schemas.ts";

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
    model: model ?? env("IMAGE_MODEL") ?? "gpt-image-1",
  };
}

function base64Bytes(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

/** Asks the provider for one image; returns its encoded bytes. */
export async function requestImage(p: ImageProvider, prompt: string, size: string): Promise<Uint8Array> {
  const gpt = p.model.startsWith("gpt-image");
  const body = {
    model: p.model,
    prompt,
    n: 1,
    size,
    ...(gpt ? { output_format: "png" } : { response_format: "b64_json" }),
  };
  let res: Response;
  try {
    res = await fetch(`${p.baseUrl}/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new DomainError(
      "upstream",
      "image_provider_unreachable",
      "The image provider could not be reached",
      {
        cause: (err as Error).name,
      },
    );
  }
  const text = await res.text();
  let json: { data?: { b64_json?: string; url?: string }[]; error?: { message?: string } } = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch (_) {
    // Reported below as an unusable answer with its status.
    json = {};
  }
  if (!res.ok) {
    throw new DomainError(
      "upstream",
      "image_provider_error",
      `The image provider answered HTTP ${res.status}${
        json.error?.message ? `: ${json.error.message.slice(0, 300)}` : ""
      }`,
    );
  }
  const item = json.data?.[0];
  if (item?.b64_json) return base64Bytes(item.b64_json);
  if (item?.url) {
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

export async function generateImage(s: SocialScope, req: ImageBody) {
  const provider = imageProviderFromEnv(req.model);
  const credits = IMAGE_CREDITS[req.image_type];
  const size = ASPECT_SIZES[req.aspect_ratio];
  const charge = await debit(s.service, {
    userId: s.userId,
    action: "social_image_generation",
    credits,
    metadata: { workspace_id: s.workspaceId, image_type: req.image_type, aspect_ratio: req.aspect_ratio },
  });
  try {
    const raw = await requestImage(provider, req.prompt, size.request);
    const png = await fitImage(raw, size.width, size.height);
    const path = `${s.workspaceId}/${new Date().toISOString().slice(0, 10)}/${crypto.randomUUID()}.png`;
    const url = await store(s.service, path, png);
    return {
      success: true,
      image_url: url,
      storage_path: path,
      width: size.width,
      height: size.height,
      aspect_ratio: req.aspect_ratio,
      image_type: req.image_type,
      model: provider.model,
      credits_used: credits,
      balance: charge.balance,
    };
  } catch (err) {
    await refund(s.service, charge, `social image generation failed: ${(err as Error).message}`);
    if (err instanceof DomainError) throw err;
    throw new DomainError(
      "upstream",
      "image_generation_failed",
      "The image could not be generated; the credits were refunded",
    );
  }
}
