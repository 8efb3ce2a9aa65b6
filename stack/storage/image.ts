/**
 * Image transformations: /render/image/{authenticated,public,sign}/{bucket}/{path} and `transform`
 * on signed URLs. Storage hands these to imgproxy (supabase/storage src/storage/renderer/image.ts);
 * here sharp (libvips, the library imgproxy is built on, its prebuilt binaries installed from the
 * npm registry) does the same work in-process:
 * - query `width`, `height` (integers, clamped to 1..2000 as IMAGE_TRANSFORMATION_LIMIT_MIN/MAX_SIZE),
 *   `resize` cover (imgproxy `fill`: fill the box, crop the centre; the default), contain (`fit`:
 *   inside the box, aspect kept) or fill (`force`: stretched), `quality` 20..100 (default 80) and
 *   `format` origin|avif, validated as Storage's transformationOptionsSchema;
 * - a single dimension keeps the aspect ratio; images are never enlarged and are auto-rotated by
 *   their EXIF orientation (imgproxy's defaults);
 * - with no `format`, WebP when the request's Accept allows it (the CLI runs imgproxy with
 *   IMGPROXY_ENABLE_WEBP_DETECTION=true), else the source's format; `origin` keeps the source's;
 * - source limits of the CLI's imgproxy: 50 megapixels (IMGPROXY_MAX_SRC_RESOLUTION=50), 25 MB
 *   (IMGPROXY_MAX_SRC_FILE_SIZE=25000000);
 * - the answer keeps the object's ETag and Cache-Control and adds `X-Transformations` (Storage's
 *   renderer); SVG is returned as it is stored, as imgproxy does.
 */
import type { Metadata } from "sharp";
import type { Bytes } from "./bytes.ts";
import { Errors, StorageError } from "./errors.ts";
import { renderObject, type RenderOptions, type StoredObject } from "./render.ts";

export interface TransformOptions {
  width?: number;
  height?: number;
  resize?: "cover" | "contain" | "fill";
  format?: "origin" | "avif";
  quality?: number;
}

const SIZE_MIN = 1;
const SIZE_MAX = 2000;
const MAX_SOURCE_PIXELS = 50_000_000;
const MAX_SOURCE_BYTES = 25_000_000;
const DEFAULT_QUALITY = 80;
const MAX_FRAMES = 60;

const RESIZE = ["cover", "contain", "fill"] as const;
const FORMATS = ["origin", "avif"] as const;

function integer(name: string, raw: string, min: number, max?: number): number {
  if (!/^-?\d+$/.test(raw.trim())) throw Errors.invalidRequest(`querystring/${name} must be integer`);
  const n = Number(raw);
  if (n < min) throw Errors.invalidRequest(`querystring/${name} must be >= ${min}`);
  if (max !== undefined && n > max) throw Errors.invalidRequest(`querystring/${name} must be <= ${max}`);
  return n;
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) {
    throw Errors.invalidRequest(`querystring/${name} must be equal to one of the allowed values`);
  }
  return raw as T;
}

/** The transformation a /render/image query asks for, validated as Storage validates it. */
export function parseTransformQuery(params: URLSearchParams): TransformOptions {
  const out: TransformOptions = {};
  const width = params.get("width");
  const height = params.get("height");
  const resize = params.get("resize");
  const format = params.get("format");
  const quality = params.get("quality");
  if (width !== null) out.width = integer("width", width, 0);
  if (height !== null) out.height = integer("height", height, 0);
  if (resize !== null) out.resize = oneOf("resize", resize, RESIZE);
  if (format !== null) out.format = oneOf("format", format, FORMATS);
  if (quality !== null) out.quality = integer("quality", quality, 20, 100);
  return out;
}

/** `transform` in a signed-URL request: the same options, as JSON. */
export function parseTransformBody(body: Record<string, unknown>): TransformOptions {
  const params = new URLSearchParams();
  for (const key of ["width", "height", "resize", "format", "quality"]) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string" && typeof v !== "number") {
      throw Errors.invalidRequest(`body/transform/${key} has an invalid type`);
    }
    params.set(key, String(v));
  }
  return parseTransformQuery(params);
}

const clamp = (n: number) => Math.min(Math.max(n, SIZE_MIN), SIZE_MAX);

/**
 * The options as the claim a signed URL carries (Storage's applyTransformation with keepOriginal):
 * `height:100,width:200,resize:cover,quality:70,format:avif`.
 */
export function transformationsClaim(t: TransformOptions): string {
  const parts: string[] = [];
  if (t.height) parts.push(`height:${clamp(t.height)}`);
  if (t.width) parts.push(`width:${clamp(t.width)}`);
  if (t.width || t.height) parts.push(`resize:${t.resize ?? "cover"}`);
  if (t.quality) parts.push(`quality:${t.quality}`);
  if (t.format && t.format !== "origin") parts.push(`format:${t.format}`);
  return parts.join(",");
}

/** Storage's setTransformationsFromString: the claim back into options (unknown parts ignored). */
export function transformationsFromClaim(claim: string): TransformOptions {
  const out: TransformOptions = {};
  for (const part of claim.split(",")) {
    const [name, value = ""] = part.split(":");
    const n = Number.parseInt(value, 10);
    if (name === "height" && n > 0) out.height = n;
    else if (name === "width" && n > 0) out.width = n;
    else if (name === "resize" && (RESIZE as readonly string[]).includes(value)) {
      out.resize = value as TransformOptions["resize"];
    } else if (name === "format" && (FORMATS as readonly string[]).includes(value)) {
      out.format = value as TransformOptions["format"];
    } else if (name === "quality" && n >= 20 && n <= 100) out.quality = n;
  }
  return out;
}

