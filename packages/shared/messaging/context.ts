/**
 * What every messaging operation runs with: the one workspace scope (auth/scope.ts: the
 * caller's client, RLS applies, for reads the caller makes; the service client for the writes
 * only the service path may make, logs and keyword opt-outs; the workspace the caller was
 * authorised for), plus the provider and the clock.
 */
import type { WorkspaceScope } from "../auth/scope.ts";
import type { Clock } from "./clock.ts";
import type { MessagingProvider } from "./provider.ts";

export interface MessagingContext extends WorkspaceScope {
  /** Created on first use, so actions that never call the provider need no credentials. */
  provider: () => MessagingProvider;
  /** messaging-webhook's URL, given to the provider as StatusCallback (?type=status). */
  statusCallbackUrl: string;
  clock: Clock;
}

export interface ChannelRow {
  id: string;
  workspace_id: string;
  channel_type: "sms" | "whatsapp";
  provider: string;
  sender_id: string;
  display_name: string | null;
  is_active: boolean;
  is_default: boolean;
  config: { messaging_service_sid?: string; [k: string]: unknown };
  daily_quota: number;
  max_send_rate: number;
}

export interface TemplateRow {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  channel_type: "sms" | "whatsapp";
  content: string;
  media_url: string | null;
  variables: string[];
  category: string;
  whatsapp_content_sid: string | null;
  is_active: boolean;
}
