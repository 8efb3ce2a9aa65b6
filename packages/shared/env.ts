/**
 * Typed access to the environment. Secrets come only from here (Deno.env: supabase secrets in
 * production, supabase/functions/.env and the platform's own variables locally).
 */
export class MissingEnvError extends Error {
  constructor(readonly variable: string) {
    super(`${variable} is not configured`);
    this.name = "MissingEnvError";
  }
}

export function env(name: string): string | undefined {
  const v = Deno.env.get(name);
  return v === undefined || v === "" ? undefined : v;
}

export function requireEnv(name: string): string {
  const v = env(name);
  if (v === undefined) throw new MissingEnvError(name);
  return v;
}

/** The variables Supabase gives every edge function. */
export function supabaseEnv() {
  return {
    url: requireEnv("SUPABASE_URL"),
    anonKey: requireEnv("SUPABASE_ANON_KEY"),
    serviceRoleKey: requireEnv("SUPABASE_SERVICE_ROLE_KEY"),
    /** Optional: verifies HS256 user JWTs locally instead of asking /auth/v1/user. */
    jwtSecret: env("JWT_SECRET"),
  };
}
