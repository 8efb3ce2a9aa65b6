/**
 * The one workspace scope: who a domain action runs for, handed by the HTTP layer to domain
 * functions so they never see the request. Built by `workspaceScope(c, workspaceId, roles)`
 * after the caller was authorised for the workspace (outsiders 404, members without the role 403):
 *
 * - `workspaceId`: resolved from the JWT and the database, never trusted from a body alone;
 * - `userId`: the calling user, null for the service role;
 * - `role`: the caller's workspace role, `service` for the service role;
 * - `db`: the client acting as the caller (RLS applies);
 * - `service`: the service client, for rows only the system writes (logs, counters, ledgers).
 *
 * Domain modules import only the type; the builder lives here beside the guards it uses.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import {
  caller,
  db,
  requireWorkspaceRole,
  serviceDb,
  workspaceRole,
  type WorkspaceRoleName,
} from "./context.ts";
import type { Context } from "hono";

export interface WorkspaceScope {
  workspaceId: string;
  userId: string | null;
  role: WorkspaceRoleName | "service";
  db: SupabaseClient;
  service: SupabaseClient;
}

/** Authorise the caller for the workspace (`roles` null: any member) and return the scope. */
export async function workspaceScope(
  // deno-lint-ignore no-explicit-any
  c: Context<any>,
  workspaceId: string,
  roles: readonly WorkspaceRoleName[] | null = null,
  what?: string,
): Promise<WorkspaceScope> {
  const role = await requireWorkspaceRole(c, workspaceId, roles, what);
  return { workspaceId, userId: caller(c).userId, role, db: db(c), service: serviceDb(c) };
}

/**
 * The caller before the workspace is known: an action on a row named by id (a KB document) reads
 * the row first, then scopes its workspace. `roleIn` only answers (null for outsiders: a refusal
 * may then say 404 rather than 403); `workspace` authorises as `workspaceScope` does.
 */
export interface CallerScope {
  userId: string | null;
  db: SupabaseClient;
  service: SupabaseClient;
  roleIn(workspaceId: string): Promise<WorkspaceRoleName | "service" | null>;
  workspace(
    workspaceId: string,
    roles?: readonly WorkspaceRoleName[] | null,
    what?: string,
  ): Promise<WorkspaceScope>;
}

/** The request's CallerScope (see above). */
// deno-lint-ignore no-explicit-any
export function callerScope(c: Context<any>): CallerScope {
  return {
    userId: caller(c).userId,
    db: db(c),
    service: serviceDb(c),
    roleIn: (workspaceId) => workspaceRole(c, workspaceId),
    workspace: (workspaceId, roles = null, what) => workspaceScope(c, workspaceId, roles, what),
  };
}
