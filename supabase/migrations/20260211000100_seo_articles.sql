-- SEO article pipeline (spec "SEO", States and transitions seo_articles, Limits "SEO pipeline").
-- One row per pipeline run: created at once by seo-pipeline, then moved through the five stages
-- Research, Plan, Write, Analyze, Finalize by one worker at a time. Each finished stage leaves
-- its output as a checkpoint column (research, plan, draft, analysis), so a run whose worker
-- died (stale heartbeat) is resumed from its last finished stage by the sweeper, or failed
-- cleanly after max attempts. The article fields are written only by seo_article_finalize, in
-- the same statement that sets `completed`: a failed run never holds half an article.
--
-- Writes come only from the service role through the functions below, each guarded by the
-- worker id that claimed the row, so a worker that lost its claim (declared dead, then woke up)
-- cannot overwrite the run another worker resumed.

create table public.seo_articles (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  -- Optional: an article made for a workspace is readable by its members.
  workspace_id uuid references public.workspaces (id) on delete cascade,
  -- The request.
  topic text not null check (length(topic) between 1 and 500),
  target_keyword text not null check (length(target_keyword) between 1 and 200),
  language_code text not null default 'en',
  location_code integer not null default 2840,
  content_brief jsonb not null default '{}'::jsonb,
  additional_instructions text,
  auto_fix boolean not null default true,
  max_fix_iterations integer not null default 3 check (max_fix_iterations between 0 and 10),
  skip_research boolean not null default false,
  -- Where the run is.
  status text not null default 'researching'
    check (status in ('researching', 'planning', 'writing', 'analyzing', 'completed', 'failed')),
  progress_percentage integer not null default 0 check (progress_percentage between 0 and 100),
  current_stage text not null default 'research'
    check (current_stage in ('research', 'plan', 'write', 'analyze', 'finalize')),
  -- Checkpoints: each finished stage's output, the next stage's input.
  research jsonb,
  plan jsonb,
  draft jsonb,
  analysis jsonb,
  fix_iterations integer not null default 0 check (fix_iterations >= 0),
  -- The article (written once, by seo_article_finalize).
  title text,
  content_markdown text,
  content_html text,
  word_count integer,
  meta_title text,
  meta_description text,
  slug text,
  schema_markup jsonb,
  faq_schema jsonb,
  content_score numeric(5, 2),
  avg_competitor_score numeric(5, 2),
  -- Failure and restart handling.
  error text,
  error_stage text,
  attempts integer not null default 0 check (attempts >= 0),
  worker_id text,
  heartbeat_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  check ((status = 'completed') = (content_markdown is not null and completed_at is not null))
);

create index seo_articles_user_idx on public.seo_articles (user_id, created_at desc);
create index seo_articles_workspace_idx on public.seo_articles (workspace_id, created_at desc)
  where workspace_id is not null;
-- The sweeper's scan: running rows by heartbeat.
create index seo_articles_running_idx on public.seo_articles (heartbeat_at)
  where status in ('researching', 'planning', 'writing', 'analyzing');

-- Status moves only forward along researching -> planning -> writing -> analyzing -> completed,
-- or to failed from a running state; progress never decreases; finished rows are final.
create function public.seo_articles_guard() returns trigger
language plpgsql set search_path = '' as $$
declare
  rank_old integer := array_position(array['researching', 'planning', 'writing', 'analyzing', 'completed'], old.status);
  rank_new integer := array_position(array['researching', 'planning', 'writing', 'analyzing', 'completed'], new.status);
begin
  if old.status in ('completed', 'failed') and new.status is distinct from old.status then
    raise exception 'seo_articles: a % article is final', old.status using errcode = '23514';
  end if;
  if new.status <> 'failed' and rank_new < rank_old then
    raise exception 'seo_articles.status may not go back (% -> %)', old.status, new.status
      using errcode = '23514';
  end if;
  if new.progress_percentage < old.progress_percentage then
    raise exception 'seo_articles.progress_percentage may not decrease (% -> %)',
      old.progress_percentage, new.progress_percentage using errcode = '23514';
  end if;
  new.updated_at := now();
  return new;
