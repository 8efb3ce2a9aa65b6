-- Social publishing (spec "Social functions", "Social provider webhook"): the publishing
-- provider is Late / Zernio (providers.md §6a). Each workspace gets one Late profile; accounts
-- connected through OAuth belong to it; posts go out now or at scheduled_at (pg_cron tick,
-- migration 20260213000200); analytics and account insights are pulled from the provider and
-- pushed by its signed webhooks.
--
-- Everything is workspace-scoped. Members read their workspace's rows through /rest/v1; every
-- write is made by the social edge functions with the service role, after they authorised the
-- caller from the JWT and workspace_members (packages/shared/social). OAuth states and webhook
-- deliveries are the service's own bookkeeping: no user can read them.
create table public.social_profiles (
  workspace_id uuid primary key references public.workspaces (id) on delete cascade,
  -- The Late profile every account of the workspace is connected under (checked at callback).
  late_profile_id text not null unique,
  created_at timestamptz not null default now()
);

-- One row per `connect`: the signed state handed to the browser carries a nonce whose SHA-256
-- is kept here; the callback spends the row once (used_at), before expires_at.
create table public.social_oauth_states (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  platform text not null check (platform in
    ('instagram', 'facebook', 'linkedin', 'tiktok', 'pinterest', 'youtube', 'twitter', 'threads')),
  nonce_hash text not null unique check (nonce_hash ~ '^[0-9a-f]{64}$'),
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index social_oauth_states_expiry_idx on public.social_oauth_states (expires_at);

create table public.social_accounts (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- The provider's account id (`accountId` of the OAuth redirect): one workspace owns it.
  late_account_id text not null unique,
  late_profile_id text not null,
  platform text not null check (platform in
    ('instagram', 'facebook', 'linkedin', 'tiktok', 'pinterest', 'youtube', 'twitter', 'threads')),
  username text,
  display_name text,
  profile_picture text,
  profile_url text,
  followers_count integer,
  is_active boolean not null default true,
  connected_by uuid references auth.users (id) on delete set null,
  connected_at timestamptz not null default now(),
  disconnected_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index social_accounts_workspace_idx on public.social_accounts (workspace_id, platform);

create table public.social_posts (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  social_account_id uuid not null references public.social_accounts (id) on delete cascade,
  platform text not null,
  content text not null,
  media_url text,
  media_type text check (media_type in ('image', 'video')),
  -- scheduled: waits for the cron tick; publishing: claimed (by publish_now or a tick) and sent
  -- to the provider; then the provider's outcome (also updated by its webhooks).
  status text not null check (status in ('scheduled', 'publishing', 'published', 'failed', 'partial', 'cancelled')),
  scheduled_at timestamptz,
  late_post_id text unique,
  platform_post_id text,
  platform_post_url text,
  published_at timestamptz,
  error_message text,
  publish_attempts integer not null default 0,
  claimed_at timestamptz,
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (status <> 'scheduled' or scheduled_at is not null)
);
create index social_posts_workspace_idx on public.social_posts (workspace_id, created_at desc);
create index social_posts_account_idx on public.social_posts (social_account_id, published_at);
create index social_posts_due_idx on public.social_posts (scheduled_at) where status = 'scheduled';

-- The latest metrics of a post (one row per post, overwritten by each fetch; comment webhooks
-- count on top until the next fetch).
create table public.social_post_analytics (
  post_id uuid primary key references public.social_posts (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  social_account_id uuid not null references public.social_accounts (id) on delete cascade,
  likes integer not null default 0,
  comments integer not null default 0,
  shares integer not null default 0,
  reach integer not null default 0,
  impressions integer not null default 0,
  saves integer not null default 0,
  clicks integer not null default 0,
  views integer not null default 0,
  engagement_rate numeric(8, 4),
  fetched_at timestamptz,
  updated_at timestamptz not null default now()
);

-- One snapshot per account and UTC day (a second fetch the same day overwrites it).
create table public.social_account_insights (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  social_account_id uuid not null references public.social_accounts (id) on delete cascade,
  date date not null,
  followers_count integer,
  reach bigint not null default 0,
  impressions bigint not null default 0,
  period_start date not null,
  period_end date not null,
  fetched_at timestamptz not null default now(),
  unique (social_account_id, date)
);

-- Webhook deliveries already applied, by the event's id: a redelivery changes nothing.
create table public.social_webhook_events (
  event_id text primary key,
  event_type text not null,
  late_post_id text,
  outcome text not null default 'received',
  received_at timestamptz not null default now()
);

create trigger social_accounts_touch before update on public.social_accounts
  for each row execute function public.touch_updated_at();
create trigger social_posts_touch before update on public.social_posts
  for each row execute function public.touch_updated_at();
create trigger social_post_analytics_touch before update on public.social_post_analytics
  for each row execute function public.touch_updated_at();

-- ---- row-level security ----
alter table public.social_profiles enable row level security;
alter table public.social_oauth_states enable row level security;
alter table public.social_accounts enable row level security;
alter table public.social_posts enable row level security;
alter table public.social_post_analytics enable row level security;
alter table public.social_account_insights enable row level security;
alter table public.social_webhook_events enable row level security;

grant select on public.social_profiles, public.social_accounts, public.social_posts,
  public.social_post_analytics, public.social_account_insights to authenticated;
grant all on public.social_profiles, public.social_oauth_states, public.social_accounts, public.social_posts,
  public.social_post_analytics, public.social_account_insights, public.social_webhook_events to service_role;

-- Members see which Late profile their workspace publishes under (writes: social-oauth only).
create policy social_profiles_read on public.social_profiles for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Members see their workspace's connected accounts (writes: social-oauth and the webhook only).
create policy social_accounts_read on public.social_accounts for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Members see their workspace's posts (writes: social-publish, the cron tick and the webhook only).
create policy social_posts_read on public.social_posts for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Members see their workspace's post metrics (writes: social-analytics and the webhook only).
create policy social_post_analytics_read on public.social_post_analytics for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Members see their workspace's account insights (writes: social-analytics only).
create policy social_account_insights_read on public.social_account_insights for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- social_oauth_states and social_webhook_events: RLS on, no policy and no grant to users; only
-- the service role (the social functions) reads or writes them.

-- ---- the scheduler's claim ----
-- Claims up to p_limit posts that are due (scheduled_at reached) or whose earlier claim went
-- stale (a tick that died mid-publish, p_stale_after ago): status publishing, claimed_at now,
-- one more attempt. One UPDATE with row locks skipped, so overlapping ticks never claim the same
-- post; the publisher sends the post id as the provider's x-request-id, so a re-claimed post the
-- provider already took is not published twice.
create function public.social_claim_due_posts(p_limit integer default 50, p_stale_after interval default '10 minutes')
returns setof public.social_posts
language sql volatile security definer set search_path = '' as $$
  update public.social_posts p
     set status = 'publishing', claimed_at = now(), publish_attempts = p.publish_attempts + 1
   where p.id in (
     select d.id from public.social_posts d
      where (d.status = 'scheduled' and d.scheduled_at <= now())
         or (d.status = 'publishing' and d.claimed_at < now() - p_stale_after and d.late_post_id is null
             and d.publish_attempts < 3)
      order by d.scheduled_at
      limit greatest(1, least(p_limit, 500))
      for update skip locked
   )
  returning p.*
$$;

-- ---- webhook events ----
-- Applies one verified Late webhook event exactly once (keyed by its id), in one transaction:
-- post.published / failed / partial / cancelled (and post.platform.*) set the post's status,
-- URL and error; comment.received counts a comment on the post's metrics; account.disconnected
-- deactivates the account. Returns the outcome: duplicate, applied, unknown_post,
-- unknown_account or ignored.
create function public.social_apply_webhook_event(p_event_id text, p_event text, p_payload jsonb)
returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_post public.social_posts;
  v_late_post text;
  v_platform jsonb;
  v_status text;
  v_outcome text := 'ignored';
  v_account text;
begin
  v_late_post := coalesce(p_payload #>> '{post,id}', p_payload #>> '{comment,postId}');
  insert into public.social_webhook_events (event_id, event_type, late_post_id)
  values (p_event_id, p_event, v_late_post)
  on conflict (event_id) do nothing;
  if not found then
    return 'duplicate';
  end if;

  if p_event in ('post.published', 'post.failed', 'post.partial', 'post.cancelled',
                 'post.platform.published', 'post.platform.failed') then
    select * into v_post from public.social_posts where late_post_id = v_late_post for update;
    if not found then
      v_outcome := 'unknown_post';
    else
      v_status := case split_part(p_event, '.', array_length(string_to_array(p_event, '.'), 1))
        when 'published' then 'published' when 'failed' then 'failed'
        when 'partial' then 'partial' else 'cancelled' end;
      select e into v_platform from jsonb_array_elements(coalesce(p_payload #> '{post,platforms}', '[]')) e
       where e ->> 'platform' = v_post.platform limit 1;
      update public.social_posts
         set status = v_status,
             published_at = case when v_status = 'published'
               then coalesce(published_at, (p_payload #>> '{post,publishedAt}')::timestamptz,
                             (v_platform ->> 'publishedAt')::timestamptz, now())
               else published_at end,
             platform_post_id = coalesce(v_platform ->> 'platformPostId', platform_post_id),
             platform_post_url = coalesce(v_platform ->> 'publishedUrl', platform_post_url),
             error_message = case when v_status in ('failed', 'partial')
               then coalesce(v_platform ->> 'error', p_payload #>> '{post,error}', 'The provider reported a failure')
               else null end
       where id = v_post.id;
      v_outcome := 'applied';
    end if;
  elsif p_event = 'comment.received' then
    select * into v_post from public.social_posts where late_post_id = v_late_post;
    if not found then
      v_outcome := 'unknown_post';
    else
      insert into public.social_post_analytics (post_id, workspace_id, social_account_id, comments)
      values (v_post.id, v_post.workspace_id, v_post.social_account_id, 1)
      on conflict (post_id) do update set comments = public.social_post_analytics.comments + 1;
      v_outcome := 'applied';
    end if;
  elsif p_event = 'account.disconnected' then
    v_account := p_payload #>> '{account,accountId}';
    update public.social_accounts set is_active = false, disconnected_at = coalesce(disconnected_at, now())
     where late_account_id = v_account;
    v_outcome := case when found then 'applied' else 'unknown_account' end;
  end if;

  update public.social_webhook_events set outcome = v_outcome where event_id = p_event_id;
  return v_outcome;
end
$$;

revoke execute on function public.social_claim_due_posts(integer, interval),
  public.social_apply_webhook_event(text, text, jsonb) from public, anon, authenticated;
grant execute on function public.social_claim_due_posts(integer, interval),
  public.social_apply_webhook_event(text, text, jsonb) to service_role;

-- ---- generated images ----
-- generate-social-image stores its PNGs here, under <workspace_id>/: a public bucket, because
-- the publishing provider fetches media by URL; object names carry a random uuid. Only the
-- service role writes (no storage.objects policy lets users insert, update or delete).
insert into storage.buckets (id, name, public, allowed_mime_types)
values ('social-images', 'social-images', true, array['image/png'])
on conflict (id) do nothing;
