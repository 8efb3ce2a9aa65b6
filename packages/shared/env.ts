/**
 * Typed access to the environment. Secrets come only from here: in production Deno.env (Supabase
 * secrets); on the local platform the function environment the router scopes to each call
 * (runWithEnv), as the edge runtime gives every worker its own env. Scoping matters because one
 * process may run several platforms (parallel test modules) whose SUPABASE_URL differ.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scoped = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/** Runs `fn` with `vars` as the environment env() reads first. */
export function runWithEnv<T>(vars: Readonly<Record<string, string>>, fn: () => T): T {
  return scoped.run(vars, fn);
}

export class MissingEnvError extends Error {
  constructor(readonly variable: string) {
    super(`${variable} is not configured`);
    this.name = "MissingEnvError";
  }
}

export function env(name: string): string | undefined {
  const vars = scoped.getStore();
  const v = vars && Object.hasOwn(vars, name) ? vars[name] : Deno.env.get(name);
  return v === undefined || v === "" ? undefined : v;
}

export function requireEnv(name: string): string {
  const v = env(name);
  if (v === undefined) throw new MissingEnvError(name);
  return v;
}

/** Where the Supabase project is and the keys to it: what the HTTP core needs to resolve callers. */
export interface SupabaseConfig {
  /** The project URL (serves /rest/v1, /auth/v1, /storage/v1). */
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  /** Optional: verifies HS256 user JWTs locally instead of asking /auth/v1/user. */
  jwtSecret?: string;
}

/** The variables Supabase gives every edge function. */
export function supabaseEnv(): SupabaseConfig {
  return {
    url: requireEnv("SUPABASE_URL"),
    anonKey: requireEnv("SUPABASE_ANON_KEY"),
    serviceRoleKey: requireEnv("SUPABASE_SERVICE_ROLE_KEY"),
    jwtSecret: env("JWT_SECRET"),
  };
}
