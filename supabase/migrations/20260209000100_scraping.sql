-- Web scraping (spec "Scraping"): sessions, their pages, the materials extracted from them before
-- they become products, and reusable extraction field templates. Everything is workspace-scoped.
--
-- Session states (the spec does not show them; chosen here and enforced by a trigger):
--
--   pending  --start-->  running  --pause-->  paused  --resume-->  running
--   running  --(no page left)-->  completed        running --(runner error)--> failed
--   pending | running | paused  --stop-->  stopped  (terminal; pending pages become skipped)
--   completed | failed  --retry / start-->  running  (failed pages go back to pending)
--
-- Any other move is refused (errcode 23514, "scraping session cannot move from X to Y"); setting
-- the state it already has is a no-op. Processing position is the pages' own status, so pause /
-- resume and a platform restart continue where work stopped: a runner holds the session through
-- worker_id + heartbeat_at, and claims pages (3 at a time) with `for update skip locked`, so two
-- runners never process one page; a runner that died (stale heartbeat) loses both leases.
--
-- Clients create sessions and pages through /rest/v1 (owner, admin, member); everything a runner
-- writes (status, counters, leases, materials, products) goes through the service-role functions
-- below, each one transaction.

create table public.scraping_sessions (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null default 'Scraping session' check (length(name) between 1 and 200),
  -- Where the pages came from (a sitemap or a site); informative.
  source_url text check (source_url is null or source_url ~* '^https?://'),
  status text not null default 'pending'
    check (status in ('pending', 'running', 'paused', 'completed', 'stopped', 'failed')),
  -- Extraction options: {prompt, systemPrompt, schema, timeout} as scrape-single-page takes them.
  options jsonb not null default '{}'::jsonb check (jsonb_typeof(options) = 'object'),
  -- The category products created from this session get.
  category text,
  total_pages integer not null default 0,
  processed_pages integer not null default 0,
  failed_pages integer not null default 0,
  materials_found integer not null default 0,
  products_created integer not null default 0,
  worker_id text,
  heartbeat_at timestamptz,
  started_at timestamptz,
  paused_at timestamptz,
  completed_at timestamptz,
  error text,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index scraping_sessions_workspace_idx on public.scraping_sessions (workspace_id, created_at desc);
create index scraping_sessions_running_idx on public.scraping_sessions (heartbeat_at) where status = 'running';

create trigger scraping_sessions_touch before update on public.scraping_sessions
  for each row execute function public.touch_updated_at();

create table public.scraping_pages (
  id uuid primary key default gen_random_uuid(),
  session_id uuid not null references public.scraping_sessions (id) on delete cascade,
  -- Copied from the session by a trigger (whatever the client sends): the RLS key.
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  url text not null check (url ~* '^https?://' and length(url) <= 2048),
  -- Processing order within the session.
  position integer not null default 0,
  status text not null default 'pending'
    check (status in ('pending', 'processing', 'completed', 'failed', 'skipped')),
  attempts integer not null default 0,
  claimed_by text,
  claimed_at timestamptz,
  http_status integer,
  -- json-ld, microdata, opengraph, llm or none.
  extraction_method text,
  materials_found integer not null default 0,
  processing_time_ms integer,
  error text,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  unique (session_id, url)
);
create index scraping_pages_queue_idx on public.scraping_pages (session_id, status, position);

create table public.scraped_materials_temp (
  id uuid primary key default gen_random_uuid(),
  session_id uuid not null references public.scraping_sessions (id) on delete cascade,
  page_id uuid references public.scraping_pages (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null check (length(trim(name)) > 0),
  description text,
  sku text,
  brand text,
  price numeric(14, 4) check (price is null or price >= 0),
  currency text,
  source_url text,
  -- json-ld, microdata, opengraph or llm.
  source text not null,
  -- Everything extracted (image, availability, fields of the caller's schema).
  data jsonb not null default '{}'::jsonb,
  status text not null default 'pending' check (status in ('pending', 'imported', 'failed')),
  product_id uuid references public.products (id) on delete set null,
  import_attempts integer not null default 0,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index scraped_materials_session_idx on public.scraped_materials_temp (session_id, status);

create trigger scraped_materials_temp_touch before update on public.scraped_materials_temp
  for each row execute function public.touch_updated_at();

create table public.scraping_field_templates (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null check (length(trim(name)) between 1 and 200),
  description text,
  -- [{name, type (string|number|boolean|array), description, required}]
  fields jsonb not null default '[]'::jsonb check (jsonb_typeof(fields) = 'array'),
  prompt text,
  system_prompt text,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name)
);

create trigger scraping_field_templates_touch before update on public.scraping_field_templates
  for each row execute function public.touch_updated_at();

-- ---- the state machine ----

create function public.scraping_session_transition_allowed(p_from text, p_to text) returns boolean
language sql immutable set search_path = '' as $$
  select p_from = p_to or (p_from, p_to) in (
    ('pending', 'running'), ('pending', 'stopped'),
    ('running', 'paused'), ('running', 'stopped'), ('running', 'completed'), ('running', 'failed'),
    ('paused', 'running'), ('paused', 'stopped'),
    ('completed', 'running'), ('failed', 'running')
  );
$$;

-- Security definer so that it may call the transition check, which callers may not execute.
create function public.scraping_sessions_guard() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    if new.status <> 'pending' then
      raise exception 'a scraping session starts as pending, not %', new.status using errcode = '23514';
    end if;
    return new;
  end if;
  if not public.scraping_session_transition_allowed(old.status, new.status) then
    raise exception 'scraping session cannot move from % to %', old.status, new.status
      using errcode = '23514';
  end if;
  if new.workspace_id <> old.workspace_id then
    raise exception 'a scraping session cannot change workspace' using errcode = '23514';
  end if;
  return new;
end $$;

create trigger scraping_sessions_guard before insert or update on public.scraping_sessions
  for each row execute function public.scraping_sessions_guard();

-- Pages take their workspace from the session; they may be added while the session is not
-- finished (pending, running, paused); the session's page total follows inserts and deletes.
create function public.scraping_pages_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  s public.scraping_sessions;
begin
  select * into s from public.scraping_sessions where id = new.session_id;
  if not found then
    raise exception 'scraping session % not found', new.session_id using errcode = '23503';
  end if;
  if s.status in ('stopped', 'completed', 'failed') then
    raise exception 'pages cannot be added to a % session', s.status using errcode = '23514';
  end if;
  new.workspace_id := s.workspace_id;
  update public.scraping_sessions set total_pages = total_pages + 1 where id = new.session_id;
  return new;
end $$;

create trigger scraping_pages_fill before insert on public.scraping_pages
  for each row execute function public.scraping_pages_fill();

create function public.scraping_pages_forget() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.scraping_sessions set total_pages = greatest(total_pages - 1, 0) where id = old.session_id;
  return old;
end $$;

create trigger scraping_pages_forget after delete on public.scraping_pages
  for each row execute function public.scraping_pages_forget();

revoke execute on function public.scraping_pages_fill(), public.scraping_pages_forget() from public, anon, authenticated;

-- ---- privileges and policies ----

alter table public.scraping_sessions enable row level security;
alter table public.scraping_pages enable row level security;
alter table public.scraped_materials_temp enable row level security;
alter table public.scraping_field_templates enable row level security;

grant select, delete on public.scraping_sessions, public.scraping_pages, public.scraped_materials_temp
  to authenticated;
grant insert (workspace_id, name, source_url, options, category) on public.scraping_sessions to authenticated;
grant update (name, options, category) on public.scraping_sessions to authenticated;
grant insert (session_id, url, position) on public.scraping_pages to authenticated;
grant select, insert, update, delete on public.scraping_field_templates to authenticated;
grant all on public.scraping_sessions, public.scraping_pages, public.scraped_materials_temp,
  public.scraping_field_templates to service_role;

-- Members of the workspace read its sessions.
create policy scraping_sessions_read on public.scraping_sessions for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members create sessions in their workspace (always pending, see the guard).
create policy scraping_sessions_insert on public.scraping_sessions for insert to authenticated
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
-- Owners, admins and members rename a session or change its options (columns limited by grants).
create policy scraping_sessions_update on public.scraping_sessions for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
-- Owners and admins delete sessions that are not running (pages and materials go with them).
create policy scraping_sessions_delete on public.scraping_sessions for delete to authenticated
  using (public.is_workspace_admin(workspace_id) and status <> 'running');

-- Members of the workspace read its pages.
create policy scraping_pages_read on public.scraping_pages for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members add pages to a session of their workspace (the trigger copies the
-- workspace from the session, so the check is on the session's workspace).
create policy scraping_pages_insert on public.scraping_pages for insert to authenticated
  with check (exists (
    select 1 from public.scraping_sessions s
     where s.id = session_id and public.has_workspace_role(s.workspace_id, array['owner', 'admin', 'member'])
  ));
-- Owners, admins and members remove pages that are not being processed.
create policy scraping_pages_delete on public.scraping_pages for delete to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']) and status <> 'processing');

-- Members of the workspace read the materials scraped for it.
create policy scraped_materials_read on public.scraped_materials_temp for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members discard scraped materials (written only by the runner).
create policy scraped_materials_delete on public.scraped_materials_temp for delete to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));

-- Members of the workspace read its field templates.
create policy scraping_field_templates_read on public.scraping_field_templates for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members create templates in their workspace.
create policy scraping_field_templates_insert on public.scraping_field_templates for insert to authenticated
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
-- Owners, admins and members edit templates (and cannot move one to another workspace).
create policy scraping_field_templates_update on public.scraping_field_templates for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
-- Owners, admins and members delete templates.
create policy scraping_field_templates_delete on public.scraping_field_templates for delete to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));

