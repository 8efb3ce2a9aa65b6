/**
 * Who an email action runs for: the workspace (resolved by the function from the JWT and the
 * database), the calling user (null for the service role), a client acting as the caller (RLS
 * applies: reads) and the service client (the rows only the service writes: logs, domains,
 * counters), used only after the function authorised the caller.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { DomainError } from "../errors.ts";

export interface EmailScope {
  workspaceId: string;
  userId: string | null;
  db: SupabaseClient;
  service: SupabaseClient;
}

/**
 * The workspace an action is for: the one named, or the caller's only workspace. `memberships`
 * are the caller's workspaces as the database lists them.
 */
export function pickWorkspace(named: string | undefined, memberships: readonly string[]): string {
  if (named) return named;
  if (memberships.length === 1) return memberships[0];
  throw DomainError.invalid(
    memberships.length === 0
      ? "workspaceId is required: you do not belong to any workspace"
      : `workspaceId is required: you belong to ${memberships.length} workspaces`,
    undefined,
    "workspace_required",
  );
}
