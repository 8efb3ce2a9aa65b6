/**
 * The HTTP error type of every function and service, and the one error shape they answer with:
 * `{error, code, details?}`. An HttpError carries the status, a stable machine code, a message
 * for people and optional details (e.g. zod issues). errorHandler renders HttpErrors, the
 * domain's DomainErrors (errors.ts, status by kind) and Hono's HTTPExceptions; anything else is
 * a 500 that leaks no internals (the cause goes to the log with the request id).
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode } from "../error_codes.ts";
import { DOMAIN_ERROR_STATUS, DomainError } from "../errors.ts";

export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
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
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: unknown;
}

/** A body that is not JSON, wherever it is parsed. */
export const INVALID_JSON = new HttpError(400, "invalid_json", "Request body must be valid JSON");

/** The HttpError a thrown value stands for, or null for an unexpected failure (a 500). */
export function toHttpError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) {
    return new HttpError(
      DOMAIN_ERROR_STATUS[err.kind] as ContentfulStatusCode,
      err.code,
      err.message,
      err.details,
    );
  }
  // Hono's own HTTPException (e.g. from a body limit) keeps its status.
  const status = (err as { status?: unknown } | null)?.status;
  if (err instanceof Error && status === 400 && err.message === "Malformed JSON in request body") {
    // Hono's JSON validator (declared routes) says it as parseJson (hand-parsed ones) does.
    return INVALID_JSON;
  }
  if (err instanceof Error && typeof status === "number" && status >= 400 && status < 500) {
    return new HttpError(status as ContentfulStatusCode, "bad_request", err.message || "Bad request");
  }
  return null;
}

export function errorBody(err: HttpError): ErrorBody {
  const body: ErrorBody = { error: err.message, code: err.code };
  if (err.details !== undefined) body.details = err.details;
  return body;
}

/** Hono onError handler. */
export function errorHandler(err: Error, c: Context): Response {
  const http = toHttpError(err);
  if (http) return c.json(errorBody(http), http.status);
  const id = (c.get("requestId" as never) as string | undefined) ?? "-";
  console.error(`[${c.req.method} ${new URL(c.req.url).pathname} ${id}]`, err);
  return c.json({ error: "Internal server error", code: "internal_error" }, 500);
}

/** Hono notFound handler: the one 404 of every app. */
export function notFoundHandler(c: Context): Response {
  const err = HttpError.notFound(`No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
  return c.json(errorBody(err), 404);
}
