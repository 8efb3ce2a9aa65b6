/**
 * Agent findings as in-app notifications (public.notifications) for the people who act on them:
 * the workspace's owners and admins.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import { rows } from "../supabase/postgrest.ts";

export async function workspaceManagers(service: SupabaseClient, workspaceId: string): Promise<string[]> {
  const found = rows(
    await service.from("workspace_members").select("user_id").eq("workspace_id", workspaceId)
      .in("role", ["owner", "admin"]).order("user_id"),
    "Workspace members",
  ) as { user_id: string }[];
  return found.map((m) => m.user_id);
}

/** One notification per manager, in one insert; returns the users notified. */
export async function notifyManagers(
  service: SupabaseClient,
  workspaceId: string,
  note: { type: string; title: string; message: string; data: Record<string, unknown> },
): Promise<string[]> {
  const users = await workspaceManagers(service, workspaceId);
  if (users.length === 0) return [];
  rows(
    await service.from("notifications").insert(
      users.map((user_id) => ({ user_id, workspace_id: workspaceId, ...note })),
    ),
    "Notification",
  );
  return users;
}
