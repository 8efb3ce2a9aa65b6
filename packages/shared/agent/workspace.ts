/**
 * The workspace an agent-chat request works in (its tools' scope and the price_lookup gate):
 *
 * - context.workspace_id, when given, must be one of the caller's workspaces (from the
 *   database, get_my_access), else 403 - the same answer whether or not it exists;
 * - otherwise the caller's only workspace;
 * - a caller with several workspaces and no context.workspace_id gets 400 (workspace_required,
 *   auth/workspace_choice.ts): guessing one, even their personal workspace, would scope prices
 *   and documents to a workspace the user did not mean;
 * - a caller with none chats without workspace tools.
 */
import type { Access } from "../auth/context.ts";
import { DomainError } from "../errors.ts";
import { soleWorkspace } from "../auth/workspace_choice.ts";
import type { WorkspaceRoleName } from "./tools/registry.ts";

export interface ChatWorkspace {
  workspaceId: string | null;
  role: WorkspaceRoleName | null;
}

export function resolveWorkspace(access: Access, requested: string | null | undefined): ChatWorkspace {
  if (requested) {
    const m = access.workspaces.find((w) => w.workspace_id === requested);
    if (!m) throw DomainError.forbidden("context.workspace_id is not one of your workspaces");
    return { workspaceId: m.workspace_id, role: m.role };
  }
  const only = soleWorkspace(access.workspaces, "context.workspace_id");
  return only ? { workspaceId: only.workspace_id, role: only.role } : { workspaceId: null, role: null };
}
