/**
 * Object bytes as an HTTP response, with the headers Storage's asset renderer sets: type, length,
 * ETag, Last-Modified, Cache-Control (or Expires for signed URLs), ranges and
 * `?download=` attachments; conditional GETs with If-None-Match answer 304.
 */
import { Errors } from "./errors.ts";
import type { Bytes } from "./bytes.ts";
import type { ObjectMetadata } from "./upload.ts";

export interface StoredObject {
  id: string;
  bucket_id: string;
  name: string;
  owner: string | null;
  owner_id: string | null;
  version: string | null;
  metadata: Partial<ObjectMetadata> | null;
  user_metadata: Record<string, unknown> | null;
  created_at: Date | string | null;
  updated_at: Date | string | null;
  last_accessed_at: Date | string | null;
}

export const OBJECT_COLUMNS =
  "id, bucket_id, name, owner, owner_id, version, metadata, user_metadata, created_at, updated_at, last_accessed_at";

export interface RenderOptions {
  /** `?download=` : present (even empty) asks for an attachment. */
  download: string | null;
  /** Signed URLs send Expires (the token's exp) instead of Cache-Control. */
  expires?: Date;
}

/**
 * Uploaded bytes must never run as a page of the API origin (a stored script on :54321 would act
 * with every session of that origin). Supabase Storage serves `text/html` as `text/plain`
 * (supabase/storage src/storage/renderer/renderer.ts, normalizeContentType, a case-sensitive
 * substring test). Here the media type is compared case-insensitively and without parameters,
 * so `TEXT/HTML` and `text/html; charset=utf-8` are caught too, and:
 * - HTML and XHTML are served as `text/plain`, as Storage does for HTML;
 * - SVG and the other XML types (which run script when opened as a document, and which `<img>`
 *   still needs under their own type) keep their type but are served as an attachment with a
 *   sandboxing CSP, so a navigation downloads them and nothing in them runs;
 * - every object response carries `X-Content-Type-Options: nosniff`, so no browser sniffs
 *   `text/plain` or `application/octet-stream` bytes back into HTML.
 */
type Served = { contentType: string; active: boolean };

const AS_TEXT = new Set(["text/html", "application/xhtml+xml"]);
const ACTIVE_XML = new Set([
  "image/svg+xml",
  "text/xml",
  "application/xml",
  "text/xsl",
  "application/xslt+xml",
]);

export function servedType(mimetype: string | undefined): Served {
  if (!mimetype) return { contentType: "application/octet-stream", active: false };
  const base = mimetype.split(";")[0].trim().toLowerCase();
  if (AS_TEXT.has(base) || base.includes("html")) return { contentType: "text/plain", active: false };
  if (ACTIVE_XML.has(base) || base.endsWith("+xml")) return { contentType: mimetype, active: true };
  return { contentType: mimetype, active: false };
}

function lastModified(obj: StoredObject): string | null {
  const v = obj.metadata?.lastModified ?? obj.updated_at;
  return v ? new Date(v).toUTCString() : null;
}

/** A single `bytes=` range as [start, end] inclusive; null to serve the whole body. */
function parseRange(header: string | null, size: number): [number, number] | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: RFC 9110 lets a server ignore the header.
  if (!m) {
    if (/^bytes=/.test(header.trim()) && !header.includes(",")) throw Errors.invalidRange();
    return null;
  }
  let start: number;
  let end: number;
  if (m[1] === "" && m[2] === "") throw Errors.invalidRange();
  if (m[1] === "") {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) throw Errors.invalidRange();
  return [start, end];
}

export function renderObject(req: Request, obj: StoredObject, bytes: Bytes, opts: RenderOptions): Response {
  const headers = new Headers();
  const etag = obj.metadata?.eTag;
  headers.set("accept-ranges", "bytes");
  const served = servedType(obj.metadata?.mimetype);
  headers.set("content-type", served.contentType);
  headers.set("x-content-type-options", "nosniff");
  if (served.active) {
    headers.set("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    if (opts.download === null) headers.set("content-disposition", "attachment;");
  }
  if (etag) headers.set("etag", etag);
  const modified = lastModified(obj);
  if (modified) headers.set("last-modified", modified);
  if (opts.expires) headers.set("expires", opts.expires.toUTCString());
  else headers.set("cache-control", obj.metadata?.cacheControl ?? "no-cache");
  if (opts.download !== null) {
    const name = encodeURIComponent(opts.download);
    headers.set(
      "content-disposition",
      opts.download === "" ? "attachment;" : `attachment; filename=${name}; filename*=UTF-8''${name};`,
    );
  }
  const ifNoneMatch = req.headers.get("if-none-match");
  if (etag && ifNoneMatch && ifNoneMatch.split(",").map((s) => s.trim()).includes(etag)) {
    return new Response(null, { status: 304, headers });
  }
  const range = parseRange(req.headers.get("range"), bytes.byteLength);
  let body = bytes;
  let status = 200;
  if (range) {
    body = bytes.subarray(range[0], range[1] + 1);
    status = 206;
    headers.set("content-range", `bytes ${range[0]}-${range[1]}/${bytes.byteLength}`);
  }
  headers.set("content-length", String(body.byteLength));
  return new Response(req.method === "HEAD" ? null : body, { status, headers });
}

/** GET /object/info/...: the object described, in the shape storage-js `info()` camelizes. */
export function objectInfo(obj: StoredObject): Record<string, unknown> {
  return {
    id: obj.id,
    name: obj.name,
    version: obj.version,
    bucket_id: obj.bucket_id,
    size: obj.metadata?.size ?? null,
    content_type: obj.metadata?.mimetype ?? null,
    cache_control: obj.metadata?.cacheControl ?? null,
    etag: obj.metadata?.eTag ?? null,
    // Storage answers {} for an object uploaded without user metadata, never null.
    metadata: obj.user_metadata ?? {},
    last_modified: obj.updated_at,
    created_at: obj.created_at,
  };
}
