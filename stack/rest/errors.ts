/**
 * PostgREST's errors: its own PGRSTxxx codes with their statuses, messages, details and hints
 * (src/PostgREST/Error.hs), and the SQLSTATE -> HTTP status mapping for errors raised by
 * Postgres (mapSQLtoHTTP). Every failure of the REST layer is one of these, rendered the same way.
 */

import { MAX_JSON_DEPTH } from "@shared/input-limits.ts";

export class PgrstError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string | unknown[] | null = null,
    readonly hint: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "PgrstError";
  }
}

/** Aeson encodes the error object with its keys sorted, so clients see code, details, hint, message. */
export function renderError(err: PgrstError): Response {
  const body = JSON.stringify({ code: err.code, details: err.details, hint: err.hint, message: err.message });
  return new Response(body, {
    status: err.status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "proxy-status": `PostgREST; error=${err.code}`,
      ...err.headers,
    },
  });
}

const q = (s: string) => `'${s}'`;

export const Errors = {
  queryParam: (message: string, details: string) => new PgrstError(400, "PGRST100", message, details),
  invalidRpcMethod: (method: string) =>
    new PgrstError(405, "PGRST101", `Cannot use the ${method} method on RPC`),
  invalidBody: (message: string) => new PgrstError(400, "PGRST102", message),
  /** Local limits (packages/shared/input-limits.ts), reported in the invalid-body family. */
  tooDeep: () =>
    new PgrstError(
      400,
      "PGRST102",
      "JSON nested too deeply",
      `Arrays and objects may nest at most ${MAX_JSON_DEPTH} levels`,
    ),
  bodyTooLarge: (limit: number) =>
    new PgrstError(413, "PGRST102", "Request body too large", `The limit is ${limit} bytes`),
  invalidRange: (details: string) =>
    new PgrstError(416, "PGRST103", "Requested range not satisfiable", details),
  outOfBounds: (offset: bigint, total: number) =>
    Errors.invalidRange(`An offset of ${offset} was requested, but there are only ${total} rows.`),
  unacceptableSchema: (schema: string, exposed: string[]) =>
    new PgrstError(
      406,
      "PGRST106",
      `Invalid schema: ${schema}`,
      null,
      `Only the following schemas are exposed: ${exposed.join(", ")}`,
    ),
  mediaType: (types: string[]) =>
    new PgrstError(406, "PGRST107", `None of these media types are available: ${types.join(", ")}`),
  notEmbedded: (resource: string) =>
    new PgrstError(
      400,
      "PGRST108",
      `${q(resource)} is not an embedded resource in this request`,
      null,
      `Verify that ${q(resource)} is included in the 'select' query parameter.`,
    ),
  gucHeaders: () =>
    new PgrstError(
      500,
      "PGRST111",
      "response.headers guc must be a JSON array composed of objects with a single key and a string value",
    ),
  gucStatus: () => new PgrstError(500, "PGRST112", "response.status guc must be a valid status code"),
  singularity: (rows: number) =>
    new PgrstError(
      406,
      "PGRST116",
      "Cannot coerce the result to a single JSON object",
      `The result contains ${rows} rows`,
    ),
  unsupportedMethod: (method: string) =>
    new PgrstError(405, "PGRST117", `Unsupported HTTP method: ${method}`),
  relatedOrderNotToOne: (origin: string, target: string) =>
    new PgrstError(
      400,
      "PGRST118",
      `A related order on ${q(target)} is not possible`,
      `${q(origin)} and ${q(target)} do not form a many-to-one or one-to-one relationship`,
    ),
  unacceptableFilter: (target: string) =>
    new PgrstError(
      400,
      "PGRST120",
      `Bad operator on the ${q(target)} embedded resource`,
      "Only is null or not is null filters are allowed on embedded resources",
    ),
  pgrstParse: (details: string, hint: string) =>
    new PgrstError(
      500,
      "PGRST121",
      `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`,
      details,
      hint,
    ),
  invalidPreferences: (prefs: string[]) =>
    new PgrstError(
      400,
      "PGRST122",
      "Invalid preferences given with handling=strict",
      `Invalid preferences: ${prefs.join(", ")}`,
    ),
  aggregatesNotAllowed: () => new PgrstError(400, "PGRST123", "Use of aggregate functions is not allowed"),
  maxAffected: (rows: number) =>
    new PgrstError(
      400,
      "PGRST124",
      "Query result exceeds max-affected preference constraint",
      `The query affects ${rows} rows`,
    ),
  invalidPath: () => new PgrstError(404, "PGRST125", "Invalid path specified in request URL"),
  notImplemented: (details: string) => new PgrstError(400, "PGRST127", "Feature not implemented", details),
  maxAffectedRpc: () =>
    new PgrstError(
      400,
      "PGRST128",
      "Function must return SETOF or TABLE when max-affected preference is used with handling=strict",
    ),
  noRelBetween: (
    parent: string,
    child: string,
    hint: string | undefined,
    schema: string,
    suggestion: string | null,
  ) =>
    new PgrstError(
      400,
      "PGRST200",
      `Could not find a relationship between ${q(parent)} and ${q(child)} in the schema cache`,
      `Searched for a foreign key relationship between ${q(parent)} and ${q(child)}${
        hint ? ` using the hint ${q(hint)}` : ""
      } in the schema ${q(schema)}, but no matches were found.`,
      suggestion,
    ),
  ambiguousRel: (parent: string, child: string, details: unknown[], hints: string[]) =>
    new PgrstError(
      300,
      "PGRST201",
      `Could not embed because more than one relationship was found for ${q(parent)} and ${q(child)}`,
      details,
      `Try changing ${q(child)} to one of the following: ${
        hints.join(", ")
      }. Find the desired relationship in the 'details' key.`,
    ),
  noRpc: (message: string, details: string, hint: string | null) =>
    new PgrstError(404, "PGRST202", message, details, hint),
  ambiguousRpc: (signatures: string[]) =>
    new PgrstError(
      300,
      "PGRST203",
      `Could not choose the best candidate function between: ${signatures.join(", ")}`,
      null,
      "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
    ),
  columnNotFound: (relation: string, column: string) =>
    new PgrstError(
      400,
      "PGRST204",
      `Could not find the ${q(column)} column of ${q(relation)} in the schema cache`,
    ),
  tableNotFound: (schema: string, name: string, suggestion: string | null) =>
    new PgrstError(
      404,
      "PGRST205",
      `Could not find the table '${schema}.${name}' in the schema cache`,
      null,
      suggestion ? `Perhaps you meant the table '${schema}.${suggestion}'` : null,
    ),
};

