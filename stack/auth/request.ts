/**
 * Reading /auth/v1 request bodies as GoTrue does: a JSON object or nothing, fields of the right
 * type, and the address and number formats it accepts.
 */
import type { Context } from "hono";
import { MAX_JSON_DEPTH, valueTooDeep } from "@shared/input-limits.ts";
import { GOTRUE_EMAIL_RE } from "./admin_users.ts";
import { AuthError, Errors } from "./errors.ts";

export type Json = Record<string, unknown>;

export const EMAIL_RE = GOTRUE_EMAIL_RE;
export const E164_RE = /^\+?[1-9]\d{6,14}$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The body as a JSON object (an empty body is `{}`); anything else is 400 bad_json. */
export async function jsonBody(c: Context): Promise<Json> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    const v = JSON.parse(text);
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw Errors.badJson();
    refuseHostile(v);
    return v as Json;
  } catch (err) {
    if (err instanceof AuthError) throw err;
    throw Errors.badJson();
  }
}

/**
 * Input Postgres cannot store or the embedded database cannot parse, refused before any query:
 * NUL in a string (text and jsonb reject it: 22021/22P05) and metadata nested deeper than
 * MAX_JSON_DEPTH (packages/shared/input-limits.ts).
 */
function refuseHostile(body: unknown): void {
  if (valueTooDeep(body, MAX_JSON_DEPTH, true)) {
    throw Errors.validation(`JSON must not nest more than ${MAX_JSON_DEPTH} levels deep`);
  }
  // JSON.stringify writes NUL as \u0000; escaped backslashes are dropped first.
  if (JSON.stringify(body).replaceAll("\\\\", "").includes("\\u0000")) {
    throw Errors.validation("Strings must not contain NUL characters");
  }
}

/** A string field, absent when missing or null; another type is 422 validation_failed. */
export function optString(body: Json, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw Errors.validation(`${key} must be a string`);
  return v;
}

/** An object field, absent when missing or null; another type is 422 validation_failed. */
export function optObject(body: Json, key: string): Json | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) throw Errors.validation(`${key} must be an object`);
  return v as Json;
}
