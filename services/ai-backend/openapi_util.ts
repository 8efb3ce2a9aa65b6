/**
 * The pieces every router shares: an OpenAPIHono whose validation failures are the platform's
 * 400 shape ({error, code: "validation_failed", details}, the message naming the fields), and
 * small builders for the OpenAPI route definitions.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { BackendEnv } from "./context.ts";

function describe(issues: z.core.$ZodIssue[]): string {
  return issues.slice(0, 5).map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

export function router(): OpenAPIHono<BackendEnv> {
  return new OpenAPIHono<BackendEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const where = result.target === "json"
          ? "request body"
          : result.target === "query"
          ? "query parameters"
          : "path parameters";
        return c.json({
          error: `Invalid ${where}: ${describe(result.error.issues)}`,
          code: "validation_failed",
          details: result.error.issues,
        }, 400);
      }
    },
  });
}

export const jsonBody = <S extends z.ZodType>(schema: S) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

/** A JSON response of any object shape (the data the gateway wraps as {success, data}). */
export const anyJson = z.record(z.string(), z.unknown());

export const okJson = (description: string, status = 200) => ({
  [status]: { description, content: { "application/json": { schema: anyJson } } },
});

export const errorResponses = {
  400: { description: "Invalid request (the message names the fields)" },
  401: { description: "Missing or invalid authentication" },
  403: { description: "The caller's role does not allow this" },
  404: { description: "Not found (or not visible to the caller)" },
};

export const idParam = (name: string) => z.object({ [name]: z.uuid() });