// ---- JWT (PGRST3xx) ----

function invalidToken(code: string, message: string): PgrstError {
  return new PgrstError(401, code, message, null, null, {
    "www-authenticate": `Bearer error="invalid_token", error_description=${JSON.stringify(message)}`,
  });
}

export const JwtErrors = {
  /** Decoding or signature failures. */
  decode: (message: string) => invalidToken("PGRST301", message),
  /** exp, nbf, iat, aud failures. */
  claims: (message: string) => invalidToken("PGRST303", message),
  secretMissing: () => new PgrstError(500, "PGRST300", "Server lacks JWT secret"),
};

// ---- errors raised by Postgres ----

/** The fields of a Postgres ErrorResponse that PostgREST passes through. */
export interface PgErrorFields {
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
}

/** mapSQLtoHTTP: `authed` is whether the request's role differs from the anonymous role. */
export function sqlStateStatus(code: string, message: string, authed: boolean): number {
  const exact: Record<string, number> = {
    "23503": 409,
    "23505": 409,
    "25006": 405,
    "53400": 500,
    "57P01": 503,
    "P0001": 400,
    "42883": 404,
    "42P01": 404,
    "42P17": 500,
  };
  if (code === "21000") return message.endsWith("requires a WHERE clause") ? 400 : 500;
  if (code === "22023") return message.startsWith("role") && message.endsWith("does not exist") ? 401 : 400;
  if (code === "42501") return authed ? 403 : 401;
  if (code in exact) return exact[code];
  if (code.startsWith("PT")) {
    const n = Number(code.slice(2));
    return Number.isInteger(n) && n >= 100 && n <= 599 ? n : 500;
  }
  const prefixes: [string, number][] = [
    ["08", 503],
    ["09", 500],
    ["0L", 403],
    ["0P", 403],
    ["25", 500],
    ["28", 403],
    ["2D", 500],
    ["38", 500],
    ["39", 500],
    ["3B", 500],
    ["40", 500],
    ["53", 503],
    // PostgREST before v12 answered the "too complex" class (54000 program limit, 54001 stack
    // depth, 54011 too many columns, 54023 too many arguments) with 413; later versions with 500.
    // The request's own input hit the limit, and the local database's limits are far lower than a
    // server's, so the local platform keeps 413: the client, not the platform, must change.
    ["54", 413],
    ["55", 500],
    ["57", 500],
    ["58", 500],
    ["F0", 500],
    ["HV", 500],
    ["P0", 500],
    ["XX", 500],
  ];
  for (const [prefix, status] of prefixes) if (code.startsWith(prefix)) return status;
  return 400;
}

