/**
 * supabase-js client factories. A caller-scoped client carries the caller's JWT so that RLS
 * decides what it sees; the service client bypasses RLS and is for the system's own work
 * (billing ledger, webhooks, cron), after the code has authorised the caller itself.
 *
 * HTTP handlers take their clients from the request (auth/context.ts db(c), serviceDb(c));
 * callerClient()/serviceClient() read the function environment, for domain code that runs
 * inside an edge function. All of them are typed with the generated database types (`Db`, types.ts).
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { type SupabaseConfig, supabaseEnv } from "../env.ts";
import type { Database, Db } from "./types.ts";

/** Server-side clients keep no session: no storage, no refresh timers, no URL parsing. */
const NO_SESSION = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

export function createCallerClient(cfg: SupabaseConfig, jwt: string): Db {
  return createClient<Database>(cfg.url, cfg.anonKey, {
    ...NO_SESSION,
    global: { headers: { Authorization: `Bearer ${jwt}` } },
  });
}

export function createServiceClient(cfg: SupabaseConfig): Db {
  return createClient<Database>(cfg.url, cfg.serviceRoleKey, NO_SESSION);
}

export function callerClient(jwt: string): Db {
  return createCallerClient(supabaseEnv(), jwt);
}

export function serviceClient(): Db {
  return createServiceClient(supabaseEnv());
}

export type { Db, SupabaseClient };
