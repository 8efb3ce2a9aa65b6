/**
 * The one error type of every function and service: an HttpError carries the status, a stable
 * machine code, a message for people and optional details (e.g. zod issues). errorHandler renders
 * it, and anything else, as `{error, code, details}` JSON; unknown failures become a 500 without
 * leaking internals.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "HttpError";
  }

  static badRequest(message: string, details?: unknown) {
    return new HttpError(400, "bad_request", message, details);
  }
  static unauthorized(message = "Missing or invalid authentication") {
    return new HttpError(401, "unauthorized", message);
  }
  static paymentRequired(message = "Insufficient credits", details?: unknown) {
    return new HttpError(402, "insufficient_credits", message, details);
  }
  static forbidden(message = "You do not have access to this resource") {
    return new HttpError(403, "forbidden", message);
  }
  static notFound(message = "Not found") {
    return new HttpError(404, "not_found", message);
  }
  static conflict(message: string, details?: unknown) {
    return new HttpError(409, "conflict", message, details);
  }
  static notImplemented(message: string) {
    return new HttpError(501, "not_implemented", message);
  }
}

export interface ErrorBody {
  error: string;
  code: string;
  details?: unknown;
}

export function errorBody(err: HttpError): ErrorBody {
  const body: ErrorBody = { error: err.message, code: err.code };
  if (err.details !== undefined) body.details = err.details;
  return body;
}

/** Hono onError handler. */
export function errorHandler(err: Error, c: Context): Response {
  if (err instanceof HttpError) return c.json(errorBody(err), err.status);
  // Hono's own HTTPException (e.g. from a body limit) keeps its status.
  const status = (err as { status?: number }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return c.json(
      { error: err.message || "Bad request", code: "bad_request" },
      status as ContentfulStatusCode,
    );
  }
  console.error(`[${c.req.method} ${new URL(c.req.url).pathname}]`, err);
  return c.json({ error: "Internal server error", code: "internal_error" }, 500);
}
