/**
 * social-oauth's POST actions for the scope the function authorised (owner or admin of the
 * account's workspace): connect answers the provider's OAuth URL and a signed state, callback
 * redeems the state and records the account, disconnect removes it at the provider and
 * deactivates it. `oauthTarget` names the workspace to authorise: the body's, or for disconnect
 * the account's (read first, so the function can answer outsiders the account's 404).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import type { WorkspaceScope } from "../auth/scope.ts";
import { DomainError } from "../errors.ts";
import {
  accountById,
  completeCallback,
  connectAccount,
  disconnectAccount,
  type SocialAccountRow,
} from "./accounts.ts";
import type { LateClient } from "./late.ts";
import type { OAuthBody } from "./schemas.ts";

export interface OAuthTarget {
  workspaceId: string;
  /** The account a disconnect is for. */
  account: SocialAccountRow | null;
  /** Names the action in a 403. */
  what: string;
}

export async function oauthTarget(service: SupabaseClient, req: OAuthBody): Promise<OAuthTarget> {
  if (req.action !== "disconnect") {
    return { workspaceId: req.workspace_id, account: null, what: "Connecting a social account" };
  }
  const account = await accountById(service, req.social_account_id);
  return { workspaceId: account.workspace_id, account, what: "Disconnecting a social account" };
}

export async function runOAuthAction(
  s: WorkspaceScope,
  late: () => LateClient,
  req: OAuthBody,
  account: SocialAccountRow | null,
): Promise<Record<string, unknown>> {
  switch (req.action) {
    case "connect":
      return { success: true, ...await connectAccount(s, late(), req.platform, req.redirect_url) };
    case "callback":
      return { success: true, account: await completeCallback(s, late(), req) };
    case "disconnect":
      if (!account) throw DomainError.internal("disconnect without its account (oauthTarget)");
      return { success: true, account: await disconnectAccount(s, late(), account) };
  }
}
