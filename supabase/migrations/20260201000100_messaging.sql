-- SMS and WhatsApp messaging (spec "Messaging" under Resources): channels, templates, logs,
-- opt-outs and per-workspace settings, all workspace-scoped.
--
-- Who may do what:
--   members of the workspace (any role) read everything of it;
--   owners and admins manage channels, templates and settings (here or through messaging-api);
--   owners and admins record manual opt-outs and remove them;
--   logs are written only by the service path (messaging-api after it authorised the caller,
--   messaging-webhook after it verified Twilio's signature): no client write policy exists.
-- A sender number belongs to one workspace at most, so an incoming message or a status callback
-- names exactly one workspace.

create table public.messaging_channels (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  channel_type text not null check (channel_type in ('sms', 'whatsapp')),
  provider text not null default 'twilio',
  sender_id text not null check (sender_id ~ '^\+[1-9][0-9]{1,14}$'),
  display_name text,
  is_active boolean not null default true,
  is_default boolean not null default false,
  -- {messaging_service_sid} for WhatsApp senders behind a Messaging Service; {phone_number_sid} after sync.
  config jsonb not null default '{}'::jsonb check (jsonb_typeof(config) = 'object'),
  daily_quota integer not null default 1000 check (daily_quota >= 0),
  max_send_rate integer not null default 60 check (max_send_rate >= 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (channel_type, sender_id)
);
-- One default channel per type and workspace.
create unique index messaging_channels_one_default on public.messaging_channels (workspace_id, channel_type)
  where is_default;
create index messaging_channels_workspace_idx on public.messaging_channels (workspace_id);

create table public.messaging_templates (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null check (length(trim(name)) between 1 and 200),
  slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,99}$'),
  channel_type text not null check (channel_type in ('sms', 'whatsapp')),
  content text not null check (length(content) between 1 and 1600),
  media_url text,
  buttons jsonb not null default '[]'::jsonb,
  variables text[] not null default '{}',
  category text not null default 'transactional' check (category in ('transactional', 'marketing', 'otp')),
  whatsapp_content_sid text check (whatsapp_content_sid is null or whatsapp_content_sid ~ '^HX[0-9a-fA-F]{32}$'),
  is_approved boolean not null default false,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, slug)
);

