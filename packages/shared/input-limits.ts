/**
 * Bounds on hostile input, checked before a value reaches the database or a recursive routine.
 *
 * The embedded database (PGlite, Postgres in WASM) has a much smaller native stack than a server:
 * JSON nested a few thousand levels deep, cast to json/jsonb, overflows it, and the failure is not
 * a clean `54001 stack depth limit exceeded` but a backend left half-broken (statements that
 * silently return nothing, then hang). So every surface refuses deep nesting up front:
 *
 * - `MAX_JSON_DEPTH` (128): arrays/objects nested deeper are refused with a 400. No document of
 *   this platform nests beyond a dozen levels; Postgres itself copes with a few thousand.
 * - `MAX_JSON_BODY_BYTES` (10 MiB): JSON request bodies larger than this are refused with a 413.
 *   PostgREST sets no limit of its own; this keeps one request from holding the single database
 *   connection (and the process's memory) with a multi-hundred-megabyte parameter.
 */

export const MAX_JSON_DEPTH = 128;
export const MAX_JSON_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Whether JSON text (valid or not) nests arrays/objects deeper than `max`, counting brackets
 * outside string literals. Linear, no recursion, stops at the first excess.
 */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return false;
}

/**
 * Whether free text (a SQL script, a filter value, an array literal) nests brackets of any kind —
 * `(`, `[`, `{` — deeper than `max`, quotes ignored: a deep JSON or array literal inside a SQL
 * string is exactly what must be caught.
 */
export function bracketsTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x28 || c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if ((c === 0x29 || c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return false;
}

/**
 * Whether a parsed value nests arrays/objects deeper than `max` (iterative, no recursion). With
 * `strings`, a string holding brackets nested deeper than `max` counts too: a function that casts
 * its text argument to jsonb (or an array) would hand the database the same deep structure.
 */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH, strings = false): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v === "string") {
      if (strings && v.length > max && bracketsTooDeep(v, max)) return true;
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (d + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && (typeof child === "object" || (strings && typeof child === "string"))) {
        stack.push([child, d + 1]);
      }
    }
  }
  return false;
}

/** A body over the limit: raised by readTextCapped, rendered by each surface in its own shape. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`Request body too large: the limit is ${limit} bytes`);
    this.name = "BodyTooLarge";
  }
}

/**
 * Reads a body stream as UTF-8 text, calling `tooLarge()` (and throwing what it returns) as soon
 * as it exceeds `limit` bytes. Shared by request bodies here and fetched responses (net/safe_fetch.ts).
 */
export async function readStreamTextCapped(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  tooLarge: () => Error,
): Promise<string> {
  return new TextDecoder().decode(await readStreamBytesCapped(body, limit, tooLarge));
}

/** Reads a body stream as bytes, with the same cap as readStreamTextCapped (gzip files, images). */
export async function readStreamBytesCapped(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.byteLength;
  }
  return all;
}

/**
 * Reads a request body as UTF-8 text, refusing it (BodyTooLarge) as soon as it exceeds `limit`
 * bytes, whether or not Content-Length announced it.
 */
export async function readTextCapped(req: Request, limit = MAX_JSON_BODY_BYTES): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge(limit);
  return await readStreamTextCapped(req.body, limit, () => new BodyTooLarge(limit));
}
