/**
 * Who may do what in the social functions, and the scope a handler hands to the domain code.
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
import {
  db,
  MEMBER_ROLES,
  requireUser,
  requireWorkspaceRole,
  serviceDb,
  type WorkspaceRoleName,
  WRITER_ROLES,
} from "../auth/context.ts";
import type { SocialScope } from "./accounts.ts";

export const ACCOUNT_ADMINS: readonly WorkspaceRoleName[] = ["owner", "admin"];
export const PUBLISHERS: readonly WorkspaceRoleName[] = WRITER_ROLES;
export const READERS: readonly WorkspaceRoleName[] = MEMBER_ROLES;

export async function socialScope(
  c: Context,
  workspaceId: string,
  roles: readonly WorkspaceRoleName[],
  what: string,
): Promise<SocialScope> {
  const who = requireUser(c);
  await requireWorkspaceRole(c, workspaceId, roles, what);
  return { workspaceId, userId: who.userId, db: db(c), service: serviceDb(c) };
}
