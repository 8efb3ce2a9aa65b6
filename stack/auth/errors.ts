/**
 * GoTrue's error shapes (supabase/auth internal/api/errors.go). Clients that send
 * `X-Supabase-Api-Version: 2024-01-01` (auth-js does) get `{code, message}` and the version
 * header back; older clients get the legacy `{code: <status>, error_code, msg}`. Both carry
 * `x-sb-error-code`.
 */
export const API_VERSION = "2024-01-01";

export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "AuthError";
  }
}

export function renderAuthError(err: AuthError, requestApiVersion: string | null): Response {
  const modern = requestApiVersion !== null && requestApiVersion >= API_VERSION;
  const body = modern
    ? { code: err.code, message: err.message, ...err.extra }
    : { code: err.status, error_code: err.code, msg: err.message, ...err.extra };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-sb-error-code": err.code,
  };
  if (modern) headers["x-supabase-api-version"] = API_VERSION;
  return new Response(JSON.stringify(body), { status: err.status, headers });
}

export const Errors = {
  noAuthorization: () =>
    new AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token"),
  badJwt: (detail: string) =>
    new AuthError(403, "bad_jwt", `invalid JWT: unable to parse or verify signature, ${detail}`),
  missingSub: () => new AuthError(403, "bad_jwt", "invalid claim: missing sub claim"),
  userFromSubMissing: () => new AuthError(403, "user_not_found", "User from sub claim in JWT does not exist"),
  sessionNotFound: () =>
    new AuthError(403, "session_not_found", "Session from session_id claim in JWT does not exist"),
  notAdmin: () => new AuthError(403, "not_admin", "User not allowed"),
  validation: (message: string) => new AuthError(400, "validation_failed", message),
  invalidCredentials: () => new AuthError(400, "invalid_credentials", "Invalid login credentials"),
  emailNotConfirmed: () => new AuthError(400, "email_not_confirmed", "Email not confirmed"),
  userBanned: () => new AuthError(400, "user_banned", "User is banned"),
  userAlreadyExists: () => new AuthError(422, "user_already_exists", "User already registered"),
  emailExists: () =>
    new AuthError(422, "email_exists", "A user with this email address has already been registered"),
  phoneExists: () =>
    new AuthError(422, "phone_exists", "A user with this phone number has already been registered"),
  weakPassword: (min: number) =>
    new AuthError(422, "weak_password", `Password should be at least ${min} characters.`, {
      weak_password: { reasons: ["length"] },
    }),
  samePassword: () =>
    new AuthError(422, "same_password", "New password should be different from the old password."),
  anonymousDisabled: () =>
    new AuthError(422, "anonymous_provider_disabled", "Anonymous sign-ins are disabled"),
  refreshTokenNotFound: () =>
    new AuthError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"),
  refreshTokenAlreadyUsed: () =>
    new AuthError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used"),
  unsupportedGrant: () => new AuthError(400, "unsupported_grant_type", "unsupported_grant_type"),
  userNotFound: () => new AuthError(404, "user_not_found", "User not found"),
  badJson: () => new AuthError(400, "bad_json", "Could not parse request body as JSON"),
  notFound: () => new AuthError(404, "not_found", "Not Found"),
} as const;