/** The imgproxy segments Storage sends (and echoes in X-Transformations). */
function imgproxySegments(t: TransformOptions): string[] {
  const parts: string[] = [];
  if (t.height) parts.push(`height:${clamp(t.height)}`);
  if (t.width) parts.push(`width:${clamp(t.width)}`);
  if (t.width || t.height) {
    parts.push(`resizing_type:${t.resize === "contain" ? "fit" : t.resize === "fill" ? "force" : "fill"}`);
  }
  if (t.quality) parts.push(`quality:${t.quality}`);
  if (t.format && t.format !== "origin") parts.push(`format:${t.format}`);
  return parts;
}

type OutFormat = "jpeg" | "png" | "webp" | "avif" | "gif" | "tiff";

const OUT_TYPES: Record<OutFormat, string> = {
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  avif: "image/avif",
  gif: "image/gif",
  tiff: "image/tiff",
};

function outputFormat(source: string | undefined, t: TransformOptions, accept: string | null): OutFormat {
  if (t.format === "avif") return "avif";
  if (t.format !== "origin" && accept && /(^|[\s,])image\/webp(\s*[;,]|\s*$)/i.test(accept)) return "webp";
  switch (source) {
    case "jpeg":
    case "jpg":
      return "jpeg";
    case "png":
    case "webp":
    case "avif":
    case "gif":
    case "tiff":
      return source;
    case "heif":
      return "avif";
    default:
      // Sources imgproxy reads but does not write (BMP, ICO...) come back as PNG.
      return "png";
  }
}

const unprocessable = (message: string) => new StorageError(422, "ImageProcessingError", message);

/** sharp's native addon loads on the first transformation, not when the platform boots. */
let sharpModule: Promise<typeof import("sharp")> | null = null;
function loadSharp(): Promise<typeof import("sharp")["default"]> {
  sharpModule ??= import("sharp");
  return sharpModule.then((m) => m.default);
}

export async function transformImage(
  input: Bytes,
  t: TransformOptions,
  accept: string | null,
): Promise<{ body: Bytes; contentType: string }> {
  if (input.byteLength > MAX_SOURCE_BYTES) throw unprocessable("Source image file is too big");
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: MAX_SOURCE_PIXELS }).metadata();
  } catch {
    throw unprocessable("Source image type not supported");
  }
  if ((meta.width ?? 0) * (meta.height ?? 0) > MAX_SOURCE_PIXELS) {
    throw unprocessable("Source image resolution is too big");
  }
  const format = outputFormat(meta.format, t, accept);
  // Animations stay animated where the output can carry them, up to imgproxy's 60 frames
  // (IMGPROXY_MAX_ANIMATION_FRAMES=60); otherwise the first frame is used.
  const animated = (meta.pages ?? 1) > 1 && (format === "gif" || format === "webp");
  let img = sharp(input, {
    limitInputPixels: MAX_SOURCE_PIXELS,
    ...(animated ? { pages: Math.min(meta.pages ?? 1, MAX_FRAMES) } : {}),
  });
  if (!animated) img = img.rotate();
  if (t.width || t.height) {
    // imgproxy never enlarges (IMGPROXY_ENLARGE off): each requested side is capped at the
    // source's, so `fill` (cover) of a small image crops it to the box rather than scaling it up.
    const srcW = meta.autoOrient?.width ?? meta.width ?? 0;
    const srcH = (animated ? meta.pageHeight : undefined) ?? meta.autoOrient?.height ?? meta.height ?? 0;
    const w = t.width ? clamp(t.width) : undefined;
    const h = t.height ? clamp(t.height) : undefined;
    if (t.resize === "contain") {
      img = img.resize({ width: w, height: h, fit: "inside", withoutEnlargement: true });
    } else if (w && h) {
      img = img.resize({
        width: Math.min(w, srcW || w),
        height: Math.min(h, srcH || h),
        fit: t.resize === "fill" ? "fill" : "cover",
        position: "centre",
      });
    } else {
      img = img.resize({ width: w, height: h, withoutEnlargement: true });
    }
  }
  const quality = t.quality ?? DEFAULT_QUALITY;
  switch (format) {
    case "jpeg":
      img = img.jpeg({ quality });
      break;
    case "webp":
      img = img.webp({ quality });
      break;
    case "avif":
      img = img.avif({ quality });
      break;
    case "png":
      img = img.png();
      break;
    case "gif":
      img = img.gif();
      break;
    case "tiff":
      img = img.tiff({ quality });
      break;
  }
  try {
    const out = await img.toBuffer();
    return {
      body: new Uint8Array(out.buffer, out.byteOffset, out.byteLength) as Bytes,
      contentType: OUT_TYPES[format],
    };
  } catch {
    throw unprocessable("Image processing failed");
  }
}

/** A transformed object as the HTTP answer Storage's renderer gives. */
export async function renderImage(
  req: Request,
  obj: StoredObject,
  bytes: Bytes,
  t: TransformOptions,
  opts: RenderOptions,
): Promise<Response> {
  const mimetype = obj.metadata?.mimetype?.split(";")[0].trim().toLowerCase();
  if (mimetype === "image/svg+xml") return renderObject(req, obj, bytes, opts);
  const out = await transformImage(bytes, t, req.headers.get("accept"));
  const res = renderObject(
    req,
    { ...obj, metadata: { ...obj.metadata, mimetype: out.contentType, size: out.body.byteLength } },
    out.body,
    opts,
  );
  const segments = imgproxySegments(t);
  if (segments.length > 0) res.headers.set("x-transformations", segments.join(","));
  return res;
}
