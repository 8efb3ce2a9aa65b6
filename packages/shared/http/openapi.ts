/**
 * Builders for OpenAPI route definitions (@hono/zod-openapi createRoute), shared by edge
 * functions and the AI backend: request bodies, response bodies and the error responses every
 * route can give, so each route states its schemas in a line or two.
 */
import { z } from "zod";

/** A required JSON request body. */
export const jsonBody = <S extends z.ZodType>(schema: S, description?: string) => ({
  body: { content: { "application/json": { schema } }, required: true, description },
});

/** A JSON response of any object shape (e.g. the data the gateway wraps as {success, data}). */
export const anyJson = z.record(z.string(), z.unknown());

/** A JSON response with the given schema (or any object). */
export const okJson = (description: string, status = 200, schema: z.ZodType = anyJson) => ({
  [status]: { description, content: { "application/json": { schema } } },
});

/**
 * The error responses every route can give. Each answers the one error shape {error, code,
 * details?} (http/errors.ts); it is described in words, not as a schema, so that a handler's
 * typed success response is not checked against it.
 */
export const errorResponses = {
  400: { description: "Invalid request: {error, code: validation_failed, details} naming the fields" },
  401: { description: "Missing or invalid authentication: {error, code: unauthorized}" },
  403: { description: "The caller's role does not allow this: {error, code: forbidden}" },
  404: { description: "Not found, or not visible to the caller: {error, code: not_found}" },
};

/** One more error response, for routes with statuses beyond the common four (402, 409, 413 ...). */
export const errorResponse = (description: string) => ({ description });

/** Path parameters that are uuids. */
export const idParam = <K extends string>(name: K) =>
  z.object({ [name]: z.uuid() } as { [P in K]: z.ZodUUID });
