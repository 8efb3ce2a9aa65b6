/**
 * The images a caller hands the AI services: named by URL or given inline (`imageSource`, exactly
 * one of the two: `oneImage`), loaded as checked bytes (`loadImage`), and the one mapping of a bad
 * image to an answer (`asImageInput`: ImageInputError -> DomainError `invalid_image`, 400 for an
 * image the caller sent, 422 for one the platform stored).
 *
 * image_url: http(s) only, resolved and refused when it leads to a loopback, private, link-local
 * (cloud metadata) or otherwise non-public address, at every redirect (packages/shared/net/
 * safe_fetch.ts), 10 MiB and 15 s at most. IMAGE_FETCH_ALLOWED_HOSTS (comma-separated `host` or
 * `host:port`) exempts hosts a deployment trusts on purpose (tests use it for a local server).
 */
import { z } from "zod";
import { DomainError } from "../errors.ts";
import { safeFetch, UnsafeUrlError } from "../net/safe_fetch.ts";
import {
  decodeBase64Image,
  encodeBase64,
  ImageInputError,
  type ImageMediaType,
  MAX_IMAGE_BYTES,
  requireImage,
} from "../embeddings/decode.ts";
import type { LlmContent } from "../llm/mod.ts";

export const IMAGE_FETCH_TIMEOUT_MS = 15_000;

/** Reads a setting (the backend's settings reader). */
export type Settings = (name: string) => string | undefined;

/** An image named by URL or given inline (exactly one). */
export const imageSource = z.strictObject({
  image_url: z.string().trim().min(1).max(2048).optional().meta({
    description: "http(s) URL of a PNG, JPEG, GIF or WebP image on the public internet",
  }),
  image_base64: z.string().min(1).optional().meta({
    description: "The image itself, base64 (a data: URL prefix is accepted), up to 10 MiB decoded",
  }),
});
export type ImageSource = z.infer<typeof imageSource>;

/** The refinement every request with an imageSource applies: exactly one of the two. */
export function oneImage(v: ImageSource, ctx: z.RefinementCtx, path: (string | number)[] = []): void {
  if ((v.image_url === undefined) === (v.image_base64 === undefined)) {
    ctx.addIssue({
      code: "custom",
      path,
      message: "exactly one of image_url or image_base64 is required",
    });
  }
}

export interface LoadedImage {
  bytes: Uint8Array;
  mediaType: ImageMediaType;
  /** Where it came from: the final URL, "base64", "upload" or "storage". */
  source: string;
}

/**
 * Runs an image check or decode; a bad image (ImageInputError) is DomainError `invalid_image`
 * with the check's message: `invalid` (400) for an image the caller sent, `unprocessable` (422)
 * for one the platform stored. Other failures pass through.
 */
export async function asImageInput<T>(
  fn: () => T | Promise<T>,
  kind: "invalid" | "unprocessable" = "invalid",
  prefix = "",
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ImageInputError) throw new DomainError(kind, "invalid_image", prefix + err.message);
    throw err;
  }
}

/** The bytes of a named image; 400 for an unsafe URL, an unreachable one, or bytes that are not an image. */
export async function loadImage(src: ImageSource, settings: Settings, what = "image"): Promise<LoadedImage> {
  try {
    return await asImageInput(() => fetchImage(src, settings, what), "invalid", `${what}: `);
  } catch (err) {
    if (err instanceof UnsafeUrlError) {
      throw DomainError.invalid(`${what}: image_url refused: ${err.message}`, undefined, "unsafe_url");
    }
    if (err instanceof DomainError) throw err;
    throw DomainError.invalid(
      `${what}: image_url could not be fetched: ${(err as Error).message}`,
      undefined,
      "image_fetch_failed",
    );
  }
}

async function fetchImage(src: ImageSource, settings: Settings, what: string): Promise<LoadedImage> {
  if (src.image_base64 !== undefined) {
    const bytes = decodeBase64Image(src.image_base64);
    return { bytes, mediaType: requireImage(bytes, `${what}: image_base64`), source: "base64" };
  }
  const allowHosts = (settings("IMAGE_FETCH_ALLOWED_HOSTS") ?? "").split(",").map((s) => s.trim())
    .filter(Boolean);
  const res = await safeFetch(src.image_url!, {
    responseType: "bytes",
    maxBytes: MAX_IMAGE_BYTES,
    timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
    headers: { accept: "image/png, image/jpeg, image/gif, image/webp" },
    allowHosts,
  });
  if (res.status < 200 || res.status > 299) {
    throw DomainError.invalid(
      `${what}: image_url answered HTTP ${res.status}`,
      { status: res.status },
      "image_fetch_failed",
    );
  }
  const bytes = res.bytes ?? new Uint8Array(0);
  return { bytes, mediaType: requireImage(bytes, `${what}: the image at image_url`), source: res.url };
}

/** The vision model's content block for an image. */
export function imageBlock(img: { bytes: Uint8Array; mediaType: ImageMediaType }): LlmContent {
  return {
    type: "image",
    source: { type: "base64", media_type: img.mediaType, data: encodeBase64(img.bytes) },
  };
}