-- ---- runner functions (service role only; the edge function authorises the caller first) ----

-- start / pause / resume / stop / retry as one statement; illegal moves raise 23514 (the guard).
-- Returns the session after the move.
create function public.scraping_session_action(p_session uuid, p_action text, p_now timestamptz)
returns public.scraping_sessions
language plpgsql security definer set search_path = '' as $$
declare
  s public.scraping_sessions;
  target text;
begin
  select * into s from public.scraping_sessions where id = p_session for update;
  if not found then
    raise exception 'scraping session % not found', p_session using errcode = 'P0002';
  end if;
  target := case p_action
    when 'start' then 'running' when 'resume' then 'running' when 'retry' then 'running'
    when 'pause' then 'paused' when 'stop' then 'stopped' end;
  if target is null then
    raise exception 'unknown scraping action %', p_action using errcode = '22023';
  end if;
  -- start only from pending/failed, resume only from paused, retry only from completed/failed.
  if (p_action = 'start' and s.status not in ('pending', 'failed'))
     or (p_action = 'resume' and s.status <> 'paused')
     or (p_action = 'retry' and s.status not in ('completed', 'failed'))
     or (p_action = 'pause' and s.status <> 'running') then
    raise exception 'scraping session cannot %: it is %', p_action, s.status using errcode = '23514';
  end if;
  if p_action in ('retry', 'start') then
    update public.scraping_pages set status = 'pending', claimed_by = null, claimed_at = null, error = null
     where session_id = p_session and status = 'failed';
    update public.scraped_materials_temp set status = 'pending', error = null
     where session_id = p_session and status = 'failed';
    update public.scraping_sessions
       set failed_pages = 0,
           processed_pages = (select count(*) from public.scraping_pages
                               where session_id = p_session and status = 'completed')
     where id = p_session;
  end if;
  if p_action = 'stop' then
    update public.scraping_pages set status = 'skipped', claimed_by = null, claimed_at = null
     where session_id = p_session and status = 'pending';
  end if;
  update public.scraping_sessions
     set status = target,
         worker_id = case when target = 'running' then null else worker_id end,
         heartbeat_at = case when target = 'running' then null else heartbeat_at end,
         started_at = case when target = 'running' then coalesce(started_at, p_now) else started_at end,
         paused_at = case when target = 'paused' then p_now else paused_at end,
         completed_at = case when target = 'stopped' then p_now when target = 'running' then null else completed_at end,
         error = case when target = 'running' then null else error end
   where id = p_session
  returning * into s;
  return s;
