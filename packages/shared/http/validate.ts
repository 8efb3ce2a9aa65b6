/**
 * zod request validation: bad input is a 400 whose message names the fields and whose details
 * are the zod issues.
 */
import type { Context } from "hono";
import { z } from "zod";
import { HttpError } from "./errors.ts";

function describe(issues: z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, what = "request body"): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new HttpError(
      400,
      "validation_failed",
      `Invalid ${what}: ${describe(r.error.issues)}`,
      r.error.issues,
    );
  }
  return r.data;
}

/** Parses and validates a JSON body; an empty or non-JSON body is a 400 too. */
export async function parseJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new HttpError(400, "invalid_json", "Request body must be valid JSON");
  }
  return validate(schema, body);
}

export function parseQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return validate(schema, c.req.query(), "query parameters");
}

export function parseParams<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return validate(schema, c.req.param(), "path parameters");
}
