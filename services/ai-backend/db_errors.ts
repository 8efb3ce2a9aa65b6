/**
 * PostgREST errors as HTTP errors: constraint and permission failures are the caller's (4xx),
 * anything else is ours (500, logged).
 */
import type { PostgrestError } from "@supabase/supabase-js";
import { HttpError } from "@shared/http/errors.ts";

export function dbError(error: PostgrestError, what: string): HttpError {
  switch (error.code) {
    case "23505":
      return HttpError.conflict(`${what}: already exists (${error.details ?? error.message})`);
    case "23503":
      return HttpError.badRequest(`${what}: ${error.message}`);
    case "23514":
    case "23502":
    case "22023":
    case "22P02":
    case "22001":
      return HttpError.badRequest(`${what}: ${error.message}`);
    case "42501":
      return HttpError.forbidden(`${what}: not allowed (${error.message})`);
    case "PGRST116":
      return HttpError.notFound(`${what}: not found`);
    default:
      console.error(`ai-backend: ${what} failed`, error);
      return new HttpError(500, "database_error", `${what} failed`);
  }
}

/** `data` of a supabase-js answer, or the mapped error. */
export function must<T>(r: { data: T | null; error: PostgrestError | null }, what: string): T {
  if (r.error) throw dbError(r.error, what);
  return r.data as T;
}
