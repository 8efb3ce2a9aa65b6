/**
 * Supabase CLI local defaults (apps/cli-go/pkg/config): the well-known JWT secret, the anon and
 * service_role keys signed with it, the opaque sb_publishable_/sb_secret_ keys and the ports, so
 * that tools written for `supabase start` work unchanged against the local platform.
 */
export const LOCAL_JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long";

export const LOCAL_ANON_KEY =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0";
export const LOCAL_SERVICE_ROLE_KEY =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU";
export const LOCAL_PUBLISHABLE_KEY = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH";
export const LOCAL_SECRET_KEY = "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz";

/**
 * The platform's own email sender locally (email-api sends from it when a workspace has no
 * verified domain), as `supabase start` gives auth mail GOTRUE_SMTP_ADMIN_EMAIL: Resend's test
 * sender, which the sandbox stand-in (and a fresh real Resend account) accepts. Set
 * EMAIL_PLATFORM_FROM in supabase/functions/.env to override it.
 */
export const LOCAL_EMAIL_PLATFORM_FROM = "onboarding@resend.dev";
export const LOCAL_EMAIL_PLATFORM_FROM_NAME = "Catalog Platform";

export const DEFAULT_API_PORT = 54321;
/** The Postgres port, as the CLI's [db] port. */
export const DEFAULT_DB_PORT = 54322;
export const DEFAULT_AI_BACKEND_PORT = 54330;
export const DEFAULT_SANDBOX_PORT = 54340;
/** The Stripe stand-in's own port (stripe-node needs a host of its own, not a path prefix). */
export const DEFAULT_STRIPE_PORT = 54341;

/** Everything a running platform needs to know about itself; built once by startPlatform. */
export interface PlatformConfig {
  hostname: string;
  /** 0 picks a free port (tests). */
  apiPort: number;
  /**
   * The Postgres port (stack/db/port.ts): 0 picks a free one, null serves none. Unset: none for
   * an in-memory (test) platform, a free one when apiPort is 0, else DEFAULT_DB_PORT.
   */
  dbPort?: number | null;
  jwtSecret: string;
  anonKey: string;
  serviceRoleKey: string;
  publishableKey: string;
  secretKey: string;
  /** GoTrue's GOTRUE_JWT_EXP. */
  jwtExpirySeconds: number;
  /** Folder for the persisted database and storage bytes; null keeps everything in memory. */
  dataDir: string | null;
  /** bcrypt cost GoTrue uses (bcrypt.DefaultCost). */
  bcryptCost: number;
  /** Root of the repository (supabase/, packages/ ...). */
  rootDir: string;
}

export function defaultConfig(overrides: Partial<PlatformConfig> = {}): PlatformConfig {
  const rootDir = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  return {
    hostname: "127.0.0.1",
    apiPort: DEFAULT_API_PORT,
    jwtSecret: LOCAL_JWT_SECRET,
    anonKey: LOCAL_ANON_KEY,
    serviceRoleKey: LOCAL_SERVICE_ROLE_KEY,
    publishableKey: LOCAL_PUBLISHABLE_KEY,
    secretKey: LOCAL_SECRET_KEY,
    jwtExpirySeconds: 3600,
    dataDir: `${rootDir}/.data`,
    bcryptCost: 10,
    rootDir,
    ...overrides,
  };
}
