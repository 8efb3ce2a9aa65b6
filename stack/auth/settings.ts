/**
 * The `[auth]` and `[auth.email]` settings of supabase/config.toml that /auth/v1 honours, with the
 * Supabase CLI's defaults (apps/cli-go/pkg/config/templates/config.toml), which the CLI hands
 * GoTrue as GOTRUE_SITE_URL, GOTRUE_URI_ALLOW_LIST, GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED,
 * GOTRUE_MAILER_AUTOCONFIRM, GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED, GOTRUE_MAILER_OTP_EXP,
 * GOTRUE_MAILER_OTP_LENGTH and GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION.
 */
import { parse as parseToml } from "smol-toml";

export interface AuthConfig {
  /** `site_url`: where links land when no allowed redirect_to is given. */
  siteUrl: string;
  /** `additional_redirect_urls`: further allowed redirect targets (`*` and `**` globs). */
  additionalRedirectUrls: string[];
  enableSignup: boolean;
  enableAnonymousSignIns: boolean;
  minimumPasswordLength: number;
  /** `[auth.email] enable_confirmations`: false = GOTRUE_MAILER_AUTOCONFIRM. */
  enableConfirmations: boolean;
  /** `[auth.email] double_confirm_changes`: an email change is confirmed from both addresses. */
  doubleConfirmChanges: boolean;
  /** `[auth.email] secure_password_change`: a password change needs a /reauthenticate nonce. */
  securePasswordChange: boolean;
  /** `[auth.email] otp_length` and `otp_expiry` (seconds). */
  otpLength: number;
  otpExpirySeconds: number;
}

export function authDefaults(): AuthConfig {
  return {
    siteUrl: "http://127.0.0.1:3000",
    additionalRedirectUrls: ["https://127.0.0.1:3000"],
    enableSignup: true,
    enableAnonymousSignIns: false,
    minimumPasswordLength: 6,
    enableConfirmations: false,
    doubleConfirmChanges: true,
    securePasswordChange: false,
    otpLength: 6,
    otpExpirySeconds: 3600,
  };
}

type Table = Record<string, unknown>;

const bool = (v: unknown, d: boolean) => (typeof v === "boolean" ? v : d);
const int = (v: unknown, d: number, min: number, max: number) =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? v : d;

/** Reads `<rootDir>/supabase/config.toml`; missing file or keys give the CLI's defaults. */
export async function readAuthConfig(rootDir: string): Promise<AuthConfig> {
  const d = authDefaults();
  let text: string;
  try {
    text = await Deno.readTextFile(`${rootDir}/supabase/config.toml`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return d;
    throw err;
  }
  const auth = ((parseToml(text) as Table).auth ?? {}) as Table;
  const email = (auth.email ?? {}) as Table;
  const urls = auth.additional_redirect_urls;
  return {
    siteUrl: typeof auth.site_url === "string" && auth.site_url ? auth.site_url : d.siteUrl,
    additionalRedirectUrls: Array.isArray(urls) && urls.every((u) => typeof u === "string")
      ? urls as string[]
      : d.additionalRedirectUrls,
    enableSignup: bool(auth.enable_signup, d.enableSignup) && bool(email.enable_signup, true),
    enableAnonymousSignIns: bool(auth.enable_anonymous_sign_ins, d.enableAnonymousSignIns),
    minimumPasswordLength: int(auth.minimum_password_length, d.minimumPasswordLength, 1, 72),
    enableConfirmations: bool(email.enable_confirmations, d.enableConfirmations),
    doubleConfirmChanges: bool(email.double_confirm_changes, d.doubleConfirmChanges),
    securePasswordChange: bool(email.secure_password_change, d.securePasswordChange),
    otpLength: int(email.otp_length, d.otpLength, 6, 10),
    otpExpirySeconds: int(email.otp_expiry, d.otpExpirySeconds, 1, 86400),
  };
}

/** Glob of GoTrue's URI allow list: `*` stays within a path segment or host label, `**` crosses. */
function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "*" && glob[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (ch === "*") re += "[^/.]*";
    else if (ch === "?") re += "[^/.]";
    else re += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * GoTrue's IsRedirectURLValid: a redirect on the site URL's host, or one the allow list matches,
 * is kept; anything else falls back to the site URL (no open redirect through mailed links).
 */
export function redirectTarget(cfg: AuthConfig, requested: string | null | undefined): string {
  if (!requested) return cfg.siteUrl;
  let ref: URL;
  try {
    ref = new URL(requested);
  } catch {
    return cfg.siteUrl;
  }
  if (ref.protocol === "javascript:" || ref.protocol === "data:") return cfg.siteUrl;
  try {
    if (new URL(cfg.siteUrl).hostname === ref.hostname) return requested;
  } catch { /* an unparsable site_url matches nothing */ }
  for (const pattern of cfg.additionalRedirectUrls) {
    if (pattern === requested || globToRegExp(pattern).test(requested)) return requested;
  }
  return cfg.siteUrl;
}