end $$;

create trigger seo_articles_guard before update on public.seo_articles
  for each row execute function public.seo_articles_guard();

alter table public.seo_articles enable row level security;
grant select, delete on public.seo_articles to authenticated;
grant all on public.seo_articles to service_role;

-- The author reads their own articles (poll by id: /rest/v1/seo_articles?id=eq.<article_id>).
create policy seo_articles_read_own on public.seo_articles for select to authenticated
  using (user_id = (select auth.uid()));
-- Members of the workspace an article was made for read it too.
create policy seo_articles_read_workspace on public.seo_articles for select to authenticated
  using (workspace_id is not null and public.is_workspace_member(workspace_id));
-- The author may delete their own finished articles (a running one belongs to its worker).
create policy seo_articles_delete_own on public.seo_articles for delete to authenticated
  using (user_id = (select auth.uid()) and status in ('completed', 'failed'));
-- No insert or update policy: rows are written by the pipeline (service role) only.

-- The status a stage runs under (Finalize runs while the article is still `analyzing`).
create function public.seo_stage_status(p_stage text) returns text
language sql immutable set search_path = '' as $$
  select case p_stage
    when 'research' then 'researching'
    when 'plan' then 'planning'
    when 'write' then 'writing'
    else 'analyzing' end
$$;

-- Takes a running article for one worker: an unclaimed row (just created), or one whose worker's
-- heartbeat is older than p_stale_before (a worker that died). Counts the attempt. Returns
-- nothing when another live worker holds it, so two workers never run one article.
create function public.seo_article_claim(p_id uuid, p_worker text, p_stale_before timestamptz)
returns setof public.seo_articles
language sql security definer set search_path = '' as $$
  update public.seo_articles
     set worker_id = p_worker, attempts = attempts + 1, heartbeat_at = now()
   where id = p_id
     and status in ('researching', 'planning', 'writing', 'analyzing')
     and (worker_id is null or heartbeat_at is null or heartbeat_at < p_stale_before)
  returning *;
$$;

-- The worker is alive. False when it no longer holds the article (it must stop).
create function public.seo_article_heartbeat(p_id uuid, p_worker text) returns boolean
language sql security definer set search_path = '' as $$
  with u as (
    update public.seo_articles set heartbeat_at = now()
     where id = p_id and worker_id = p_worker and status in ('researching', 'planning', 'writing', 'analyzing')
    returning 1
  )
  select exists (select 1 from u);
$$;

-- A stage starts: its status, current_stage and progress raised to the stage's start.
create function public.seo_article_stage(p_id uuid, p_worker text, p_stage text, p_progress integer)
returns boolean
language sql security definer set search_path = '' as $$
  with u as (
    update public.seo_articles
       set status = public.seo_stage_status(p_stage), current_stage = p_stage,
           progress_percentage = greatest(progress_percentage, p_progress), heartbeat_at = now()
     where id = p_id and worker_id = p_worker and status in ('researching', 'planning', 'writing', 'analyzing')
    returning 1
  )
  select exists (select 1 from u);
$$;

-- A stage finished: its output stored as the checkpoint the next stage reads, progress raised to
-- the stage's end, in one statement. p_fix_iterations (analyze) records the fixes made.
create function public.seo_article_checkpoint(
  p_id uuid, p_worker text, p_stage text, p_output jsonb, p_progress integer, p_fix_iterations integer default null
) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  if p_stage not in ('research', 'plan', 'write', 'analyze') then
    raise exception 'seo_article_checkpoint: unknown stage %', p_stage using errcode = '22023';
  end if;
  update public.seo_articles
     set research = case when p_stage = 'research' then p_output else research end,
         plan = case when p_stage = 'plan' then p_output else plan end,
         draft = case when p_stage = 'write' then p_output else draft end,
         analysis = case when p_stage = 'analyze' then p_output else analysis end,
         fix_iterations = coalesce(p_fix_iterations, fix_iterations),
         progress_percentage = greatest(progress_percentage, p_progress), heartbeat_at = now()
   where id = p_id and worker_id = p_worker and status in ('researching', 'planning', 'writing', 'analyzing');
  return found;
