/**
 * Who an email action runs for: the workspace (resolved by the function from the JWT and the
 * database), the calling user (null for the service role), a client acting as the caller (RLS
 * applies: reads) and the service client (the rows only the service writes: logs, domains,
 * counters), used only after the function authorised the caller.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { DomainError } from "../errors.ts";
import { soleWorkspace } from "../auth/workspace_choice.ts";

export interface EmailScope {
  workspaceId: string;
  userId: string | null;
  db: SupabaseClient;
  service: SupabaseClient;
}

/**
 * The workspace an action is for: the one named, or the caller's only workspace (several: 400
 * workspace_required, auth/workspace_choice.ts; the personal workspace is not a default).
 * `memberships` are the caller's workspaces as the database lists them.
 */
export function pickWorkspace(named: string | undefined, memberships: readonly string[]): string {
  if (named) return named;
  const only = soleWorkspace(memberships, "workspaceId");
  if (only) return only;
  throw DomainError.invalid(
    "workspaceId is required: you do not belong to any workspace",
    undefined,
    "workspace_required",
  );
}
