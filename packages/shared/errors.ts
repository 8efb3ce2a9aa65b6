/**
 * Domain errors: what domain modules (pricing, billing, agent, kb, quotes, crm ...) throw when a
 * request cannot be carried out. They say what went wrong in domain terms (`kind`) and never
 * know about HTTP; the HTTP layer (http/errors.ts errorHandler) maps each kind to its status:
 *
 * | kind                  | status |
 * | --------------------- | ------ |
 * | invalid               | 400    |
 * | unauthenticated       | 401    |
 * | insufficient_credits  | 402    |
 * | forbidden             | 403    |
 * | not_found             | 404    |
 * | not_allowed           | 405    |
 * | not_acceptable        | 406    |
 * | conflict              | 409    |
 * | too_large             | 413    |
 * | range_unsatisfiable   | 416    |
 * | unprocessable         | 422    |
 * | rate_limited          | 429    |
 * | upstream              | 502    |
 * | unavailable           | 503    |
 * | internal              | 500    |
 *
 * `code` is the stable machine code clients read (`{error, code, details}`), one of the catalog's
 * (error_codes.ts: a code must be listed there with its meaning, or `deno check` refuses it);
 * `details` is optional structured context (never secrets).
 *
 * Domain code throws only DomainError; HttpError (http/errors.ts) belongs to the HTTP layer.
 */
import type { ErrorCode } from "./error_codes.ts";

export type DomainErrorKind =
  | "invalid"
  | "unauthenticated"
  | "insufficient_credits"
  | "forbidden"
  | "not_found"
  | "not_allowed"
  | "not_acceptable"
  | "conflict"
  | "too_large"
  | "range_unsatisfiable"
  | "unprocessable"
  | "rate_limited"
  | "upstream"
  | "unavailable"
  | "internal";

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "DomainError";
  }

  static invalid(message: string, details?: unknown, code: ErrorCode = "bad_request") {
    return new DomainError("invalid", code, message, details);
  }
  static unauthenticated(message = "Missing or invalid authentication") {
    return new DomainError("unauthenticated", "unauthorized", message);
  }
  static insufficientCredits(message = "Insufficient credits", details?: unknown) {
    return new DomainError("insufficient_credits", "insufficient_credits", message, details);
  }
  static forbidden(message = "You do not have access to this resource", code: ErrorCode = "forbidden") {
    return new DomainError("forbidden", code, message);
  }
  static notFound(message = "Not found", code: ErrorCode = "not_found") {
    return new DomainError("not_found", code, message);
  }
  static conflict(message: string, details?: unknown, code: ErrorCode = "conflict") {
    return new DomainError("conflict", code, message, details);
  }
  static unavailable(message: string, code: ErrorCode) {
    return new DomainError("unavailable", code, message);
  }
  static internal(message: string, code: ErrorCode = "internal_error") {
    return new DomainError("internal", code, message);
  }
}

export const DOMAIN_ERROR_STATUS: Readonly<Record<DomainErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  too_large: 413,
  range_unsatisfiable: 416,
  unprocessable: 422,
  rate_limited: 429,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};
