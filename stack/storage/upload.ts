/**
 * The file in an upload request, read the way Storage's Uploader reads it: a multipart form
 * (storage-js sends Blob/File/FormData bodies so, with `cacheControl`, optional `metadata` JSON
 * and the file under the field name "") or a raw body (content-type, cache-control and a
 * base64-JSON `x-metadata` header). The body is read with a size cap, never past it.
 */
import { createHash } from "node:crypto";
import type { Bytes } from "./bytes.ts";
import { Errors } from "./errors.ts";
import { MAX_JSON_DEPTH, valueTooDeep } from "@shared/input-limits.ts";

export interface IncomingFile {
  bytes: Bytes;
  mimetype: string;
  cacheControl: string;
  userMetadata: Record<string, unknown> | null;
}

/** storage.objects.metadata as Storage writes it. */
export interface ObjectMetadata {
  eTag: string;
  size: number;
  mimetype: string;
  cacheControl: string;
  lastModified: string;
  contentLength: number;
  httpStatusCode: number;
}

export function objectMetadata(bytes: Uint8Array, mimetype: string, cacheControl: string): ObjectMetadata {
  return {
    eTag: `"${createHash("md5").update(bytes).digest("hex")}"`,
    size: bytes.byteLength,
    mimetype,
    cacheControl,
    lastModified: new Date().toISOString(),
    contentLength: bytes.byteLength,
    httpStatusCode: 200,
  };
}

// Room for the form's boundaries, part headers and text fields around the file itself.
const MULTIPART_OVERHEAD = 1024 * 1024;

async function readLimited(req: Request, max: number): Promise<Bytes> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await req.body?.cancel();
    throw Errors.entityTooLarge();
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw Errors.entityTooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function parseUserMetadata(text: string, source: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw Errors.invalidRequest(`${source} must be JSON`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw Errors.invalidRequest(`${source} must be a JSON object`);
  }
  // Stored as jsonb: deeper nesting would overflow the embedded database (input-limits.ts).
  if (valueTooDeep(value, MAX_JSON_DEPTH, true)) {
    throw Errors.invalidRequest(`${source} must not nest more than ${MAX_JSON_DEPTH} levels deep`);
  }
  return value as Record<string, unknown>;
}

/**
 * A value later served as a response header (Cache-Control, Content-Type): printable ASCII only.
 * CR/LF would split the header (and makes the Headers API throw when the object is served).
 */
function headerValue(value: string, name: string): string {
  if (!/^[\x20-\x7e\t]*$/.test(value)) {
    throw Errors.invalidRequest(`${name} must be printable ASCII without line breaks`);
  }
  return value;
}

function decodeBase64Utf8(b64: string): string {
  let binary: string;
  try {
    binary = atob(b64.trim());
  } catch {
    throw Errors.invalidRequest("x-metadata must be base64-encoded JSON");
  }
  return new TextDecoder().decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
}

export async function readIncomingFile(req: Request, limit: number): Promise<IncomingFile> {
  const contentType = req.headers.get("content-type") ?? "";
  if (/^multipart\/form-data/i.test(contentType)) {
    const body = await readLimited(req, limit + MULTIPART_OVERHEAD);
    const parts = parseMultipart(body, contentType);
    const file = parts.find((p) => p.filename !== null) ?? parts.find((p) => p.name === "");
    if (!file) throw Errors.invalidRequest("No file provided");
    if (file.data.byteLength > limit) throw Errors.entityTooLarge();
    const field = (name: string) => {
      const p = parts.find((x) => x.name === name && x !== file);
      return p ? new TextDecoder().decode(p.data) : undefined;
    };
    const cacheTime = field("cacheControl");
    const metadata = field("metadata");
    return {
      bytes: file.data,
      mimetype: headerValue(
        field("contentType") || file.contentType || "application/octet-stream",
        "contentType",
      ),
      cacheControl: headerValue(cacheTime ? `max-age=${cacheTime}` : "no-cache", "cacheControl"),
      userMetadata: metadata ? parseUserMetadata(metadata, "metadata") : null,
    };
  }
  const bytes = await readLimited(req, limit);
  const xMetadata = req.headers.get("x-metadata");
  return {
    bytes,
    mimetype: headerValue(contentType || "application/octet-stream", "content-type"),
    cacheControl: headerValue(req.headers.get("cache-control") ?? "no-cache", "cache-control"),
    userMetadata: xMetadata ? parseUserMetadata(decodeBase64Utf8(xMetadata), "x-metadata") : null,
  };
}

interface Part {
  name: string | null;
  filename: string | null;
  contentType: string | null;
  data: Bytes;
}

const CRLF = new Uint8Array([13, 10]);
const CRLFCRLF = new Uint8Array([13, 10, 13, 10]);

function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (
    let i = hay.indexOf(first, from);
    i !== -1 && i + needle.length <= hay.length;
    i = hay.indexOf(first, i + 1)
  ) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function dispositionParam(disposition: string, param: string): string | null {
  const m = new RegExp(`(?:^|;)\\s*${param}="((?:[^"\\\\]|\\\\.)*)"|(?:^|;)\\s*${param}=([^;]*)`, "i")
    .exec(disposition);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2].trim();
}

/**
 * RFC 7578 multipart/form-data. Hand-rolled because Deno's Request.formData() drops parts whose
 * field name is empty, which is exactly the name storage-js gives the file.
 */
export function parseMultipart(body: Bytes, contentType: string): Part[] {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) throw Errors.invalidRequest("multipart body without a boundary");
  const delimiter = new TextEncoder().encode(`--${m[1] ?? m[2]}`);
  const nextDelimiter = new Uint8Array([...CRLF, ...delimiter]);
  const malformed = () => Errors.invalidRequest("Malformed multipart body");
  const parts: Part[] = [];
  let pos = indexOfBytes(body, delimiter, 0);
  if (pos === -1) throw malformed();
  for (;;) {
    pos += delimiter.length;
    if (body[pos] === 45 && body[pos + 1] === 45) return parts; // "--": the closing delimiter
    if (body[pos] !== 13 || body[pos + 1] !== 10) throw malformed();
    const headersEnd = indexOfBytes(body, CRLFCRLF, pos + 2);
    if (headersEnd === -1) throw malformed();
    const headers = new Map<string, string>();
    const headerText = new TextDecoder().decode(body.subarray(pos + 2, headersEnd));
    for (const line of headerText.split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const end = indexOfBytes(body, nextDelimiter, headersEnd + 4);
    if (end === -1) throw malformed();
    const disposition = headers.get("content-disposition") ?? "";
    parts.push({
      name: dispositionParam(disposition, "name"),
      filename: dispositionParam(disposition, "filename"),
      contentType: headers.get("content-type") ?? null,
      data: body.slice(headersEnd + 4, end),
    });
    pos = end + 2;
  }
}
