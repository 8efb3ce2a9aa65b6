-- Email (spec "Email", "Email provider webhook"): sending domains, templates, the send log, daily
-- analytics counters, the suppression list and the webhook deliveries already applied.
--
-- Everything is workspace-scoped. Members read their workspace's rows; the rows the service
-- keeps (domains, logs, analytics, webhook deliveries) are written only by the email functions
-- with the service role, after they authorised the caller from the JWT and the database (the
-- admin check for add-domain / mark-domain-verified reads workspace_members). Templates and
-- unsubscribes are managed by workspace owners and admins through /rest/v1.
--
-- Event -> log/analytics mapping lives in email_apply_event() below and in
-- packages/shared/email/events.ts's module doc.

create table public.email_domains (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  domain text not null check (domain = lower(domain) and length(domain) between 3 and 253),
  verification_status text not null default 'pending' check (verification_status in ('pending', 'verified')),
  is_default boolean not null default false,
  -- Percent of this domain's sent mail that bounced / drew a complaint (kept by the webhook).
  bounce_rate numeric(6, 2) not null default 0,
  complaint_rate numeric(6, 2) not null default 0,
  reputation_status text not null default 'good' check (reputation_status in ('good', 'warning', 'poor')),
  -- The provider's id for the domain and the DNS records it asks for.
  provider_domain_id text,
  dns_records jsonb not null default '[]'::jsonb,
  created_by uuid references auth.users (id) on delete set null,
  verified_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, domain)
);
-- A domain can be verified for one workspace only: nobody sends as a domain another tenant owns.
create unique index email_domains_verified_once on public.email_domains (domain)
  where verification_status = 'verified';
create unique index email_domains_one_default on public.email_domains (workspace_id) where is_default;

create table public.email_templates (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null check (length(trim(name)) between 1 and 200),
  slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,99}$'),
  subject text not null check (length(subject) between 1 and 998),
  html_content text,
  text_content text,
  -- Variables a send must supply ({{name}} placeholders).
  variables text[] not null default '{}',
  email_type text not null default 'transactional'
    check (email_type in ('transactional', 'marketing', 'notification')),
  is_active boolean not null default true,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, slug),
  check (html_content is not null or text_content is not null)
);