end $$;

-- A runner takes a running session: when no runner holds it, it already holds it, or the
-- holder's heartbeat is older than p_stale_before (it died: a platform restart). Empty when
-- another live runner holds it or the session is not running.
create function public.scraping_claim_session(
  p_session uuid, p_worker text, p_now timestamptz, p_stale_before timestamptz
) returns setof public.scraping_sessions
language sql security definer set search_path = '' as $$
  update public.scraping_sessions
     set worker_id = p_worker, heartbeat_at = p_now
   where id = p_session and status = 'running'
     and (worker_id is null or worker_id = p_worker or heartbeat_at is null or heartbeat_at < p_stale_before)
  returning *;
$$;

-- Running sessions nobody is working on (no runner, or a stale heartbeat): what the cron tick resumes.
create function public.scraping_orphaned_sessions(p_stale_before timestamptz, p_limit integer)
returns setof uuid
language sql stable security definer set search_path = '' as $$
  select id from public.scraping_sessions
   where status = 'running' and (worker_id is null or heartbeat_at is null or heartbeat_at < p_stale_before)
   order by heartbeat_at nulls first
   limit p_limit;
$$;

-- The next pages (up to p_limit, in position order) for the runner holding the session: pending
-- ones, and pages a dead runner left processing (claimed before p_stale_before). Empty when the
-- session is not running (paused, stopped) or another runner holds it. Refreshes the heartbeat.
create function public.scraping_claim_pages(
  p_session uuid, p_worker text, p_limit integer, p_now timestamptz, p_stale_before timestamptz
) returns setof public.scraping_pages
language plpgsql security definer set search_path = '' as $$
begin
  update public.scraping_sessions set heartbeat_at = p_now
   where id = p_session and status = 'running' and worker_id = p_worker;
  if not found then
    return;
  end if;
  return query
  update public.scraping_pages p
     set status = 'processing', claimed_by = p_worker, claimed_at = p_now, attempts = p.attempts + 1
   where p.id in (
     select q.id from public.scraping_pages q
      where q.session_id = p_session
        and (q.status = 'pending' or (q.status = 'processing' and q.claimed_at < p_stale_before))
      order by q.position, q.created_at
      limit p_limit
      for update skip locked
   )
  returning p.*;
