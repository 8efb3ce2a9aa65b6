-- flow-scheduler-cron claims and enqueues; a worker runs (issue 35). The scheduler ran every
-- claimed cron flow inside the pg_cron-fired request: 500 due flows at ~40 ms each is 20 s of one
-- request, and a busy minute (or a few flows with 30 s delay nodes) goes past the Edge Runtime's
-- 150 s answer and 400 s life, the rest of the minute's runs left `running` until the stale
-- sweep failed them.
--
-- Now flow_claim_due inserts the due slots' run rows (as before: status running, one per flow
-- per slot) AND puts one message {run_id} per run on the pgmq queue `flow_runs`, in the same
-- statement: a run is on the queue exactly when it was claimed. The worker
-- (flow-scheduler-cron/worker: fired by the pg_cron job below every minute and kicked through
-- pg_net right after a tick that claimed something) reads a few messages at a time with a
-- visibility timeout (the lease; read_ct tells leases apart), runs them for at most a slice
-- (packages/shared/flows/worker.ts), and lets the messages it did not start go at once.
--
-- Each run at most once: flow_run_begin deletes the message under the reader's lease AND
-- restarts the run's clock (started_at) in one transaction, before the first node. A message
-- read again after its lease ran out (its worker died or was slow) has a newer read_ct: the old
-- reader's begin finds nothing and skips it; the new reader runs it. A worker that dies after
-- begin leaves the run `running`: the stale sweep fails it after 15 minutes, never replayed
-- (its actions send SMS and email), as before. A run that waited on the queue past those 15
-- minutes (no worker for that long) is closed the same way and its message skipped.
--
-- Who may do what: only the service path (the scheduler and its worker, with the service role)
-- touches the queue and calls these functions; clients have no grant on schema pgmq
-- (20260221011100) nor on the functions below.

select pgmq.create('flow_runs');

-- Was: the insert alone (20260205000100). Now the insert and one message per claimed run.
create or replace function public.flow_claim_due(p_now timestamptz default now(), p_limit integer default 500)
returns table (run_id uuid, flow_id uuid, workspace_id uuid, scheduled_for timestamptz)
language sql security definer set search_path = ''
as $$
  with claimed as (
    insert into public.flow_runs (flow_id, workspace_id, trigger_type, scheduled_for, trigger_data)
    select f.id, f.workspace_id, 'cron', f.next_run_at,
           jsonb_build_object('scheduled_for', f.next_run_at)
      from public.flows f
     where f.enabled and f.trigger_type = 'cron' and f.next_run_at <= p_now
     order by f.next_run_at, f.id
     limit p_limit
    on conflict (flow_id, scheduled_for) do nothing
    returning flow_runs.id, flow_runs.flow_id, flow_runs.workspace_id, flow_runs.scheduled_for
  ), queued as (
    select c.*, pgmq.send('flow_runs', jsonb_build_object('run_id', c.id)) as msg_id from claimed c
  )
  select q.id, q.flow_id, q.workspace_id, q.scheduled_for from queued q
$$;
revoke execute on function public.flow_claim_due(timestamptz, integer) from public, anon, authenticated;
grant execute on function public.flow_claim_due(timestamptz, integer) to service_role;

-- The next p_qty runs to work on, leased for p_vt seconds (read_ct is the lease).
create function public.flow_run_queue_read(p_vt integer, p_qty integer)
returns table (msg_id bigint, read_ct integer, run_id uuid)
language sql set search_path = '' as $$
  select r.msg_id, r.read_ct, (r.message ->> 'run_id')::uuid from pgmq.read('flow_runs', p_vt, p_qty) r
$$;

-- Takes the run off the queue under the lease (msg_id, read_ct) and restarts its clock; true
-- when the caller is to run it now: false when a newer read owns the message, it is gone, or the
-- run is no longer `running` (closed by the stale sweep).
create function public.flow_run_begin(p_msg_id bigint, p_read_ct integer, p_run_id uuid) returns boolean
language plpgsql set search_path = '' as $$
begin
  delete from pgmq.q_flow_runs where msg_id = p_msg_id and read_ct = p_read_ct;
  if not found then
    return false;
  end if;
  update public.flow_runs set started_at = now() where id = p_run_id and status = 'running';
  return found;
end
$$;

-- Lets leased messages the worker did not begin go at once (only under the caller's lease).
create function public.flow_run_queue_release(p_msg_ids bigint[], p_read_cts integer[]) returns integer
language sql set search_path = '' as $$
  with released as (
    update pgmq.q_flow_runs q set vt = now()
      from unnest(p_msg_ids, p_read_cts) as m(msg_id, read_ct)
     where q.msg_id = m.msg_id and q.read_ct = m.read_ct
    returning 1
  )
  select count(*)::integer from released
$$;

revoke execute on function public.flow_run_queue_read(integer, integer),
  public.flow_run_begin(bigint, integer, uuid), public.flow_run_queue_release(bigint[], integer[])
  from public, anon, authenticated;
grant execute on function public.flow_run_queue_read(integer, integer),
  public.flow_run_begin(bigint, integer, uuid), public.flow_run_queue_release(bigint[], integer[])
  to service_role;

-- The worker every minute (the tick kicks it too), through pg_net with the service-role key from
-- Vault. It stops taking runs after 25 s, so with a run's 120 s budget it answers within 150 s.
select cron.schedule('flow-run-worker', '* * * * *',
  $$ select public.call_edge_function('/functions/v1/flow-scheduler-cron/worker', jsonb_build_object('time', now()), 150000) $$);
