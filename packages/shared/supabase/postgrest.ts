/**
 * The data layer's one mapping of supabase-js (PostgREST) failures to DomainErrors, for edge
 * functions and the AI backend alike, so a constraint the database enforces reaches the client as
 * the 4xx it is (PostgREST's own choices: unique and foreign-key violations 409, bad values 400,
 * RLS 403) and only a real fault is a 500, logged, without internals in the answer (unless the
 * caller names its own fault, see dbError's `fault`).
 *
 * `what` names the resource ("Contact", "Job") in the messages: "Contact not found".
 */
import { DOMAIN_ERROR_STATUS, DomainError, type DomainErrorKind } from "../errors.ts";
import type { ErrorCode } from "../error_codes.ts";

export interface DbError {
  code?: string;
  message: string;
  details?: string | null;
  hint?: string | null;
}

export interface DbResult<T> {
  data: T | null;
  error: DbError | null;
  status?: number;
  count?: number | null;
}

/** A refusal's DomainError kind by its HTTP status (PostgREST's 4xx all have one; any other: invalid). */
const KIND_BY_STATUS = new Map(
  (Object.entries(DOMAIN_ERROR_STATUS) as [DomainErrorKind, number][]).map(([k, s]) => [s, k]),
);

/** How a caller's own fault (a 500 that is not a refusal) is said, instead of a logged db_error. */
export interface DbFault {
  code: ErrorCode;
  message: string;
}

/**
 * The DomainError a PostgREST error stands for; `what` names the resource in 404/409 messages,
 * `status` is the response's. A fault (5xx, or an error with no status) is `db_error` "The
 * database request failed" (logged), or `fault` when the caller gives one: a module whose fault
 * has its own code (billing_failed ...) still answers refusals through this mapping.
 */
export function dbError(error: DbError, what = "Resource", status = 0, fault?: DbFault): DomainError {
  const details = { code: error.code, details: error.details ?? null, hint: error.hint ?? null };
  // The database API refused the request body as too large (the local /rest/v1 answers 413
  // PGRST102; a gateway in front of a hosted project answers 413): the write is too big for one
  // request, which is the caller's input, not a fault.
  if (status === 413 || (error.code === "PGRST102" && /too large/i.test(error.message))) {
    return new DomainError(
      "too_large",
      "payload_too_large",
      `${what} is too large to write in one database request (${error.message}${
        error.details ? `: ${error.details}` : ""
      }); split it into smaller parts`,
      details,
    );
  }
  switch (error.code) {
    case "PGRST116":
      return DomainError.notFound(`${what} not found`);
    case "23505":
      return DomainError.conflict(`${what} already exists: ${error.details ?? error.message}`, details);
    case "23503":
      return DomainError.conflict(
        `${what} refers to a row that does not exist or is still referenced`,
        details,
      );
    case "23502":
    case "23514":
    case "22023":
    case "22P02":
    case "22003":
    case "22001":
    case "22007":
    case "22008":
      return DomainError.invalid(error.message, details, "invalid_value");
    case "42501":
      return DomainError.forbidden(error.message);
  }
  if (status >= 400 && status < 500) {
    // PostgREST's own request errors (PGRST1xx) and mapped SQLSTATEs (PTxyz) keep their status
    // when a kind has it.
    return new DomainError(
      KIND_BY_STATUS.get(status) ?? "invalid",
      "db_request_failed",
      error.message,
      details,
    );
  }
  if (fault) return DomainError.internal(fault.message, fault.code);
  // A fault worth seeing in the logs; 4xx are the caller's input.
  console.error(`${what}: database request failed`, status, error);
  return DomainError.internal("The database request failed", "db_error");
}

/** The rows of a successful call; throws the mapped DomainError otherwise. */
export function rows<T>(r: DbResult<T>, what?: string): T {
  if (r.error) throw failure(r, what);
  return r.data as T;
}

/** One row or a 404 (for maybeSingle() results and empty representations). */
export function one<T>(r: DbResult<T | T[]>, what = "Resource"): T {
  if (r.error) throw failure(r, what);
  const v = Array.isArray(r.data) ? r.data[0] : r.data;
  if (v === null || v === undefined) throw DomainError.notFound(`${what} not found`);
  return v as T;
}

