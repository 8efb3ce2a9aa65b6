/**
 * Encoded images (PNG, JPEG, GIF, WebP) as bytes: what they are (sniffed from their magic bytes,
 * never from a client's content type) and their pixels (decoded with sharp, libvips, loaded on
 * first use so modules that never decode do not load the native addon).
 *
 * The media types are the four the vision model accepts (Anthropic image content blocks).
 */
import type { RasterImage } from "./image.ts";

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Largest encoded image accepted anywhere images are uploaded or fetched (bytes). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Largest decoded image (pixels), as the storage renderer's source limit. */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** A picture that could not be used: not an image, too big, or undecodable. */
export class ImageInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImageInputError";
  }
}

/** The media type of encoded image bytes, from their signature; null when they are not one of the four. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | null {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return "image/gif";
  if (
    b.length >= 12 && b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 &&
    b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50
  ) return "image/webp";
  return null;
}

/** Checks that bytes are an accepted image within the size limit; returns its media type. */
export function requireImage(bytes: Uint8Array, what = "image"): ImageMediaType {
  if (bytes.byteLength === 0) throw new ImageInputError(`${what} is empty`);
  if (bytes.byteLength > MAX_IMAGE_BYTES) {
    throw new ImageInputError(`${what} is larger than ${MAX_IMAGE_BYTES} bytes`);
  }
  const type = sniffImageType(bytes);
  if (!type) throw new ImageInputError(`${what} is not a PNG, JPEG, GIF or WebP image`);
  return type;
}

let sharpModule: Promise<typeof import("sharp")> | null = null;
function loadSharp(): Promise<typeof import("sharp")["default"]> {
  sharpModule ??= import("sharp");
  return sharpModule.then((m) => m.default);
}

export interface DecodedImage {
  raster: RasterImage;
  mediaType: ImageMediaType;
  /** The source's size (before any downscaling). */
  width: number;
  height: number;
}

/**
 * Decodes an image to RGB pixels (EXIF orientation applied, alpha flattened on white). With
 * `maxSide`, an image larger than that is scaled down to fit (aspect kept); with `exact`, it is
 * resized to exactly exact x exact (stretched), which fixed-size feature extractors want.
 */
export async function decodeImage(
  bytes: Uint8Array,
  opts: { maxSide?: number; exact?: number } = {},
): Promise<DecodedImage> {
  const mediaType = requireImage(bytes);
  const sharp = await loadSharp();
  try {
    const meta = await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
    let img = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).rotate().flatten({
      background: "#ffffff",
    });
    if (opts.exact) img = img.resize(opts.exact, opts.exact, { fit: "fill" });
    else if (opts.maxSide) {
      img = img.resize({
        width: opts.maxSide,
        height: opts.maxSide,
        fit: "inside",
        withoutEnlargement: true,
      });
    }
    const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return {
      raster: {
        width: info.width,
        height: info.height,
        channels: info.channels,
        data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      },
      mediaType,
      width: meta.autoOrient?.width ?? meta.width ?? info.width,
      height: meta.autoOrient?.height ?? meta.height ?? info.height,
    };
  } catch (err) {
    throw new ImageInputError(`the image could not be decoded (${(err as Error).message})`);
  }
}

/** Base64 of bytes without a call-stack-sized spread (images can be megabytes). */
export function encodeBase64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/**
 * Bytes of a base64 string (standard or URL-safe alphabet; a `data:<type>;base64,` prefix is
 * allowed), refusing more than `maxBytes` before decoding.
 */
export function decodeBase64Image(b64: string, maxBytes = MAX_IMAGE_BYTES): Uint8Array {
  const body = b64.replace(/^data:[^;,]*;base64,/i, "").replace(/\s+/g, "");
  if (body.length === 0) throw new ImageInputError("image_base64 is empty");
  if (Math.floor(body.length * 3 / 4) > maxBytes + 2) {
    throw new ImageInputError(`image_base64 is larger than ${maxBytes} bytes`);
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(body)) throw new ImageInputError("image_base64 is not valid base64");
  let bin: string;
  try {
    bin = atob(body.replaceAll("-", "+").replaceAll("_", "/"));
  } catch (_) {
    throw new ImageInputError("image_base64 is not valid base64");
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
