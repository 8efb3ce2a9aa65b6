-- The background-agent scheduler claims and enqueues; a worker runs (issue 35). The tick
-- (background-agent-runner/cron) ran every claimed agent inside the pg_cron-fired request: a tick
-- ran 200 agents in 15-21 s locally, and a busy minute (model calls, long scans) goes past the
-- Edge Runtime's 150 s answer and 400 s life, the cut-off runs left `running` until the stale
-- sweep failed them.
--
-- Now agent_claim_due inserts the due slots' pending runs (as before) AND puts one message
-- {run_id} per run on the pgmq queue `agent_runs`, in the same statement; pending runs the tick
-- resumes (queued by users and never started, chained runs whose worker died) go on it through
-- agent_runs_enqueue. The worker (background-agent-runner/worker: fired by the pg_cron job below
-- every minute and kicked through pg_net after a tick that queued something) reads a few
-- messages at a time with a visibility timeout (the lease; read_ct tells leases apart), runs them
-- for at most a slice (packages/shared/background_agents/worker.ts) and lets the messages it did
-- not start go at once.
--
-- Each run at most once: agent_run_begin deletes the message under the reader's lease AND moves
-- the run pending -> running in one transaction, before anything runs. A message read again
-- after its lease ran out has a newer read_ct: the old reader's begin finds nothing; a run that
-- is no longer pending (started by a user's {run_id}, by an earlier message) is not started
-- again. A worker that dies after begin leaves the run `running`: the stale sweep fails it and
-- refunds its credits, never replayed, as before.
--
-- Who may do what: only the service path (the scheduler and its worker, with the service role)
-- touches the queue and calls these functions; clients have no grant on schema pgmq
-- (20260221011100) nor on the functions below.

select pgmq.create('agent_runs');

-- Was: the insert alone (20260212000100). Now the insert and one message per claimed run.
create or replace function public.agent_claim_due(p_now timestamptz default now(), p_limit integer default 200)
returns table (run_id uuid, agent_id uuid, workspace_id uuid, scheduled_for timestamptz)
language sql security definer set search_path = ''
as $$
  with claimed as (
    insert into public.agent_runs (agent_id, workspace_id, agent_type, status, triggered_by, scheduled_for,
                                   input_data)
    select a.id, a.workspace_id, a.agent_type, 'pending', 'cron', a.next_run_at, '{}'::jsonb
      from public.background_agents a
     where a.enabled and a.schedule is not null and a.next_run_at <= p_now
     order by a.next_run_at, a.id
     limit p_limit
    on conflict (agent_id, scheduled_for) do nothing
    returning agent_runs.id, agent_runs.agent_id, agent_runs.workspace_id, agent_runs.scheduled_for
  ), queued as (
    select c.*, pgmq.send('agent_runs', jsonb_build_object('run_id', c.id)) as msg_id from claimed c
  )
  select q.id, q.agent_id, q.workspace_id, q.scheduled_for from queued q
$$;
revoke execute on function public.agent_claim_due(timestamptz, integer) from public, anon, authenticated;
grant execute on function public.agent_claim_due(timestamptz, integer) to service_role;

-- Puts the pending runs among p_run_ids that have no message yet on the queue; returns how many.
-- (Two overlapping calls may both send one: agent_run_begin starts a run once whatever.)
create function public.agent_runs_enqueue(p_run_ids uuid[]) returns integer
language sql set search_path = '' as $$
  with todo as (
    select r.id from public.agent_runs r
     where r.id = any(p_run_ids) and r.status = 'pending'
       and not exists (select 1 from pgmq.q_agent_runs q where q.message ->> 'run_id' = r.id::text)
  ), sent as (
    select pgmq.send('agent_runs', jsonb_build_object('run_id', t.id)) as msg_id from todo t
  )
  select count(*)::integer from sent
$$;

-- The next p_qty runs to work on, leased for p_vt seconds (read_ct is the lease).
create function public.agent_run_queue_read(p_vt integer, p_qty integer)
returns table (msg_id bigint, read_ct integer, run_id uuid)
language sql set search_path = '' as $$
  select r.msg_id, r.read_ct, (r.message ->> 'run_id')::uuid from pgmq.read('agent_runs', p_vt, p_qty) r
$$;

-- Takes the run off the queue under the lease (msg_id, read_ct) and claims it (pending ->
-- running); true when the caller is to run it now: false when a newer read owns the message, it
-- is gone, or the run is not pending any more.
create function public.agent_run_begin(p_msg_id bigint, p_read_ct integer, p_run_id uuid) returns boolean
language plpgsql set search_path = '' as $$
begin
  delete from pgmq.q_agent_runs where msg_id = p_msg_id and read_ct = p_read_ct;
  if not found then
    return false;
  end if;
  update public.agent_runs set status = 'running', started_at = now(), heartbeat_at = now()
   where id = p_run_id and status = 'pending';
  return found;
end
$$;

-- Lets leased messages the worker did not begin go at once (only under the caller's lease).
create function public.agent_run_queue_release(p_msg_ids bigint[], p_read_cts integer[]) returns integer
language sql set search_path = '' as $$
  with released as (
    update pgmq.q_agent_runs q set vt = now()
      from unnest(p_msg_ids, p_read_cts) as m(msg_id, read_ct)
     where q.msg_id = m.msg_id and q.read_ct = m.read_ct
    returning 1
  )
  select count(*)::integer from released
$$;

revoke execute on function public.agent_runs_enqueue(uuid[]), public.agent_run_queue_read(integer, integer),
  public.agent_run_begin(bigint, integer, uuid), public.agent_run_queue_release(bigint[], integer[])
  from public, anon, authenticated;
grant execute on function public.agent_runs_enqueue(uuid[]), public.agent_run_queue_read(integer, integer),
  public.agent_run_begin(bigint, integer, uuid), public.agent_run_queue_release(bigint[], integer[])
  to service_role;

-- The worker every minute (the tick kicks it too), through pg_net with the service-role key from
-- Vault. It stops taking runs after 60 s; its answer comes well within the timeout.
select cron.schedule('agent-run-worker', '* * * * *',
  $$ select public.call_edge_function('/functions/v1/background-agent-runner/worker', jsonb_build_object('time', now()), 150000) $$);
