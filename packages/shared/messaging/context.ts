/**
 * What every messaging operation runs with: the caller's client (RLS applies) for reads the
 * caller makes, the service client for the writes only the service path may make (logs, keyword
 * opt-outs), the workspace the caller was authorised for, the provider and the clock.
 */
import type { SupabaseClient } from "../supabase/clients.ts";
import type { Clock } from "./clock.ts";
import type { MessagingProvider } from "./provider.ts";

export interface MessagingContext {
  db: SupabaseClient;
  service: SupabaseClient;
  workspaceId: string;
  /** The signed-in caller, or null for the service role. */
  userId: string | null;
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