create table public.email_logs (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid references auth.users (id) on delete set null,
  domain_id uuid references public.email_domains (id) on delete set null,
  template_id uuid references public.email_templates (id) on delete set null,
  provider_message_id text unique,
  from_email text not null,
  from_name text,
  to_emails text[] not null,
  cc text[] not null default '{}',
  bcc text[] not null default '{}',
  reply_to text,
  subject text not null,
  email_type text not null check (email_type in ('transactional', 'marketing', 'notification')),
  status text not null default 'queued'
    check (status in ('queued', 'sent', 'delivered', 'bounced', 'complained', 'failed')),
  tags jsonb not null default '{}'::jsonb,
  variables jsonb not null default '{}'::jsonb,
  error_message text,
  bounce_type text,
  open_count integer not null default 0,
  click_count integer not null default 0,
  sent_at timestamptz,
  delivered_at timestamptz,
  delayed_at timestamptz,
  bounced_at timestamptz,
  complained_at timestamptz,
  opened_at timestamptz,
  clicked_at timestamptz,
  failed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index email_logs_workspace_idx on public.email_logs (workspace_id, created_at desc);
create index email_logs_domain_idx on public.email_logs (domain_id);

-- One row per workspace and UTC day; each counter counts emails (an email opened twice is one open).
create table public.email_analytics (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  date date not null,
  sent integer not null default 0,
  delivered integer not null default 0,
  delivery_delayed integer not null default 0,
  bounced integer not null default 0,
  complained integer not null default 0,
  opened integer not null default 0,
  clicked integer not null default 0,
  failed integer not null default 0,
  updated_at timestamptz not null default now(),
  unique (workspace_id, date)
);

-- Addresses a workspace does not mail: hard bounces and complaints (every email type, added by
-- the webhook) and unsubscribes (marketing only, added by owners and admins).
create table public.email_suppressions (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  email text not null check (email = lower(email) and position('@' in email) > 1),
  reason text not null check (reason in ('hard_bounce', 'complaint', 'unsubscribe')),
  source_log_id uuid references public.email_logs (id) on delete set null,
  created_at timestamptz not null default now(),
  unique (workspace_id, email, reason)
);

-- Webhook deliveries already applied, by svix-id: a replayed delivery is ignored.
create table public.email_webhook_events (
  svix_id text primary key,
  event_type text not null,
  provider_message_id text,
  outcome text not null,
  received_at timestamptz not null default now()
);

create trigger email_domains_touch before update on public.email_domains
  for each row execute function public.touch_updated_at();
create trigger email_templates_touch before update on public.email_templates
  for each row execute function public.touch_updated_at();
create trigger email_logs_touch before update on public.email_logs
  for each row execute function public.touch_updated_at();

-- ---- row-level security ----

alter table public.email_domains enable row level security;
alter table public.email_templates enable row level security;
alter table public.email_logs enable row level security;
alter table public.email_analytics enable row level security;
alter table public.email_suppressions enable row level security;
alter table public.email_webhook_events enable row level security;

grant select on public.email_domains, public.email_logs, public.email_analytics to authenticated;
grant select, delete on public.email_templates, public.email_suppressions to authenticated;
grant insert (workspace_id, name, slug, subject, html_content, text_content, variables, email_type, is_active)
  on public.email_templates to authenticated;
grant update (name, slug, subject, html_content, text_content, variables, email_type, is_active)
  on public.email_templates to authenticated;
grant insert (workspace_id, email, reason) on public.email_suppressions to authenticated;
-- Readable in name only: no policy below lets a user see a row.
grant select on public.email_webhook_events to authenticated;
grant all on public.email_domains, public.email_templates, public.email_logs, public.email_analytics,
  public.email_suppressions, public.email_webhook_events to service_role;

-- Members see their workspace's sending domains (writes: the email-api function only).
create policy email_domains_read on public.email_domains for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Members see their workspace's templates.
create policy email_templates_read on public.email_templates for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners and admins create templates in their workspace.
create policy email_templates_create on public.email_templates for insert to authenticated
  with check (public.is_workspace_admin(workspace_id));
-- Owners and admins edit their workspace's templates (workspace_id is not updatable: grants).
create policy email_templates_update on public.email_templates for update to authenticated
  using (public.is_workspace_admin(workspace_id)) with check (public.is_workspace_admin(workspace_id));
-- Owners and admins delete their workspace's templates.
create policy email_templates_delete on public.email_templates for delete to authenticated
  using (public.is_workspace_admin(workspace_id));
-- Members see their workspace's send log (writes: the email functions only).
create policy email_logs_read on public.email_logs for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Members see their workspace's daily counters (writes: email_apply_event only).
create policy email_analytics_read on public.email_analytics for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Members see their workspace's suppression list.
create policy email_suppressions_read on public.email_suppressions for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners and admins record unsubscribes; bounces and complaints come from the webhook only.
create policy email_suppressions_unsubscribe on public.email_suppressions for insert to authenticated
  with check (public.is_workspace_admin(workspace_id) and reason = 'unsubscribe');
-- Owners and admins lift an unsubscribe (a bounce or complaint stays).
create policy email_suppressions_delete on public.email_suppressions for delete to authenticated
  using (public.is_workspace_admin(workspace_id) and reason = 'unsubscribe');
-- email_webhook_events: no policy, so only the service role (the webhook function) sees it.

-- ---- events ----

-- Order of log statuses: a later event never moves a log back (a late `delivered` after a
-- bounce keeps `bounced`).
create function public.email_status_rank(s text) returns integer
language sql immutable set search_path = '' as $$
  select case s when 'queued' then 0 when 'sent' then 1 when 'delivered' then 2
    when 'bounced' then 3 when 'complained' then 4 when 'failed' then 5 else 0 end
$$;

-- Recomputes a domain's bounce and complaint rates (percent of its sent mail) and reputation:
-- poor from 10% bounces or 0.5% complaints, warning from 4% or 0.1%, good below.
create function public.email_refresh_domain(p_domain_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  v_sent integer;
  v_bounced integer;
  v_complained integer;
  v_bounce numeric;
  v_complaint numeric;
begin
  if p_domain_id is null then return; end if;
  select count(*) filter (where l.sent_at is not null),
         count(*) filter (where l.bounced_at is not null),
         count(*) filter (where l.complained_at is not null)
    into v_sent, v_bounced, v_complained
    from public.email_logs l where l.domain_id = p_domain_id;
  v_bounce := case when v_sent = 0 then 0 else round(100.0 * v_bounced / v_sent, 2) end;
  v_complaint := case when v_sent = 0 then 0 else round(100.0 * v_complained / v_sent, 2) end;
  update public.email_domains d
     set bounce_rate = v_bounce,
         complaint_rate = v_complaint,
         reputation_status = case
           when v_bounce >= 10 or v_complaint >= 0.5 then 'poor'
           when v_bounce >= 4 or v_complaint >= 0.1 then 'warning'
           else 'good' end
   where d.id = p_domain_id;
end $$;

-- Applies one delivery event to a log, its day's counters, the suppression list and the
-- domain's rates, atomically. Counters count an email once per kind (the first event of the
-- kind for that log); delivery_delayed counts every delay. Returns the log's new status.
--   sent            -> status sent, sent_at; +sent
--   delivered       -> status delivered, delivered_at; +delivered
--   delivery_delayed-> status unchanged, delayed_at; +delivery_delayed
--   bounced         -> status bounced, bounced_at, bounce_type; +bounced; Permanent: suppress recipients
--   complained      -> status complained, complained_at; +complained; suppress recipients
--   opened          -> status unchanged, opened_at (first), open_count+1; +opened (first open)
--   clicked         -> status unchanged, clicked_at (first), click_count+1; +clicked (first click)
--   failed          -> status failed, failed_at, error_message; +failed
create function public.email_apply_event(
  p_log_id uuid, p_event text, p_at timestamptz, p_details jsonb default '{}'::jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_log public.email_logs;
  v_first boolean;
  v_status text;
  v_col text;
begin
  select * into v_log from public.email_logs where id = p_log_id for update;
  if not found then raise exception 'email log % not found', p_log_id using errcode = 'P0002'; end if;
  v_status := v_log.status;

  case p_event
    when 'sent' then
      v_first := v_log.sent_at is null; v_col := 'sent';
      update public.email_logs set sent_at = coalesce(sent_at, p_at),
        provider_message_id = coalesce(provider_message_id, p_details ->> 'provider_message_id')
       where id = p_log_id;
      if public.email_status_rank('sent') > public.email_status_rank(v_status) then v_status := 'sent'; end if;
    when 'delivered' then
      v_first := v_log.delivered_at is null; v_col := 'delivered';
      update public.email_logs set delivered_at = coalesce(delivered_at, p_at), sent_at = coalesce(sent_at, p_at)
       where id = p_log_id;
      if public.email_status_rank('delivered') > public.email_status_rank(v_status) then v_status := 'delivered'; end if;
    when 'delivery_delayed' then
      v_first := true; v_col := 'delivery_delayed';
      update public.email_logs set delayed_at = p_at where id = p_log_id;
    when 'bounced' then
      v_first := v_log.bounced_at is null; v_col := 'bounced';
      update public.email_logs set bounced_at = coalesce(bounced_at, p_at), sent_at = coalesce(sent_at, p_at),
        bounce_type = coalesce(p_details ->> 'bounce_type', bounce_type),
        error_message = coalesce(p_details ->> 'message', error_message)
       where id = p_log_id;
      if public.email_status_rank('bounced') > public.email_status_rank(v_status) then v_status := 'bounced'; end if;
      if p_details ->> 'bounce_type' = 'Permanent' then
        insert into public.email_suppressions (workspace_id, email, reason, source_log_id)
        select v_log.workspace_id, lower(r), 'hard_bounce', p_log_id
          from unnest(coalesce((select array_agg(x) from jsonb_array_elements_text(p_details -> 'recipients') x),
                               v_log.to_emails)) r
        on conflict (workspace_id, email, reason) do nothing;
      end if;
    when 'complained' then
      v_first := v_log.complained_at is null; v_col := 'complained';
      update public.email_logs set complained_at = coalesce(complained_at, p_at) where id = p_log_id;
      if public.email_status_rank('complained') > public.email_status_rank(v_status) then v_status := 'complained'; end if;
      insert into public.email_suppressions (workspace_id, email, reason, source_log_id)
      select v_log.workspace_id, lower(r), 'complaint', p_log_id
        from unnest(coalesce((select array_agg(x) from jsonb_array_elements_text(p_details -> 'recipients') x),
                             v_log.to_emails)) r
      on conflict (workspace_id, email, reason) do nothing;
    when 'opened' then
      v_first := v_log.opened_at is null; v_col := 'opened';
      update public.email_logs set opened_at = coalesce(opened_at, p_at), open_count = open_count + 1
       where id = p_log_id;
    when 'clicked' then
      v_first := v_log.clicked_at is null; v_col := 'clicked';
      update public.email_logs set clicked_at = coalesce(clicked_at, p_at), click_count = click_count + 1
       where id = p_log_id;
    when 'failed' then
      v_first := v_log.failed_at is null; v_col := 'failed';
      update public.email_logs set failed_at = coalesce(failed_at, p_at),
        error_message = coalesce(p_details ->> 'message', error_message)
       where id = p_log_id;
      v_status := 'failed';
    else
      raise exception 'unknown email event %', p_event using errcode = '22023';
  end case;

  if v_status <> v_log.status then
    update public.email_logs set status = v_status where id = p_log_id;
  end if;

  if v_first then
    execute format(
      'insert into public.email_analytics as a (workspace_id, date, %1$I) values ($1, $2, 1)
       on conflict (workspace_id, date) do update set %1$I = a.%1$I + 1, updated_at = now()', v_col)
      using v_log.workspace_id, (p_at at time zone 'utc')::date;
  end if;

  if p_event in ('sent', 'delivered', 'bounced', 'complained') then
    perform public.email_refresh_domain(v_log.domain_id);
  end if;
  return v_status;
end $$;
revoke execute on function public.email_apply_event(uuid, text, timestamptz, jsonb),
  public.email_refresh_domain(uuid), public.email_status_rank(text) from public, anon, authenticated;
grant execute on function public.email_apply_event(uuid, text, timestamptz, jsonb),
  public.email_refresh_domain(uuid), public.email_status_rank(text) to service_role;

-- One provider webhook delivery: records its svix-id (a replay returns 'duplicate' and changes
-- nothing) and applies the event to the log the provider message id names ('unknown_email'
-- when no log has it), in one transaction.
create function public.email_apply_webhook(
  p_svix_id text, p_event text, p_provider_message_id text, p_at timestamptz,
  p_details jsonb default '{}'::jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_log_id uuid;
  v_outcome text;
begin
  -- The svix-id is claimed first: a concurrent replay waits on this row and then sees it.
  insert into public.email_webhook_events (svix_id, event_type, provider_message_id, outcome)
  values (p_svix_id, p_event, p_provider_message_id, 'pending')
  on conflict (svix_id) do nothing;
  if not found then return 'duplicate'; end if;
  select id into v_log_id from public.email_logs where provider_message_id = p_provider_message_id;
  if v_log_id is null then
    v_outcome := 'unknown_email';
  else
    perform public.email_apply_event(v_log_id, p_event, p_at, p_details);
    v_outcome := 'applied';
  end if;
  update public.email_webhook_events set outcome = v_outcome where svix_id = p_svix_id;
  return v_outcome;
end $$;
revoke execute on function public.email_apply_webhook(text, text, text, timestamptz, jsonb)
  from public, anon, authenticated;
grant execute on function public.email_apply_webhook(text, text, text, timestamptz, jsonb) to service_role;