end $$;

-- Records one processed page in one transaction: the page's outcome, its materials (an array of
-- {name, description, sku, brand, price, currency, source_url, source, data}) and the session's
-- counters. Only the runner that claimed the page may complete it (a page a dead runner held and
-- another re-claimed is not written twice). Returns the ids of the new materials.
create function public.scraping_complete_page(
  p_page uuid, p_worker text, p_ok boolean, p_result jsonb, p_materials jsonb, p_now timestamptz
) returns setof uuid
language plpgsql security definer set search_path = '' as $$
declare
  pg public.scraping_pages;
  n integer := coalesce(jsonb_array_length(p_materials), 0);
begin
  if p_materials is not null and jsonb_typeof(p_materials) <> 'array' then
    raise exception 'materials must be an array' using errcode = '22023';
  end if;
  update public.scraping_pages
     set status = case when p_ok then 'completed' else 'failed' end,
         http_status = (p_result ->> 'httpStatus')::integer,
         extraction_method = p_result ->> 'method',
         materials_found = n,
         processing_time_ms = (p_result ->> 'processingTimeMs')::integer,
         error = p_result ->> 'error',
         completed_at = p_now,
         claimed_by = null
   where id = p_page and claimed_by = p_worker and status = 'processing'
  returning * into pg;
  if not found then
    return;
  end if;
  -- A page processed again (scrape-single-page) replaces its materials not yet imported.
  delete from public.scraped_materials_temp where page_id = pg.id and status <> 'imported';
  return query
  insert into public.scraped_materials_temp
    (session_id, page_id, workspace_id, name, description, sku, brand, price, currency, source_url, source, data)
  select pg.session_id, pg.id, pg.workspace_id, m ->> 'name', m ->> 'description', m ->> 'sku', m ->> 'brand',
         (m ->> 'price')::numeric, m ->> 'currency', coalesce(m ->> 'source_url', pg.url), m ->> 'source',
         coalesce(m -> 'data', '{}'::jsonb)
    from jsonb_array_elements(coalesce(p_materials, '[]'::jsonb)) m
  returning id;
  -- Counters from the rows themselves, so a page processed twice is counted once.
  update public.scraping_sessions s
     set processed_pages = c.done, failed_pages = c.failed, heartbeat_at = p_now,
         materials_found = (select count(*) from public.scraped_materials_temp where session_id = s.id)
    from (select count(*) filter (where status in ('completed', 'failed')) as done,
                 count(*) filter (where status = 'failed') as failed
            from public.scraping_pages where session_id = pg.session_id) c
   where s.id = pg.session_id;
end $$;

-- Creates the product for one scraped material (or links the workspace's product with the same
-- sku), marks the material imported and counts it on the session: one transaction, so a failure
-- leaves nothing half-written and the caller may simply retry. p_attempts: the attempts this
-- import took, this one included (failed ones left no trace to count).
create function public.scraping_create_product(p_material uuid, p_attempts integer) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  m public.scraped_materials_temp;
  s public.scraping_sessions;
  pid uuid;
