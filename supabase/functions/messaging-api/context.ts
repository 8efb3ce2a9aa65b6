/**
 * Who runs a messaging action, where: the workspace comes from the caller's memberships in the
 * database (the one named in workspaceId after checking the caller's role in it, or their only
 * workspace), never from the body alone; then the clients, the provider and the clock.
 */
import type { Context } from "hono";
import { access, caller, requireWorkspaceRole, type WorkspaceRoleName } from "@shared/auth/context.ts";
import { workspaceScope } from "@shared/auth/scope.ts";
import { DomainError } from "@shared/errors.ts";
import { soleWorkspace } from "@shared/auth/workspace_choice.ts";
import {
  messagingClock,
  type MessagingContext,
  type MessagingProvider,
  twilioProvider,
  webhookUrl,
} from "@shared/messaging/mod.ts";

/**
 * The workspace the caller acts in: the one named (checked), or their only one; several: 400
 * workspace_required (the personal workspace is not a default).
 */
async function workspaceFor(c: Context, requested: string | undefined, roles: WorkspaceRoleName[] | null) {
  if (requested) {
    await requireWorkspaceRole(c, requested, roles, "This messaging action");
    return requested;
  }
  if (caller(c).kind === "service") throw DomainError.invalid("workspaceId is required for the service role");
  const only = soleWorkspace((await access(c)).workspaces, "workspaceId");
  if (!only) throw DomainError.forbidden("You are not a member of any workspace");
  await requireWorkspaceRole(c, only.workspace_id, roles, "This messaging action");
  return only.workspace_id;
}

export async function messagingContext(
  c: Context,
  requested: string | undefined,
  roles: WorkspaceRoleName[] | null,
): Promise<MessagingContext> {
  const workspaceId = await workspaceFor(c, requested, roles);
  let provider: MessagingProvider | null = null;
  return {
    ...await workspaceScope(c, workspaceId, roles, "This messaging action"),
    provider: () => provider ??= twilioProvider(),
    statusCallbackUrl: `${webhookUrl()}?type=status`,
    clock: messagingClock(),
  };
}
