/**
 * Which workspace an email action is for. Who it runs for is the one WorkspaceScope
 * (auth/scope.ts: the workspace resolved from the JWT and the database, the calling user, null
 * for the service role, the caller's client for reads and the service client for the rows only
 * the service writes: logs, domains, counters), built by the function after authorising the caller.
 */
import { DomainError } from "../errors.ts";
import { soleWorkspace } from "../auth/workspace_choice.ts";

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