function failure(r: DbResult<unknown>, what?: string): DomainError {
  return dbError(r.error!, what, r.status ?? 0);
}

/**
 * One page of a list read with `count: "exact"` and range(): `{data, count}`. An offset past the
 * last row is an empty page with the true count (PostgREST answers it 416 PGRST103, naming the
 * total: "An offset of 100 was requested, but there are only 5 rows."), not an error.
 */
export function page<T>(r: DbResult<T[]>, what?: string): { data: T[]; count: number } {
  if (r.error?.code === "PGRST103") {
    const total = Number(/only (\d+) rows?/.exec(r.error.details ?? "")?.[1]);
    if (Number.isInteger(total)) return { data: [], count: total };
  }
  return { data: rows(r, what) ?? [], count: r.count ?? 0 };
}

/**
 * The value of a PostgREST `in` filter, `("a","b")`, for `.filter(column, "in", ...)`: every value
 * quoted, with `"` and `\` backslash-escaped as PostgREST reads them. supabase-js's own `.in()`
 * quotes only values containing `,()` and escapes nothing, so a value such as `12" tiles, grey`
 * breaks its list; use this for free text (titles, names).
 */
export function inFilterList(values: readonly string[]): string {
  return `(${values.map((v) => `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")})`;
}

/**
 * `values` as the `in` lists of several reads, each at most `maxEncoded` characters once
 * URL-encoded: a read is a GET, and a long request line is refused (fetch at ~64 kB, proxies in
 * front of a hosted project sooner: 414), so an unbounded list must be split. A single value
 * longer than the limit still gets a list of its own.
 */
export function inFilterGroups(values: readonly string[], maxEncoded = 6_000): string[] {
  const groups: string[][] = [];
  let size = 0;
  for (const v of values) {
    // The value alone in a list, plus its encoded comma (%2C): never less than it adds to a list.
    const len = encodeURIComponent(inFilterList([v])).length + 3;
    if (!groups.length || size + len > maxEncoded) {
      groups.push([]);
      size = 0;
    }
    groups[groups.length - 1].push(v);
    size += len;
  }
  return groups.map(inFilterList);
}

/** PostgREST's max rows per response (`max_rows`: 1,000 on Supabase and in the local /rest/v1). */
export const MAX_ROWS = 1000;

// deno-lint-ignore no-explicit-any
type PageableQuery = any; // a PostgREST filter builder of any table

/**
 * Every row of one query (or the first `cap`), read in pages of MAX_ROWS: a single read of more is
 * cut at the max rows without an error, so anything that may exceed 1,000 rows must page. `query`
 * builds the query afresh for each page; it must be ordered with a unique last key (pages then
 * neither skip nor repeat rows), and select with `{count: "exact"}` when the count is wanted.
 * Answers like one PostgREST read, so `rows()` takes it: `{data, count, error}`, the count being
 * the first page's (all matches; 0 without a count).
 */
export async function readPages<T>(
  query: () => PageableQuery,
  cap = Number.POSITIVE_INFINITY,
): Promise<{ data: T[]; count: number; error: DbError | null }> {
  let data: T[] = [];
  let count = 0;
  for (let from = 0; from < cap; from += MAX_ROWS) {
    const size = Math.min(MAX_ROWS, cap - from);
    const r = await query().range(from, from + size - 1);
    if (r.error) return { data, count, error: r.error as DbError };
    if (from === 0) count = r.count ?? 0;
    data = data.concat(r.data as T[]);
    if ((r.data as T[]).length < size) break;
  }
  return { data, count, error: null };
}

/**
 * One read per `in` group of `values` (inFilterGroups), the rows merged: `read(list)` is the query
 * with `.filter(column, "in", list)`. Answers like one PostgREST read (`rows()` takes it), with the
 * first error. Each group is a few hundred values at most, so a read per value stays far under
 * max_rows; a query that may match many rows per value pages instead.
 */
export async function readInGroups<T>(
  values: readonly string[],
  read: (list: string) => PromiseLike<{ data: T[] | null; error: DbError | null }>,
): Promise<{ data: T[]; error: DbError | null }> {
  let data: T[] = [];
  for (const list of inFilterGroups(values)) {
    const r = await read(list);
    if (r.error) return { data, error: r.error };
    data = data.concat(r.data ?? []);
  }
  return { data, error: null };
}
