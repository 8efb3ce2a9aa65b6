-- The flow engine's records (spec "Flow engine", flow records): flows (a graph of nodes and edges,
-- its trigger and schedule) and flow_runs (one row per execution, per-node step records in
-- `steps`).
--
-- Who may do what:
--   members of the workspace (any role) read its flows and their runs;
--   owners and admins enable, disable, rename and delete flows here; the graph, the trigger and
--   the webhook secret are written only through flow-engine `save-flow`, which validates the
--   graph first (no invalid flow can be stored: clients hold no insert right and no update right
--   on those columns);
--   runs are written only by the service path (flow-engine, flow-webhook, flow-scheduler-cron).
-- The webhook secret is never readable by clients (column privileges).

create table public.flows (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  description text,
  graph jsonb not null default '{"nodes": [], "edges": []}'::jsonb,
  trigger_type text not null check (trigger_type in ('manual', 'cron', 'webhook', 'event')),
  -- cron: {cron, timezone}; webhook: {require_signature}; event: {event_type}
  trigger_config jsonb not null default '{}'::jsonb,
  event_type text,
  enabled boolean not null default false,
  webhook_secret text,
  last_run_at timestamptz,
  next_run_at timestamptz,
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((trigger_type = 'event') = (event_type is not null))
);
create index flows_workspace_idx on public.flows (workspace_id, created_at desc);
-- The scheduler's scan: enabled cron flows by due time.
create index flows_due_idx on public.flows (next_run_at) where enabled and trigger_type = 'cron';
create index flows_event_idx on public.flows (event_type) where enabled and trigger_type = 'event';

create table public.flow_runs (
  id uuid primary key default gen_random_uuid(),
  flow_id uuid not null references public.flows (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  status text not null default 'running' check (status in ('running', 'completed', 'failed')),
  trigger_type text not null check (trigger_type in ('manual', 'cron', 'webhook', 'event')),
  trigger_data jsonb not null default '{}'::jsonb,
  is_test_run boolean not null default false,
  -- The cron slot this run is for: one run per flow per slot, whoever claims it.
  scheduled_for timestamptz,
  initiated_by uuid references auth.users (id) on delete set null,
  -- [{node_id, node_type, status, started_at, duration_ms, branch, resolved_config, output,
  --   error, unresolved}], in execution order.
  steps jsonb not null default '[]'::jsonb,
  error_message text,
  error_node_id text,
  started_at timestamptz not null default now(),
  completed_at timestamptz,
  duration_ms integer,
  unique (flow_id, scheduled_for)
);
create index flow_runs_flow_idx on public.flow_runs (flow_id, started_at desc);
create index flow_runs_workspace_idx on public.flow_runs (workspace_id, started_at desc);

alter table public.flows enable row level security;
alter table public.flow_runs enable row level security;

grant select (id, workspace_id, name, description, graph, trigger_type, trigger_config, event_type, enabled,
  last_run_at, next_run_at, created_by, created_at, updated_at) on public.flows to authenticated;
grant update (name, description, enabled) on public.flows to authenticated;
grant delete on public.flows to authenticated;
grant select on public.flow_runs to authenticated;
grant all on public.flows, public.flow_runs to service_role;

-- Any member of the workspace reads its flows (never the webhook secret: no column grant).
create policy flows_read on public.flows for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners and admins rename, enable and disable flows (the granted columns only).
create policy flows_manage on public.flows for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin']));
-- Owners and admins delete flows (their runs go with them).
create policy flows_delete on public.flows for delete to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin']));
-- Any member of the workspace reads its runs; only the service path writes them.
create policy flow_runs_read on public.flow_runs for select to authenticated
  using (public.is_workspace_member(workspace_id));

-- The scheduler's claim, in one statement: a run row for every enabled cron flow whose slot is
-- due. unique (flow_id, scheduled_for) with ON CONFLICT DO NOTHING makes two overlapping
-- scheduler calls create one run per slot: the second call's insert finds the row and returns
-- nothing for it. The caller then advances next_run_at from the slot (flow_advance_schedule).
create function public.flow_claim_due(p_now timestamptz default now(), p_limit integer default 500)
returns table (run_id uuid, flow_id uuid, workspace_id uuid, scheduled_for timestamptz)
language sql security definer set search_path = ''
as $$
  insert into public.flow_runs (flow_id, workspace_id, trigger_type, scheduled_for, trigger_data)
  select f.id, f.workspace_id, 'cron', f.next_run_at,
         jsonb_build_object('scheduled_for', f.next_run_at)
    from public.flows f
   where f.enabled and f.trigger_type = 'cron' and f.next_run_at <= p_now
   order by f.next_run_at, f.id
   limit p_limit
  on conflict (flow_id, scheduled_for) do nothing
  returning flow_runs.id, flow_runs.flow_id, flow_runs.workspace_id, flow_runs.scheduled_for
$$;
revoke execute on function public.flow_claim_due(timestamptz, integer) from public, anon, authenticated;
grant execute on function public.flow_claim_due(timestamptz, integer) to service_role;

-- Moves a flow past a claimed slot: only from that slot (a later claim's advance wins), so a
-- late writer cannot move the schedule backwards.
create function public.flow_advance_schedule(p_flow_id uuid, p_slot timestamptz, p_next timestamptz)
returns void
language sql security definer set search_path = ''
as $$
  update public.flows set next_run_at = p_next, last_run_at = now()
   where id = p_flow_id and next_run_at = p_slot
$$;
revoke execute on function public.flow_advance_schedule(uuid, timestamptz, timestamptz)
  from public, anon, authenticated;
grant execute on function public.flow_advance_schedule(uuid, timestamptz, timestamptz) to service_role;
