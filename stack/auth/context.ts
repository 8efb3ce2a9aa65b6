/**
 * What every route group of /auth/v1 shares, built once by createAuthApp (app.ts) from its
 * options and supabase/config.toml's [auth] settings: the database, the resolved settings, token
 * signing, where mail goes, and the password rules.
 */
import type { PGlite } from "../db/database.ts";
import type { MailTransport } from "./mail.ts";
import type { TokenSettings } from "./sessions.ts";
import type { AuthConfig } from "./settings.ts";

export interface AuthContext {
  db: PGlite;
  /** [auth] settings with the options' overrides applied (enableSignup, anonymous sign-ins, ...). */
  cfg: AuthConfig;
  settings: TokenSettings;
  jwtSecret: string;
  /** GoTrue's API_EXTERNAL_URL: the public /auth/v1 base the mailed links point at. */
  externalUrl: string;
  transport?: MailTransport;
  hashPassword(password: string): Promise<string>;
  /** GoTrue's password rules: at most 72 bytes (bcrypt), at least the minimum length. */
  checkPassword(password: string): void;
}