end $$;

-- Raises progress inside a stage (e.g. between fix iterations).
create function public.seo_article_progress(p_id uuid, p_worker text, p_progress integer) returns boolean
language sql security definer set search_path = '' as $$
  with u as (
    update public.seo_articles
       set progress_percentage = greatest(progress_percentage, p_progress), heartbeat_at = now()
     where id = p_id and worker_id = p_worker and status in ('researching', 'planning', 'writing', 'analyzing')
    returning 1
  )
  select exists (select 1 from u);
$$;

-- Finalize: every article field, `completed`, progress 100 and the worker released, in one
-- statement. p_article carries the fields by their column names.
create function public.seo_article_finalize(p_id uuid, p_worker text, p_article jsonb)
returns setof public.seo_articles
language sql security definer set search_path = '' as $$
  update public.seo_articles
     set title = p_article ->> 'title',
         content_markdown = p_article ->> 'content_markdown',
         content_html = p_article ->> 'content_html',
         word_count = (p_article ->> 'word_count')::integer,
         meta_title = p_article ->> 'meta_title',
         meta_description = p_article ->> 'meta_description',
         slug = p_article ->> 'slug',
         schema_markup = p_article -> 'schema_markup',
         faq_schema = p_article -> 'faq_schema',
         content_score = (p_article ->> 'content_score')::numeric,
         avg_competitor_score = (p_article ->> 'avg_competitor_score')::numeric,
         status = 'completed', current_stage = 'finalize', progress_percentage = 100,
         completed_at = now(), worker_id = null, heartbeat_at = now(), error = null
   where id = p_id and worker_id = p_worker and status = 'analyzing'
  returning *;
$$;

-- Fails a running article: error and stage recorded, the unfinished draft dropped (research and
-- plan, finished stages, stay readable), the worker released. p_worker null is the sweeper
-- failing a row it has claimed under its own id; a worker id must match.
create function public.seo_article_fail(p_id uuid, p_worker text, p_error text)
returns boolean
language sql security definer set search_path = '' as $$
  with u as (
    update public.seo_articles
       set status = 'failed', error = left(p_error, 2000), error_stage = current_stage,
           draft = null, worker_id = null, completed_at = null
     where id = p_id and worker_id = p_worker and status in ('researching', 'planning', 'writing', 'analyzing')
    returning 1
  )
  select exists (select 1 from u);
$$;

revoke execute on function public.seo_article_claim(uuid, text, timestamptz),
  public.seo_article_heartbeat(uuid, text),
  public.seo_article_stage(uuid, text, text, integer),
  public.seo_article_checkpoint(uuid, text, text, jsonb, integer, integer),
  public.seo_article_progress(uuid, text, integer),
  public.seo_article_finalize(uuid, text, jsonb),
  public.seo_article_fail(uuid, text, text)
  from public, anon, authenticated;
grant execute on function public.seo_article_claim(uuid, text, timestamptz),
  public.seo_article_heartbeat(uuid, text),
  public.seo_article_stage(uuid, text, text, integer),
  public.seo_article_checkpoint(uuid, text, text, jsonb, integer, integer),
  public.seo_article_progress(uuid, text, integer),
  public.seo_article_finalize(uuid, text, jsonb),
  public.seo_article_fail(uuid, text, text)
  to service_role;
revoke execute on function public.seo_stage_status(text) from public, anon, authenticated;
grant execute on function public.seo_stage_status(text) to service_role;

-- Progress over Realtime as well as by polling: subscribers get the row changes their RLS lets
-- them read (the author, and workspace members for a workspace article).
alter publication supabase_realtime add table public.seo_articles;
