/**
 * GoTrue's rules for the admin user listing and for email addresses, kept apart from app.ts:
 * - supabase/auth internal/api/mail.go `validateEmail`: badoux/checkmail's `ValidateFormat`
 *   (the WHATWG "valid e-mail address" pattern: ASCII local part, dot-separated LDH labels, no
 *   dot required in the domain), failing as 400 validation_failed "Unable to validate email
 *   address: invalid format".
 * - supabase/auth internal/api/pagination.go `paginate` and internal/api/sorting.go `sort`,
 *   as api/admin.go `adminUsers` calls them: page and per_page parsed as unsigned integers
 *   (anything else is 400 "Bad Pagination Parameters: ..."), per_page 0 refused, newest first
 *   unless `sort=created_at asc`, and `filter` matching the email or user_metadata.full_name.
 */
import { AuthError } from "./errors.ts";

/** badoux/checkmail's emailRegexp, which GoTrue's validateEmail applies. */
export const CHECKMAIL_RE =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/**
 * The format check app.ts applies (`EMAIL_RE.test`): checkmail's pattern, and at most 255
 * characters (GoTrue refuses longer addresses before the format check; auth.users.email is
 * varchar(255)).
 */
export const GOTRUE_EMAIL_RE = {
  test: (email: string): boolean => email.length <= 255 && CHECKMAIL_RE.test(email),
};

export interface ListUsersParams {
  page: number;
  perPage: number;
  /** "desc" (GoTrue's default: newest first) or "asc". */
  direction: "asc" | "desc";
  /** A `filter` substring, or null. */
  filter: string | null;
}

const MAX_UINT64 = 18446744073709551615n;

/** Go's strconv.ParseUint(s, 10, 64), with its error text. */
function parseUint(s: string): number {
  if (!/^[0-9]+$/.test(s)) throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`);
  if (BigInt(s) > MAX_UINT64) {
    throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  }
  return Number(s);
}

export function parseListUsersParams(query: URLSearchParams): ListUsersParams {
  let page = 1;
  let perPage = 50;
  try {
    const qPage = query.get("page") ?? "";
    const qPerPage = query.get("per_page") ?? "";
    if (qPage !== "") page = parseUint(qPage);
    if (qPerPage !== "") {
      perPage = parseUint(qPerPage);
      if (perPage === 0) throw new Error("per_page must be greater than 0");
    }
  } catch (err) {
    throw new AuthError(400, "validation_failed", `Bad Pagination Parameters: ${(err as Error).message}`);
  }
  // pop's Paginate, which FindUsersInAudience calls, treats a page below 1 as page 1.
  if (page < 1) page = 1;
  let direction: "asc" | "desc" = "desc";
  for (const field of query.getAll("sort")) {
    const [name, dir] = field.split(" ", 2);
    if (name !== "created_at") {
      throw new AuthError(
        400,
        "validation_failed",
        `Bad Sort Parameters: field not allowed for sort '${name}'`,
      );
    }
    if (dir === undefined) direction = "desc";
    else if (dir.toLowerCase() === "asc" || dir.toLowerCase() === "desc") {
      direction = dir.toLowerCase() as "asc" | "desc";
    } else {
      throw new AuthError(
        400,
        "validation_failed",
        `Bad Sort Parameters: bad direction for sort '${dir}', only 'asc' and 'desc' allowed`,
      );
    }
  }
  const filter = query.get("filter");
  return { page, perPage, direction, filter: filter ? filter : null };
}

/**
 * The where clause, order and parameters of the listing (FindUsersInAudience):
 * `email LIKE %filter% OR raw_user_meta_data->>'full_name' ILIKE %filter%`.
 */
export function listUsersSql(p: ListUsersParams): { where: string; order: string; params: unknown[] } {
  const params: unknown[] = [];
  let where = "deleted_at is null";
  if (p.filter) {
    params.push(`%${p.filter}%`);
    where += ` and (email like $1 or raw_user_meta_data ->> 'full_name' ilike $1)`;
  }
  const order = `created_at ${p.direction}, id ${p.direction}`;
  return { where, order, params };
}
