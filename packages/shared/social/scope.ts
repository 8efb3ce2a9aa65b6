/**
 * Who may do what in the social functions, and the WorkspaceScope (auth/scope.ts) a handler
 * hands to the domain code: always a signed-in user's (the service role is a 401 here).
 * Tenancy is the JWT's user and their role in workspace_members (requireWorkspaceRole):
 * outsiders get 404, members without the role 403.
 *
 * | action                                   | roles                    |
 * | ---------------------------------------- | ------------------------ |
 * | connect, callback, disconnect            | owner, admin             |
 * | publish_now, schedule, generate content / image | owner, admin, member |
 * | list, analytics, insights, best time     | any member (viewer too)  |
 */
import type { Context } from "hono";
import { MEMBER_ROLES, requireUser, type WorkspaceRoleName, WRITER_ROLES } from "../auth/context.ts";
import { type WorkspaceScope, workspaceScope } from "../auth/scope.ts";

export const ACCOUNT_ADMINS: readonly WorkspaceRoleName[] = ["owner", "admin"];
export const PUBLISHERS: readonly WorkspaceRoleName[] = WRITER_ROLES;
export const READERS: readonly WorkspaceRoleName[] = MEMBER_ROLES;

export async function socialScope(
  c: Context,
  workspaceId: string,
  roles: readonly WorkspaceRoleName[],
  what: string,
): Promise<WorkspaceScope> {
  requireUser(c); // social actions are recorded as a user's (connected_by, created_by)
  return await workspaceScope(c, workspaceId, roles, what);
}