/**
 * A Postgres error as PostgREST reports it. `RAISE SQLSTATE 'PGRST'` with a JSON message
 * ({code, message, details, hint}) and JSON detail ({status, status_text, headers}) takes full
 * control of the response.
 */
export function fromPgError(err: PgErrorFields, authed: boolean): PgrstError {
  const code = err.code ?? "PGRSTX00";
  if (code === "PGRST") return fromRaisePgrst(err);
  const status = sqlStateStatus(code, err.message, authed);
  const headers: Record<string, string> = status === 401 ? { "www-authenticate": "Bearer" } : {};
  return new PgrstError(status, code, err.message, err.detail ?? null, err.hint ?? null, headers);
}

function fromRaisePgrst(err: PgErrorFields): PgrstError {
  const msgHint =
    "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
  const detHint =
    "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";
  const msg = parseJsonObject(err.message);
  if (!msg || typeof msg.code !== "string" || typeof msg.message !== "string") {
    return Errors.pgrstParse(`Invalid JSON value for MESSAGE: '${err.message}'`, msgHint);
  }
  if (err.detail === undefined) return Errors.pgrstParse("DETAIL is missing in the RAISE statement", detHint);
  const det = parseJsonObject(err.detail);
  if (!det || typeof det.status !== "number" || typeof det.headers !== "object" || det.headers === null) {
    return Errors.pgrstParse(`Invalid JSON value for DETAIL: '${err.detail}'`, detHint);
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(det.headers as Record<string, unknown>)) headers[k] = String(v);
  return new PgrstError(
    det.status,
    msg.code,
    msg.message,
    typeof msg.details === "string" ? msg.details : null,
    typeof msg.hint === "string" ? msg.hint : null,
    headers,
  );
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch (err) {
    if (err instanceof SyntaxError) return null;
    throw err;
  }
}

// ---- "Perhaps you meant" ----

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/**
 * The closest name by normalised Levenshtein similarity, as Data.FuzzySet scores its matches;
 * PostgREST asks for at least 0.75 for tables and functions, 0.33 for relationships.
 */
export function closest(name: string, candidates: Iterable<string>, minScore: number): string | null {
  let best: string | null = null;
  let bestScore = -1;
  const lower = name.toLowerCase();
  for (const c of candidates) {
    const len = Math.max(c.length, name.length);
    if (len === 0) continue;
    const score = 1 - levenshtein(lower, c.toLowerCase()) / len;
    if (score > bestScore) [best, bestScore] = [c, score];
  }
  return bestScore >= minScore ? best : null;
}
