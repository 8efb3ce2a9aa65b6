/**
 * Connected social accounts (social-oauth): connect, callback, disconnect, list.
 *
 * Each workspace publishes under one Late profile (social_profiles, created on its first
 * connect). connect returns the provider's OAuth URL; its redirect_url carries our signed state
 * (oauth_state.ts). callback spends the state, then fetches the account from the provider under
 * the workspace's profile (an account id from another profile is not found), and upserts
 * social_accounts. disconnect removes it at the provider and keeps the row, inactive, with its
 * posts. Writes use the service client after the handler authorised the caller.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { env } from "../env.ts";
import { DomainError } from "../errors.ts";
import { connectUrl, createProfile, deleteAccount, type LateClient, listAccounts } from "./late.ts";
import { issueState, redeemState } from "./oauth_state.ts";
import type { Platform } from "./platforms.ts";
import type { WorkspaceScope } from "../auth/scope.ts";

/** The signed-in user a social action is recorded as (socialScope refuses the service role). */
export function actingUser(s: WorkspaceScope): string {
  if (!s.userId) throw DomainError.unauthenticated("A signed-in user is required");
  return s.userId;
}

export const ACCOUNT_COLUMNS =
  "id, workspace_id, late_account_id, platform, username, display_name, profile_picture, profile_url, " +
  "followers_count, is_active, connected_by, connected_at, disconnected_at, created_at, updated_at";

export interface SocialAccountRow {
  id: string;
  workspace_id: string;
  late_account_id: string;
  platform: Platform;
  username: string | null;
  display_name: string | null;
  followers_count: number | null;
  is_active: boolean;
}

/** The workspace's Late profile, created at the provider on first use. */
export async function ensureProfile(
  service: SupabaseClient,
  late: LateClient,
  workspaceId: string,
): Promise<string> {
  const read = () =>
    service.from("social_profiles").select("late_profile_id").eq("workspace_id", workspaceId).maybeSingle();
  const found = await read();
  if (found.error) throw DomainError.internal(`Could not read the social profile: ${found.error.message}`);
  if (found.data) return found.data.late_profile_id as string;
  const profileId = await createProfile(late, `workspace ${workspaceId}`);
  // Two first connects at once: the first insert wins and both use its profile.
  const ins = await service.from("social_profiles").upsert(
    { workspace_id: workspaceId, late_profile_id: profileId },
    { onConflict: "workspace_id", ignoreDuplicates: true },
  );
  if (ins.error) throw DomainError.internal(`Could not record the social profile: ${ins.error.message}`);
  const again = await read();
  if (again.error || !again.data) throw DomainError.internal("Could not read the social profile");
  return again.data.late_profile_id as string;
}

/** Where the provider sends the browser after OAuth: the given URL, else configuration. */
function redirectBase(given: string | undefined): string {
  return given ?? env("SOCIAL_OAUTH_REDIRECT_URL") ?? env("SITE_URL") ?? `${env("SUPABASE_URL")}/`;
}

export async function connectAccount(
  s: WorkspaceScope,
  late: LateClient,
  platform: Platform,
  redirectUrl?: string,
): Promise<{ oauth_url: string; state: string; expires_at: string }> {
  const profileId = await ensureProfile(s.service, late, s.workspaceId);
  const { state, expiresAt } = await issueState(s.service, {
    workspaceId: s.workspaceId,
    userId: actingUser(s),
    platform,
  });
  const back = new URL(redirectBase(redirectUrl));
  back.searchParams.set("state", state);
  back.searchParams.set("workspace_id", s.workspaceId);
  const oauthUrl = await connectUrl(late, platform, profileId, back.toString());
  return { oauth_url: oauthUrl, state, expires_at: expiresAt };
}

export async function completeCallback(
  s: WorkspaceScope,
  late: LateClient,
  req: { late_account_id: string; platform: Platform; state: string },
): Promise<Record<string, unknown>> {
  await redeemState(s.service, req.state, {
    workspaceId: s.workspaceId,
    userId: actingUser(s),
    platform: req.platform,
  });
  const profile = await s.service.from("social_profiles").select("late_profile_id")
    .eq("workspace_id", s.workspaceId).maybeSingle();
  if (profile.error || !profile.data) throw DomainError.internal("The workspace has no social profile");
  const profileId = profile.data.late_profile_id as string;
  const account = (await listAccounts(late, profileId, req.platform)).find((a) =>
    a._id === req.late_account_id
  );
  if (!account) {
    throw DomainError.notFound(
      `No ${req.platform} account ${req.late_account_id} is connected under this workspace's profile`,
      "account_not_found",
    );
  }
  const owner = await s.service.from("social_accounts").select("workspace_id")
    .eq("late_account_id", account._id).maybeSingle();
  if (owner.data && owner.data.workspace_id !== s.workspaceId) {
    throw DomainError.conflict("This account is connected to another workspace", undefined, "account_taken");
  }
  const { data, error } = await s.service.from("social_accounts").upsert({
    workspace_id: s.workspaceId,
    late_account_id: account._id,
    late_profile_id: profileId,
    platform: req.platform,
    username: account.username ?? null,
    display_name: account.displayName ?? null,
    profile_picture: account.profilePicture ?? null,
    profile_url: account.profileUrl ?? null,
    followers_count: typeof account.followersCount === "number" ? account.followersCount : null,
    is_active: account.isActive !== false,
    connected_by: actingUser(s),
    connected_at: new Date().toISOString(),
    disconnected_at: null,
  }, { onConflict: "late_account_id" }).select(ACCOUNT_COLUMNS).single();
  if (error) throw DomainError.internal(`Could not save the account: ${error.message}`);
  return data as unknown as Record<string, unknown>;
}

/** The account row by id (service client); 404 when there is none. */
export async function accountById(service: SupabaseClient, id: string): Promise<SocialAccountRow> {
  const { data, error } = await service.from("social_accounts").select(ACCOUNT_COLUMNS).eq("id", id)
    .maybeSingle();
  if (error) throw DomainError.internal(`Could not read the account: ${error.message}`);
  if (!data) throw DomainError.notFound("Social account not found", "account_not_found");
  return data as unknown as SocialAccountRow;
}

export async function disconnectAccount(
  s: WorkspaceScope,
  late: LateClient,
  account: SocialAccountRow,
): Promise<Record<string, unknown>> {
  if (account.is_active) await deleteAccount(late, account.late_account_id);
  const { data, error } = await s.service.from("social_accounts")
    .update({ is_active: false, disconnected_at: new Date().toISOString() })
    .eq("id", account.id).select(ACCOUNT_COLUMNS).single();
  if (error) throw DomainError.internal(`Could not update the account: ${error.message}`);
  return data as unknown as Record<string, unknown>;
}

/** The workspace's accounts as the caller sees them (RLS), newest first. */
export async function listConnected(s: WorkspaceScope): Promise<Record<string, unknown>[]> {
  const { data, error } = await s.db.from("social_accounts").select(ACCOUNT_COLUMNS)
    .eq("workspace_id", s.workspaceId).order("connected_at", { ascending: false });
  if (error) throw DomainError.internal(`Could not list the accounts: ${error.message}`);
  return (data ?? []) as unknown as Record<string, unknown>[];
}