begin
  select * into m from public.scraped_materials_temp where id = p_material for update;
  if not found then
    raise exception 'scraped material % not found', p_material using errcode = 'P0002';
  end if;
  if m.status = 'imported' and m.product_id is not null then
    return m.product_id;
  end if;
  select * into s from public.scraping_sessions where id = m.session_id;
  if m.sku is not null then
    select id into pid from public.products where workspace_id = m.workspace_id and sku = m.sku;
  end if;
  if pid is null then
    insert into public.products (workspace_id, name, description, sku, category, metadata, status, created_by)
    values (
      m.workspace_id, m.name, m.description, m.sku, s.category,
      jsonb_strip_nulls(jsonb_build_object(
        'source', 'web_scraping', 'scraping_session_id', m.session_id, 'source_url', m.source_url,
        'extraction', m.source, 'brand', m.brand, 'price', m.price::text, 'currency', m.currency,
        'image', m.data ->> 'image', 'availability', m.data ->> 'availability'
      )),
      'draft', s.created_by
    )
    returning id into pid;
    update public.scraping_sessions set products_created = products_created + 1 where id = m.session_id;
  end if;
  update public.scraped_materials_temp
     set status = 'imported', product_id = pid, import_attempts = import_attempts + greatest(p_attempts, 1), error = null
   where id = p_material;
  return pid;
end $$;

-- A material whose product could not be created after every retry.
create function public.scraping_material_failed(p_material uuid, p_attempts integer, p_error text) returns void
language sql security definer set search_path = '' as $$
  update public.scraped_materials_temp
     set status = 'failed', import_attempts = import_attempts + p_attempts, error = left(p_error, 2000)
   where id = p_material and status = 'pending';
$$;

-- Ends a run: completed when the runner holds the session and no page is left to do; returns
-- the session's status either way (running: pages remain; paused/stopped: someone moved it).
create function public.scraping_finish_session(p_session uuid, p_worker text, p_now timestamptz)
returns text
language plpgsql security definer set search_path = '' as $$
declare
  st text;
begin
  update public.scraping_sessions
     set status = 'completed', completed_at = p_now, worker_id = null
   where id = p_session and status = 'running' and worker_id = p_worker
     and not exists (
       select 1 from public.scraping_pages where session_id = p_session and status in ('pending', 'processing')
     );
  select status into st from public.scraping_sessions where id = p_session;
  return st;
end $$;

-- A run that could not go on (a database error, not a page's failure): the session fails.
create function public.scraping_fail_session(p_session uuid, p_worker text, p_error text, p_now timestamptz)
returns void
language sql security definer set search_path = '' as $$
  update public.scraping_sessions
     set status = 'failed', error = left(p_error, 2000), completed_at = p_now, worker_id = null
   where id = p_session and status = 'running' and worker_id = p_worker;
$$;

revoke execute on function
  public.scraping_session_action(uuid, text, timestamptz),
  public.scraping_claim_session(uuid, text, timestamptz, timestamptz),
  public.scraping_orphaned_sessions(timestamptz, integer),
  public.scraping_claim_pages(uuid, text, integer, timestamptz, timestamptz),
  public.scraping_complete_page(uuid, text, boolean, jsonb, jsonb, timestamptz),
  public.scraping_create_product(uuid, integer),
  public.scraping_material_failed(uuid, integer, text),
  public.scraping_finish_session(uuid, text, timestamptz),
  public.scraping_fail_session(uuid, text, text, timestamptz)
  from public, anon, authenticated;
grant execute on function
  public.scraping_session_action(uuid, text, timestamptz),
  public.scraping_claim_session(uuid, text, timestamptz, timestamptz),
  public.scraping_orphaned_sessions(timestamptz, integer),
  public.scraping_claim_pages(uuid, text, integer, timestamptz, timestamptz),
  public.scraping_complete_page(uuid, text, boolean, jsonb, jsonb, timestamptz),
  public.scraping_create_product(uuid, integer),
  public.scraping_material_failed(uuid, integer, text),
  public.scraping_finish_session(uuid, text, timestamptz),
  public.scraping_fail_session(uuid, text, text, timestamptz)
  to service_role;

-- The immutable transition check and the guard trigger function carry no privilege; keep them
-- off the public RPC surface all the same.
revoke execute on function public.scraping_session_transition_allowed(text, text), public.scraping_sessions_guard()
  from public, anon, authenticated;

-- scrape-session-manager-tick every minute: resumes running sessions whose runner died (a
-- platform restart), through pg_net with the service-role key from Vault, as the flow scheduler.
select cron.schedule('scrape-session-manager-tick', '* * * * *',
  $$ select public.call_edge_function('/functions/v1/scrape-session-manager/tick', jsonb_build_object('time', now())) $$);
