/**
 * Object paths the platform stores and later reads with the service role. A stored path must name
 * exactly one object in the folder it claims: no empty, `.` or `..` segment, no backslash, no
 * control character and no `%` (nothing percent-encoded that a later decode turns into a separator
 * or a dot segment). The database holds the same rule (`public.is_safe_object_path`, migration
 * 20260121000100) for ai_jobs.storage_path, for every writer.
 */

// deno-lint-ignore no-control-regex -- refusing control characters is the point
const UNSAFE_CHARS_RE = /[\\%\x00-\x1f\x7f]/;

/** True for a relative path of plain segments, 1 to 1024 characters (as the SQL rule). */
export function isSafeObjectPath(path: string): boolean {
  if (path.length === 0 || path.length > 1024 || UNSAFE_CHARS_RE.test(path)) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/**
 * A client's file name as one safe path segment: NFKC, anything but [A-Za-z0-9_.-] becomes `_`
 * (so no `/`, `\` or `%` survives), no leading dots or underscores, at most 200 characters;
 * `document` when nothing is left.
 */
export function safeFileName(name: string): string {
  const cleaned = name.normalize("NFKC").replace(/[^\w.\-]+/g, "_").replace(/^[._]+/, "").slice(0, 200);
  return cleaned || "document";
}