create table public.messaging_logs (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid references auth.users (id) on delete set null,
  channel_type text not null check (channel_type in ('sms', 'whatsapp')),
  template_id uuid references public.messaging_templates (id) on delete set null,
  channel_id uuid references public.messaging_channels (id) on delete set null,
  provider_message_id text unique,
  from_number text not null,
  to_number text not null,
  content text,
  message_type text not null default 'transactional'
    check (message_type in ('transactional', 'marketing', 'otp', 'notification')),
  bulk_id uuid,
  status text not null default 'queued' check (status in ('queued', 'sent', 'delivered', 'read', 'failed')),
  sent_at timestamptz,
  delivered_at timestamptz,
  read_at timestamptz,
  failed_at timestamptz,
  error_code text,
  error_message text,
  cost numeric(12, 5),
  currency text,
  segment_count integer,
  variables jsonb not null default '{}'::jsonb,
  tags jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index messaging_logs_workspace_idx on public.messaging_logs (workspace_id, created_at desc);
-- The limiter and the daily quota count a channel's attempts over a time window.
create index messaging_logs_channel_idx on public.messaging_logs (channel_id, created_at);

create table public.messaging_optouts (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  phone_number text not null check (phone_number ~ '^\+[1-9][0-9]{1,14}$'),
  channel_type text not null check (channel_type in ('sms', 'whatsapp', 'all')),
  opted_out_at timestamptz not null default now(),
  reason text,
  source text not null check (source in ('keyword', 'manual', 'api', 'complaint')),
  unique (workspace_id, phone_number, channel_type)
);

create table public.messaging_settings (
  workspace_id uuid primary key references public.workspaces (id) on delete cascade,
  settings jsonb not null default '{}'::jsonb check (jsonb_typeof(settings) = 'object'),
  updated_at timestamptz not null default now()
);

create trigger messaging_channels_touch before update on public.messaging_channels
  for each row execute function public.touch_updated_at();
create trigger messaging_templates_touch before update on public.messaging_templates
  for each row execute function public.touch_updated_at();
create trigger messaging_settings_touch before update on public.messaging_settings
  for each row execute function public.touch_updated_at();

-- ---- row-level security ----

alter table public.messaging_channels enable row level security;
alter table public.messaging_templates enable row level security;
alter table public.messaging_logs enable row level security;
alter table public.messaging_optouts enable row level security;
alter table public.messaging_settings enable row level security;

grant select, insert, update, delete on public.messaging_channels, public.messaging_templates,
  public.messaging_settings, public.messaging_optouts to authenticated;
grant select on public.messaging_logs to authenticated;
grant all on public.messaging_channels, public.messaging_templates, public.messaging_logs,
  public.messaging_optouts, public.messaging_settings to service_role;

-- Members of the workspace read its channels.
create policy messaging_channels_read on public.messaging_channels for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners and admins add channels to their workspace.
create policy messaging_channels_create on public.messaging_channels for insert to authenticated
  with check (public.is_workspace_admin(workspace_id));
-- Owners and admins change their workspace's channels and cannot move one to another workspace.
create policy messaging_channels_edit on public.messaging_channels for update to authenticated
  using (public.is_workspace_admin(workspace_id)) with check (public.is_workspace_admin(workspace_id));
-- Owners and admins remove their workspace's channels.
create policy messaging_channels_remove on public.messaging_channels for delete to authenticated
  using (public.is_workspace_admin(workspace_id));

-- Members of the workspace read its templates.
create policy messaging_templates_read on public.messaging_templates for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners and admins add templates to their workspace.
create policy messaging_templates_create on public.messaging_templates for insert to authenticated
  with check (public.is_workspace_admin(workspace_id));
-- Owners and admins change their workspace's templates and cannot move one to another workspace.
create policy messaging_templates_edit on public.messaging_templates for update to authenticated
  using (public.is_workspace_admin(workspace_id)) with check (public.is_workspace_admin(workspace_id));
-- Owners and admins remove their workspace's templates.
create policy messaging_templates_remove on public.messaging_templates for delete to authenticated
  using (public.is_workspace_admin(workspace_id));

-- Members of the workspace read its message logs; only the service role writes them.
create policy messaging_logs_read on public.messaging_logs for select to authenticated
  using (public.is_workspace_member(workspace_id));

-- Members of the workspace read its opt-out list.
create policy messaging_optouts_read on public.messaging_optouts for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners and admins record manual or api opt-outs (keyword opt-outs come from the webhook).
create policy messaging_optouts_create on public.messaging_optouts for insert to authenticated
  with check (public.is_workspace_admin(workspace_id) and source in ('manual', 'api', 'complaint'));
-- Owners and admins correct opt-out entries of their workspace.
create policy messaging_optouts_edit on public.messaging_optouts for update to authenticated
  using (public.is_workspace_admin(workspace_id))
  with check (public.is_workspace_admin(workspace_id) and source in ('manual', 'api', 'complaint'));
-- Owners and admins lift opt-outs of their workspace.
create policy messaging_optouts_remove on public.messaging_optouts for delete to authenticated
  using (public.is_workspace_admin(workspace_id));

-- Members of the workspace read its messaging settings.
create policy messaging_settings_read on public.messaging_settings for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners and admins create their workspace's settings row.
create policy messaging_settings_create on public.messaging_settings for insert to authenticated
  with check (public.is_workspace_admin(workspace_id));
-- Owners and admins change their workspace's settings.
create policy messaging_settings_edit on public.messaging_settings for update to authenticated
  using (public.is_workspace_admin(workspace_id)) with check (public.is_workspace_admin(workspace_id));
