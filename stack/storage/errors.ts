/**
 * The Storage API's error shape (supabase/storage src/internal/errors): a body
 * `{statusCode, code, error, message}` whose statusCode is the "real" status as a string, sent
 * with HTTP 400 for everything but 500s (`userStatusCode = httpStatusCode === 500 ? 500 : 400`).
 * storage-js reads `statusCode` and `code` from the body, so both must be exact.
 */
export class StorageError extends Error {
  constructor(
    /** The status the Storage API puts in the body's statusCode. */
    readonly httpStatus: number,
    readonly code: string,
    message: string,
    /** The legacy `error` field; Storage falls back to the code. */
    readonly errorText?: string,
    /** The HTTP status actually sent, when it is not the 400/500 rule (unknown routes: 404). */
    readonly userStatus?: number,
  ) {
    super(message);
    this.name = "StorageError";
  }

  render(): { statusCode: string; code: string; error: string; message: string } {
    return {
      statusCode: String(this.httpStatus),
      code: this.code,
      error: this.errorText ?? this.code,
      message: this.message,
    };
  }
}

export function renderError(err: StorageError): Response {
  const status = err.userStatus ?? (err.httpStatus === 500 ? 500 : 400);
  return new Response(JSON.stringify(err.render()), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

export const Errors = {
  noSuchBucket: () => new StorageError(404, "NoSuchBucket", "Bucket not found", "Bucket not found"),
  noSuchKey: () => new StorageError(404, "NoSuchKey", "Object not found", "not_found"),
  /** A row exists whose bytes are gone (Storage's renderer answer to an S3 404). */
  bytesMissing: () => new StorageError(404, "NoSuchKey", "The resource was not found", "Not found"),
  alreadyExists: () =>
    new StorageError(409, "ResourceAlreadyExists", "The resource already exists", "Duplicate"),
  bucketNotEmpty: () =>
    new StorageError(409, "ResourceNotEmpty", "The bucket you tried to delete is not empty"),
  accessDenied: (message = "Access denied") => new StorageError(403, "AccessDenied", message, "Unauthorized"),
  invalidJwt: (message = "Invalid JWT") => new StorageError(400, "InvalidJWT", message),
  invalidSignature: (message = "Invalid signature") => new StorageError(400, "InvalidSignature", message),
  invalidBucketName: () => new StorageError(400, "InvalidBucketName", "Bucket name invalid", "Invalid Input"),
  invalidKey: (key: string) => new StorageError(400, "InvalidKey", `Invalid key: ${key}`),
  invalidRequest: (message: string) => new StorageError(400, "InvalidRequest", message),
  missingParameter: (name: string) =>
    new StorageError(400, "MissingParameter", `Missing Required Parameter ${name}`),
  entityTooLarge: (what = "object", limit = "the maximum allowed size") =>
    new StorageError(413, "EntityTooLarge", `The ${what} exceeded ${limit}`, "Payload too large"),
  invalidMimeType: (mimeType: string) =>
    new StorageError(415, "InvalidMimeType", `mime type ${mimeType} is not supported`, "invalid_mime_type"),
  invalidRange: () => new StorageError(400, "InvalidRange", "invalid range provided", "invalid_range"),
  notSupported: (feature: string) =>
    new StorageError(409, "NotSupported", `The feature ${feature} is not supported by the local platform`),
  internal: () => new StorageError(500, "InternalError", "Internal server error"),
  routeNotFound: (method: string, path: string) =>
    new StorageError(404, "NotFound", `Route ${method}:${path} not found`, "Not Found", 404),
} as const;

/** The SQLSTATE of a Postgres error (PGlite throws errors carrying `code`), or null. */
export function sqlState(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/**
 * Maps a Postgres error to the Storage error its DBError.fromDBError gives, or null when it is
 * not the caller's doing (then it stays a 500). RLS refusals become AccessDenied, unique
 * violations ResourceAlreadyExists; data errors raised by policies or triggers are 400s.
 */
export function fromDbError(err: unknown): StorageError | null {
  const code = sqlState(err);
  if (!code) return null;
  const message = err instanceof Error ? err.message : String(err);
  switch (code) {
    case "42501":
      return Errors.accessDenied(
        message.includes("row-level security") ? "new row violates row-level security policy" : message,
      );
    case "23505":
      return Errors.alreadyExists();
    case "23503":
      return new StorageError(404, "InvalidRequest", "The related resource does not exist");
    case "22P02":
    case "22021": // NUL or invalid UTF-8 in a string the caller sent
    case "22P05": // \u0000 in JSON the caller sent
    case "22001":
    case "22003":
    case "22023":
    case "23502":
    case "23514":
    case "P0001":
      return Errors.invalidRequest(message);
    default:
      return null;
  }
}
