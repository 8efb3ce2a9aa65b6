/**
 * zod request validation, one way everywhere: bad input is a 400 `validation_failed` whose
 * message names the fields ("Invalid request body: items.0.quantity: ...") and whose details are
 * the zod issues. The same text comes from parseJson/validate (hand-parsed bodies) and from
 * validationHook, the defaultHook of every OpenAPIHono (routes declared with createRoute).
 *
 * Unknown keys: a body schema declared with z.strictObject (or .strict()) refuses a key it does
 * not declare; the message names it with its path, first of all issues: `unknown field "bogus"`,
 * `unknown fields "a", "b"`, `unknown field "content_brief.tone"`. A documented second spelling of
 * a field is declared with `withAliases`, never by loosening the schema (docs/request-bodies.md).
 */
import type { Context } from "hono";
import { z } from "zod";
import { HttpError, INVALID_JSON } from "./errors.ts";
import { MAX_JSON_DEPTH, valueTooDeep } from "../input-limits.ts";

/**
 * The first five issues as `path: message`, joined with "; ". Unknown keys come first (a
 * misspelled key also makes its correct spelling "missing", and the cause should lead) and name
 * each key with its path: `unknown field "content_brief.tone"`.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const unknown = issues.filter((i) => i.code === "unrecognized_keys");
  return [...unknown, ...issues.filter((i) => i.code !== "unrecognized_keys")]
    .slice(0, 5)
    .map((i) => {
      if (i.code === "unrecognized_keys") {
        const names = i.keys.map((k) => JSON.stringify([...i.path, k].join(".")));
        return `unknown field${names.length > 1 ? "s" : ""} ${names.join(", ")}`;
      }
      return i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message;
    })
    .join("; ");
}

/**
 * A documented second spelling of a field (`{workspaceId: "workspace_id"}`): the alias is renamed
 * to the field before `schema` (a strict object) parses, so handlers see one spelling. Both
 * spellings in one body are refused, naming them.
 */
export function withAliases<S extends z.ZodType>(schema: S, aliases: Readonly<Record<string, string>>) {
  return z.preprocess((value, ctx) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const out: Record<string, unknown> = { ...value };
    for (const [alias, field] of Object.entries(aliases)) {
      if (!Object.hasOwn(out, alias)) continue;
      if (Object.hasOwn(out, field)) {
        ctx.addIssue({
          code: "custom",
          message: `"${alias}" and "${field}" are the same field: send only "${field}"`,
        });
        continue;
      }
      out[field] = out[alias];
      delete out[alias];
    }
    return out;
  }, schema);
}

export function validationError(what: string, issues: z.core.$ZodIssue[]): HttpError {
  return new HttpError(400, "validation_failed", `Invalid ${what}: ${describeIssues(issues)}`, issues);
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, what = "request body"): z.infer<S> {
  refuseUnstorable(value, what);
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(what, r.error.issues);
  return r.data;
}

/** Parses and validates a JSON body; an empty or non-JSON body is a 400 too. */
export async function parseJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw INVALID_JSON;
  }
  refuseDeep(body);
  return validate(schema, body);
}

/**
 * JSON nested deeper than MAX_JSON_DEPTH is refused before any handler sees it: it would reach
 * the database as jsonb (which the embedded one cannot parse) or blow the stack of a recursive
 * JSON.stringify. Strings of deep brackets count, since a column or RPC may cast them.
 */
export function refuseDeep(value: unknown): void {
  if (valueTooDeep(value, MAX_JSON_DEPTH, true)) {
    throw new HttpError(
      400,
      "validation_failed",
      `Invalid request body: JSON nested more than ${MAX_JSON_DEPTH} levels deep`,
    );
  }
}

/**
 * Postgres text and jsonb cannot hold the NUL character (U+0000) or a lone UTF-16 surrogate: a
 * string carrying one would fail deep in a handler's SQL (22P05, 22P02) as a 500, or be mangled.
 * It is refused up front, naming where.
 */
export function refuseUnstorable(value: unknown, what: string): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (v.includes("\u0000") || !v.isWellFormed()) {
        throw new HttpError(
          400,
          "validation_failed",
          `Invalid ${what}: strings must be well-formed Unicode without NUL characters (\\u0000)`,
        );
      }
    } else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) stack.push(k, child);
    }
  }
}

export function parseQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return validate(schema, c.req.query(), "query parameters");
}

export function parseParams<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return validate(schema, c.req.param(), "path parameters");
}

const TARGETS: Record<string, string> = {
  json: "request body",
  form: "form body",
  query: "query parameters",
  param: "path parameters",
  header: "headers",
  cookie: "cookies",
};

/**
 * OpenAPIHono's defaultHook: a failed request schema throws the same 400 as validate(), so
 * declared routes and hand-parsed ones answer alike. (Hono's JSON validator answers a non-JSON
 * body itself, before the hook, with a 400 HTTPException that errorHandler keeps.)
 */
export function validationHook(
  result:
    | { success: true; data?: unknown; target?: string }
    | { success: false; error: { issues: z.core.$ZodIssue[] }; target: string },
): void {
  if (!result.success) throw validationError(TARGETS[result.target] ?? result.target, result.error.issues);
  if (result.target === "json") refuseDeep(result.data);
  refuseUnstorable(result.data, TARGETS[result.target ?? ""] ?? "request");
}
