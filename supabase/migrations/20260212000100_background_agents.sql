-- Background agents (spec "Background agents"): agents of a workspace built from the catalog
-- (packages/shared/agents/catalog.ts), their runs and each run's ordered log.
--
--   background_agents  one configured agent: type from the catalog, config, enabled, an optional
--                      cron schedule (five fields, a timezone) with next_run_at, and chain_to:
--                      the agents a completed run triggers (same workspace, no cycles).
--   agent_runs         one execution: status pending -> running | processing -> completed |
--                      failed; triggered_by cron | event | manual | chain | api; input_data,
--                      output, error and the failed step; parent_run_id and chain_depth for chains;
--                      credits charged (the ledger's debit) for agents that cost credits.
--   agent_run_logs     what a run did, in order (seq), as it happened; streamed over Realtime.
--
-- Who may do what:
--   members (any role) read the agents, runs and logs of their workspaces;
--   owners and admins create, configure, enable, disable and delete agents (column grants: they
--   never write next_run_at, last_run_at or schedule_error: the scheduler does);
--   owners, admins and members queue a run (insert a pending agent_runs row: agent_id,
--   input_data, triggered_by manual|api|event) to start it with background-agent-runner
--   {run_id}, e.g. after subscribing to its logs; everything else on runs and logs is written by
--   the service path (background-agent-runner, the AI backend, the scheduler).

create table public.background_agents (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- One of the catalog's ids (tests/agents keep this list and the catalog in step).
  agent_type text not null check (agent_type in (
    'stale_price_documents', 'quote_follow_up', 'duplicate_scan', 'catalog_description_writer')),
  name text not null check (length(trim(name)) between 1 and 200),
  description text check (description is null or length(description) <= 2000),
  -- Defaults for the agent type's input; a run's input_data overrides them key by key.
  config jsonb not null default '{}'::jsonb check (jsonb_typeof(config) = 'object'),
  enabled boolean not null default true,
  -- Five-field cron expression (minute hour day month weekday) in `timezone`; null: not scheduled.
  schedule text check (schedule is null or schedule ~ '^\s*\S+(\s+\S+){4}\s*$'),
  timezone text not null default 'UTC' check (length(timezone) between 1 and 64),
  -- The next slot; null until the scheduler arms it (first tick after the schedule is set).
  next_run_at timestamptz,
  last_run_at timestamptz,
  -- Why the schedule cannot be armed (bad cron or timezone), set by the scheduler.
  schedule_error text,
  chain_to uuid[] not null default '{}' check (cardinality(chain_to) <= 10),
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (id, workspace_id)
);
create index background_agents_workspace_idx on public.background_agents (workspace_id, created_at desc);
-- The scheduler's scans: due agents, and agents whose schedule is not armed yet.
create index background_agents_due_idx on public.background_agents (next_run_at)
  where enabled and schedule is not null;

create table public.agent_runs (
  id uuid primary key default gen_random_uuid(),
  agent_id uuid not null,
  workspace_id uuid not null,
  agent_type text not null,
  status text not null default 'pending'
    check (status in ('pending', 'running', 'processing', 'completed', 'failed')),
  triggered_by text not null default 'manual' check (triggered_by in ('cron', 'event', 'manual', 'chain', 'api')),
  -- The user who started it (null for cron and for runs the service role started).
  triggered_by_user uuid references auth.users (id) on delete set null,
  input_data jsonb not null default '{}'::jsonb check (jsonb_typeof(input_data) = 'object'),
  output jsonb,
  error text,
  failed_step text,
  parent_run_id uuid references public.agent_runs (id) on delete set null,
  chain_depth integer not null default 0 check (chain_depth between 0 and 10),
  -- The cron slot this run is for: one run per agent per slot, whoever claims it.
  scheduled_for timestamptz,
  credits_charged numeric(14, 4) not null default 0,
  -- The ledger's debit (credit_transactions.id) and whether it was refunded.
  charge_transaction_id uuid,
  credits_refunded boolean not null default false,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  -- Touched while a worker runs it; the scheduler fails runs whose heartbeat went stale.
  heartbeat_at timestamptz,
  completed_at timestamptz,
  duration_ms integer check (duration_ms is null or duration_ms >= 0),
  unique (agent_id, scheduled_for),
  foreign key (agent_id, workspace_id) references public.background_agents (id, workspace_id) on delete cascade
);
create index agent_runs_agent_idx on public.agent_runs (agent_id, created_at desc);
create index agent_runs_workspace_idx on public.agent_runs (workspace_id, created_at desc);
create index agent_runs_parent_idx on public.agent_runs (parent_run_id) where parent_run_id is not null;
create index agent_runs_open_idx on public.agent_runs (status, created_at)
  where status in ('pending', 'running', 'processing');

create table public.agent_run_logs (
  id bigint generated always as identity primary key,
  run_id uuid not null references public.agent_runs (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- 1, 2, 3 ... in the order the run wrote them.
  seq integer not null check (seq > 0),
  level text not null default 'info' check (level in ('debug', 'info', 'warn', 'error')),
  step text,
  message text not null,
  data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default clock_timestamp(),
  unique (run_id, seq)
);
create index agent_run_logs_workspace_idx on public.agent_run_logs (workspace_id);

create trigger background_agents_touch before update on public.background_agents
  for each row execute function public.touch_updated_at();

-- chain_to names other agents of the same workspace, and following chain_to from this agent
-- never comes back to it (the runner also bounds a chain's depth). A changed schedule, timezone
-- or enabled flag disarms the schedule: the scheduler re-arms it from the new settings.
create function public.background_agents_guard() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.id = any (new.chain_to) then
    raise exception 'chain_to must not name the agent itself' using errcode = '23514';
  end if;
  if exists (
    select 1 from unnest(new.chain_to) as t(id)
     where not exists (
       select 1 from public.background_agents a where a.id = t.id and a.workspace_id = new.workspace_id)
  ) then
    raise exception 'chain_to names an agent that is not in this workspace' using errcode = '23503';
  end if;
  if exists (
    with recursive reach(id, depth) as (
      select t.id, 1 from unnest(new.chain_to) as t(id)
      union
      select c.id, r.depth + 1
        from reach r join public.background_agents a on a.id = r.id
        cross join lateral unnest(a.chain_to) as c(id)
       where r.depth < 50 and a.id <> new.id
    )
    select 1 from reach where id = new.id
  ) then
    raise exception 'chain_to would form a cycle back to this agent' using errcode = '23514';
  end if;
  if tg_op = 'INSERT' or new.schedule is distinct from old.schedule
     or new.timezone is distinct from old.timezone or new.enabled is distinct from old.enabled then
    new.next_run_at := null;
    new.schedule_error := null;
  end if;
  return new;
end $$;
revoke execute on function public.background_agents_guard() from public, anon, authenticated;

create trigger background_agents_guard before insert or update on public.background_agents
  for each row execute function public.background_agents_guard();

-- A run queued by a user: the agent must be visible to them (this trigger runs as the caller, so
-- RLS hides other workspaces' agents); the row takes the agent's workspace and type, starts
-- pending, and names its user. The service path sets these itself.
create function public.agent_runs_fill() returns trigger
language plpgsql security invoker set search_path = '' as $$
declare
  v_agent record;
begin
  select a.workspace_id, a.agent_type into v_agent from public.background_agents a where a.id = new.agent_id;
  if not found then
    raise exception 'agent % not found', new.agent_id using errcode = '23503';
  end if;
  new.workspace_id := v_agent.workspace_id;
  new.agent_type := v_agent.agent_type;
  if (select auth.role()) = 'authenticated' then
    if new.triggered_by not in ('manual', 'api', 'event') then
      raise exception 'triggered_by % is reserved for the platform', new.triggered_by using errcode = '42501';
    end if;
    new.status := 'pending';
    new.triggered_by_user := (select auth.uid());
    new.parent_run_id := null;
    new.chain_depth := 0;
    new.scheduled_for := null;
  end if;
  return new;
end $$;
revoke execute on function public.agent_runs_fill() from public, anon, authenticated;

create trigger agent_runs_fill before insert on public.agent_runs
  for each row execute function public.agent_runs_fill();

-- ---- row-level security ----

alter table public.background_agents enable row level security;
alter table public.agent_runs enable row level security;
alter table public.agent_run_logs enable row level security;

grant select on public.background_agents, public.agent_runs, public.agent_run_logs to authenticated;
grant insert (workspace_id, agent_type, name, description, config, enabled, schedule, timezone, chain_to)
  on public.background_agents to authenticated;
grant update (name, description, config, enabled, schedule, timezone, chain_to)
  on public.background_agents to authenticated;
grant delete on public.background_agents to authenticated;
grant insert (agent_id, input_data, triggered_by) on public.agent_runs to authenticated;
grant all on public.background_agents, public.agent_runs, public.agent_run_logs to service_role;

-- Members of the workspace read its agents.
create policy background_agents_read on public.background_agents for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners and admins create agents in their workspace.
create policy background_agents_create on public.background_agents for insert to authenticated
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin']));
-- Owners and admins configure, enable and disable them (the granted columns only).
create policy background_agents_update on public.background_agents for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin']));
-- Owners and admins delete them (their runs and logs go with them).
create policy background_agents_delete on public.background_agents for delete to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin']));

-- Members of the workspace read its runs.
create policy agent_runs_read on public.agent_runs for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members queue a pending run of one of their workspace's agents (the
-- trigger above fills workspace, type, status and user before this check).
create policy agent_runs_queue on public.agent_runs for insert to authenticated
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));

-- Members of the workspace read its run logs; only the service path writes them.
create policy agent_run_logs_read on public.agent_run_logs for select to authenticated
  using (public.is_workspace_member(workspace_id));

-- ---- the scheduler's atomic steps (service role only) ----

-- A pending cron run for every enabled, armed agent whose slot is due, in one statement.
-- unique (agent_id, scheduled_for) with ON CONFLICT DO NOTHING makes overlapping scheduler calls
-- create one run per slot; the caller then advances next_run_at (agent_advance_schedule).
create function public.agent_claim_due(p_now timestamptz default now(), p_limit integer default 200)
returns table (run_id uuid, agent_id uuid, workspace_id uuid, scheduled_for timestamptz)
language sql security definer set search_path = ''
as $$
  insert into public.agent_runs (agent_id, workspace_id, agent_type, status, triggered_by, scheduled_for,
                                 input_data)
  select a.id, a.workspace_id, a.agent_type, 'pending', 'cron', a.next_run_at, '{}'::jsonb
    from public.background_agents a
   where a.enabled and a.schedule is not null and a.next_run_at <= p_now
   order by a.next_run_at, a.id
   limit p_limit
  on conflict (agent_id, scheduled_for) do nothing
  returning agent_runs.id, agent_runs.agent_id, agent_runs.workspace_id, agent_runs.scheduled_for
$$;
revoke execute on function public.agent_claim_due(timestamptz, integer) from public, anon, authenticated;
grant execute on function public.agent_claim_due(timestamptz, integer) to service_role;

-- Moves an agent past a claimed slot, only from that slot (a late writer cannot move the
-- schedule backwards).
create function public.agent_advance_schedule(p_agent_id uuid, p_slot timestamptz, p_next timestamptz)
returns void
language sql security definer set search_path = ''
as $$
  update public.background_agents set next_run_at = p_next, last_run_at = now()
   where id = p_agent_id and next_run_at = p_slot
$$;
revoke execute on function public.agent_advance_schedule(uuid, timestamptz, timestamptz)
  from public, anon, authenticated;
grant execute on function public.agent_advance_schedule(uuid, timestamptz, timestamptz) to service_role;

-- The catalog-description writer's save: every generated description in one statement (all or
-- nothing), only into products of the workspace that still have no description.
create function public.agent_save_product_descriptions(p_workspace_id uuid, p_items jsonb)
returns integer
language sql security definer set search_path = ''
as $$
  with saved as (
    update public.products p set description = x.description
      from jsonb_to_recordset(p_items) as x(id uuid, description text)
     where p.id = x.id and p.workspace_id = p_workspace_id
       and (p.description is null or trim(p.description) = '')
       and length(trim(x.description)) > 0
    returning p.id
  )
  select count(*)::integer from saved
$$;
revoke execute on function public.agent_save_product_descriptions(uuid, jsonb) from public, anon, authenticated;
grant execute on function public.agent_save_product_descriptions(uuid, jsonb) to service_role;

-- Runs and their logs stream to the frontend (postgres_changes; RLS still decides who gets what).
alter publication supabase_realtime add table public.agent_runs, public.agent_run_logs;
