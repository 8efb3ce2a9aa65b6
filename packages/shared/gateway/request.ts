/**
 * Turns a gateway call ({action, payload}) into the AI backend request: path parameters are
 * taken from the payload by name and URL-encoded (a value can never add a path segment or a
 * query); for GET the rest of the payload becomes the query string, otherwise the JSON body.
 */
import type { ActionSpec, HttpMethod } from "./actions.ts";

export interface BackendRequest {
  method: HttpMethod;
  /** Path with the query string, e.g. `/api/kb/documents/123` or `/api/kb/categories?workspace_id=...`. */
  path: string;
  /** JSON body for non-GET requests (the payload without its path parameters). */
  body: Record<string, unknown> | null;
}

/** A payload the map cannot turn into a request; `field` names the offending payload key. */
export class PayloadError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
    this.name = "PayloadError";
  }
}

const PARAM = /\{([a-z_]+)\}/g;

export function pathParams(template: string): string[] {
  return [...template.matchAll(PARAM)].map((m) => m[1]);
}

function paramValue(payload: Record<string, unknown>, name: string): string {
  const v = payload[name];
  if (v === undefined || v === null || v === "") {
    throw new PayloadError(name, `payload.${name} is required`);
  }
  if (typeof v !== "string" && typeof v !== "number") {
    throw new PayloadError(name, `payload.${name} must be a string or a number`);
  }
  return String(v);
}

/** Query-string form of one value: scalars as text, arrays as repeated keys, objects as JSON. */
function appendQuery(q: URLSearchParams, key: string, v: unknown): void {
  if (v === undefined || v === null) return;
  if (Array.isArray(v)) {
    for (const item of v) appendQuery(q, key, item);
  } else if (typeof v === "object") {
    q.append(key, JSON.stringify(v));
  } else {
    q.append(key, String(v));
  }
}

export function buildBackendRequest(
  spec: Pick<ActionSpec, "method" | "path">,
  payload: Record<string, unknown>,
): BackendRequest {
  const names = pathParams(spec.path);
  let path = spec.path;
  for (const name of names) {
    path = path.replace(`{${name}}`, encodeURIComponent(paramValue(payload, name)));
  }
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) if (!names.includes(k)) rest[k] = v;
  if (spec.method === "GET") {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) appendQuery(q, k, v);
    const qs = q.toString();
    return { method: spec.method, path: qs ? `${path}?${qs}` : path, body: null };
  }
  return { method: spec.method, path, body: rest };
}
