/**
 * What the admin modules share: the database failure they all throw (500 `database_failed`,
 * naming what was being read or written), a timer for probes that reports a failure instead of
 * throwing it, and paged reads past PostgREST's max rows. Not an admin concern of its own.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import { readPages } from "../supabase/postgrest.ts";

export type Db = SupabaseClient;
export type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
export type AnyQuery = any; // a PostgREST filter builder of any table, with count: "exact"

/** A database failure: 500 `database_failed` with what was being done. */
export function fail(what: string, error: { message: string }): never {
  throw new DomainError("internal", "database_failed", `${what}: ${error.message}`);
}

export type Timed<T> = { ok: true; value: T; ms: number } | { ok: false; error: string; ms: number };

/** Runs `fn`, timing it (ms, one decimal); a failure is reported with its message, not thrown. */
export async function timed<T>(fn: () => Promise<T>): Promise<Timed<T>> {
  const t0 = performance.now();
  try {
    const value = await fn();
    return { ok: true, value, ms: Math.round((performance.now() - t0) * 10) / 10 };
  } catch (err) {
    return { ok: false, error: errorText(err), ms: Math.round((performance.now() - t0) * 10) / 10 };
  }
}

/** An error's message, with the provider's own message when the model layer has one. */
function errorText(err: unknown): string {
  const details = err instanceof DomainError
    ? err.details as { provider_message?: string } | undefined
    : undefined;
  const message = (err as Error).message;
  return details?.provider_message ? `${message}: ${details.provider_message}` : message;
}

/** readPages (up to `cap` rows past PostgREST's max rows), failing as `fail` does. */
export async function readPaged(
  what: string,
  query: () => AnyQuery,
  cap: number,
): Promise<{ rows: Json[]; count: number }> {
  const r = await readPages<Json>(query, cap);
  if (r.error) fail(`Reading ${what}`, r.error);
  return { rows: r.data, count: r.count };
}

/** 404 `not_found` unless the workspace exists. */
export async function requireWorkspace(db: Db, workspaceId: string): Promise<void> {
  const ws = await db.from("workspaces").select("id").eq("id", workspaceId).maybeSingle();
  if (ws.error) fail("Reading the workspace", ws.error);
  if (!ws.data) throw new DomainError("not_found", "not_found", "Workspace not found");
}
