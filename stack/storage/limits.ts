/**
 * Names, sizes and types the Storage API accepts (supabase/storage src/storage/limits.ts), and
 * the request-side parsing shared by the routes (paths, JSON bodies).
 */
import type { z } from "zod";
import { Errors } from "./errors.ts";
import { MAX_JSON_DEPTH, valueTooDeep } from "@shared/input-limits.ts";

/** `[storage] file_size_limit` of the Supabase CLI's config.toml template: 50MiB. */
export const GLOBAL_FILE_SIZE_LIMIT = 50 * 1024 * 1024;

/** Signed upload URLs live two hours (Storage's UPLOAD_SIGNED_URL_EXPIRATION_TIME). */
export const SIGNED_UPLOAD_EXPIRY_SECONDS = 7200;

const BUCKET_NAME_RE = /^(\w|!|-|\.|\*|'|\(|\)| |&|\$|@|=|;|:|\+|,|\?)*$/;
// Characters XML 1.0 (and so S3 keys) cannot carry, and unpaired surrogates.
const INVALID_KEY_CHARS_RE =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\0-\x08\x0B\x0C\x0E-\x1F\x7F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MIME_RE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/([a-z0-9][a-z0-9!#$&^_.+-]*|\*)$/i;

export function mustBeValidBucketName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0 || name.length > 100 || !BUCKET_NAME_RE.test(name)) {
    throw Errors.invalidBucketName();
  }
  return name;
}

/**
 * Object names: any Unicode text S3 can carry, up to 1024 characters, without `.` or `..` path
 * segments. Such a name cannot be addressed over HTTP as itself (URL resolution, in supabase-js's
 * fetch and in the gateway in front of Storage, rewrites `a/../b` to `b`), so storing one would let
 * a path that passed a first-segment check later name another folder's object.
 */
export function mustBeValidKey(key: unknown): string {
  if (
    typeof key !== "string" || key.length === 0 || key.length > 1024 || INVALID_KEY_CHARS_RE.test(key) ||
    key.split("/").some((segment) => segment === "." || segment === "..")
  ) {
    throw Errors.invalidKey(typeof key === "string" ? key : "");
  }
  return key;
}

/** A bucket's file_size_limit: bytes, or "20GB" / "20MB" / "30KB" / "3B" (decimal units, as Storage). */
export function parseFileSizeLimit(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  let bytes: number;
  if (typeof value === "number") {
    bytes = value;
  } else if (typeof value === "string") {
    const m = /^([0-9]+(?:\.[0-9]+)?)\s*(gb|mb|kb|b)?$/i.exec(value.trim());
    if (!m) throw Errors.invalidRequest("Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B");
    const unit = { GB: 1e9, MB: 1e6, KB: 1e3, B: 1 }[(m[2] ?? "B").toUpperCase() as "GB" | "MB" | "KB" | "B"];
    bytes = Math.round(Number(m[1]) * unit);
  } else {
    throw Errors.invalidRequest("file_size_limit must be a number of bytes or a string such as 20MB");
  }
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw Errors.invalidRequest("file_size_limit must be a non-negative whole number of bytes");
  }
  if (bytes > GLOBAL_FILE_SIZE_LIMIT) {
    throw Errors.entityTooLarge("file_size_limit", `the global limit of ${GLOBAL_FILE_SIZE_LIMIT} bytes`);
  }
  // 0 means "no bucket-specific limit", as in Storage where a falsy limit is ignored.
  return bytes === 0 ? null : bytes;
}

export function parseAllowedMimeTypes(value: unknown): string[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || !MIME_RE.test(v))) {
    throw Errors.invalidRequest(
      "allowed_mime_types must be a list of mime types such as image/png or image/*",
    );
  }
  return value.length === 0 ? null : value as string[];
}

/** Exact match on the base type (parameters ignored), or a `type/*` wildcard. */
export function mimeTypeAllowed(mimeType: string, allowed: string[] | null): boolean {
  if (!allowed || allowed.length === 0) return true;
  const base = mimeType.split(";")[0].trim().toLowerCase();
  return allowed.some((a) => {
    const rule = a.toLowerCase();
    return rule.endsWith("/*") ? base.startsWith(rule.slice(0, -1)) : base === rule;
  });
}

/** `{bucket}/{key...}` from the raw (percent-encoded) path after a route prefix such as `/object/`. */
export function parseObjectPath(pathname: string, routePrefix: string): { bucket: string; key: string } {
  const rest = pathname.slice(routePrefix.length);
  const slash = rest.indexOf("/");
  const rawBucket = slash === -1 ? rest : rest.slice(0, slash);
  const rawKey = slash === -1 ? "" : rest.slice(slash + 1);
  let bucket: string;
  let key: string;
  try {
    bucket = decodeURIComponent(rawBucket);
  } catch {
    throw Errors.invalidBucketName();
  }
  try {
    key = decodeURIComponent(rawKey);
  } catch {
    throw Errors.invalidKey(rawKey);
  }
  return { bucket: mustBeValidBucketName(bucket), key: mustBeValidKey(key) };
}

/** A JSON body checked against a schema; every failure is a 400 that says what was wrong. */
export async function parseJsonBody<T extends z.ZodType>(req: Request, schema: T): Promise<z.infer<T>> {
  const text = await req.text();
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch {
      throw Errors.invalidRequest("Body is not valid JSON");
    }
  }
  // Metadata in bodies is stored as jsonb: deeper nesting would overflow the embedded database.
  if (valueTooDeep(value, MAX_JSON_DEPTH, true)) {
    throw Errors.invalidRequest(`body: JSON must not nest more than ${MAX_JSON_DEPTH} levels deep`);
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue.path.length ? `body/${issue.path.join("/")}` : "body";
    throw Errors.invalidRequest(`${where}: ${issue.message}`);
  }
  return result.data;
}
