/**
 * supabase-js client factories. A caller-scoped client carries the caller's JWT so that RLS
 * decides what it sees; the service client bypasses RLS and is for the system's own work
 * (billing ledger, webhooks, cron), after the function has authorised the caller itself.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { supabaseEnv } from "../env.ts";

const options = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

export function callerClient(jwt: string): SupabaseClient {
  const { url, anonKey } = supabaseEnv();
  return createClient(url, anonKey, { ...options, global: { headers: { Authorization: `Bearer ${jwt}` } } });
}

export function serviceClient(): SupabaseClient {
  const { url, serviceRoleKey } = supabaseEnv();
  return createClient(url, serviceRoleKey, options);
}

export type { SupabaseClient };
