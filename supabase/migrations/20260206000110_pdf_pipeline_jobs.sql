-- The PDF processing pipeline's job state on ai_jobs: the stage it is in, per-stage checkpoints
-- (the output each finished stage hands to the next), attempts and a heartbeat. Restart and
-- resume read the checkpoints, so a stage that finished is never run twice; a stage that was
-- killed half-way is re-run, and its writes are upserts on natural keys (no duplicate rows).
--
-- Progress is monotonic while a job runs: the trigger refuses to lower it unless the job is put
-- back to `pending` (a restart from scratch).

alter table public.ai_jobs
  add column current_stage text,
  add column attempts integer not null default 0 check (attempts >= 0),
  add column heartbeat_at timestamptz,
  add column document_id uuid,
  add column ai_config jsonb;

create function public.ai_jobs_progress_monotonic() returns trigger
language plpgsql set search_path = '' as $$
begin
  if new.progress < old.progress and new.status <> 'pending' then
    raise exception 'ai_jobs.progress may not decrease (% -> %)', old.progress, new.progress
      using errcode = '23514';
  end if;
  return new;
end $$;

create trigger ai_jobs_progress_monotonic before update of progress on public.ai_jobs
  for each row execute function public.ai_jobs_progress_monotonic();

create table public.ai_job_checkpoints (
  job_id uuid not null references public.ai_jobs (id) on delete cascade,
  stage text not null,
  -- The stage's filtered output: the next stage's input.
  output jsonb not null,
  progress integer not null check (progress between 0 and 100),
  created_at timestamptz not null default now(),
  primary key (job_id, stage)
);

alter table public.ai_job_checkpoints enable row level security;
grant select on public.ai_job_checkpoints to authenticated;
grant all on public.ai_job_checkpoints to service_role;

-- Whoever can read a job can read its checkpoints (the job's own read policy decides).
create policy ai_job_checkpoints_read on public.ai_job_checkpoints for select to authenticated
  using (exists (select 1 from public.ai_jobs j where j.id = job_id));

-- Takes a job for one run: pending, failed, cancelled or completed jobs (a stage re-run on a
-- finished job; the orchestrator does not re-run completed jobs), and processing jobs whose
-- heartbeat is older than p_stale_before (a runner that died). Counts the attempt. Returns
-- nothing when another runner holds the job, so two runners never work on one job.
create function public.pipeline_claim_job(p_job uuid, p_now timestamptz, p_stale_before timestamptz)
returns setof public.ai_jobs
language sql security definer set search_path = '' as $$
  update public.ai_jobs
     set status = 'processing', attempts = attempts + 1, heartbeat_at = p_now,
         started_at = coalesce(started_at, p_now), completed_at = null, error = null
   where id = p_job
     and (status in ('pending', 'failed', 'cancelled', 'completed')
          or (status = 'processing' and (heartbeat_at is null or heartbeat_at < p_stale_before)))
  returning *;
$$;

-- Records a finished stage and moves the job on in one statement pair (one transaction): the
-- checkpoint is written once (a re-run of a stage replaces its output), and progress only rises.
create function public.pipeline_checkpoint(
  p_job uuid, p_stage text, p_output jsonb, p_progress integer, p_now timestamptz
) returns void
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.ai_job_checkpoints (job_id, stage, output, progress)
  values (p_job, p_stage, p_output, p_progress)
  on conflict (job_id, stage) do update set output = excluded.output, progress = excluded.progress;
  update public.ai_jobs
     set progress = greatest(progress, p_progress), current_stage = p_stage, heartbeat_at = p_now,
         message = 'Stage ' || p_stage || ' finished'
   where id = p_job;
end $$;

-- Puts a job back to pending with no checkpoints (restart from scratch).
create function public.pipeline_reset_job(p_job uuid) returns void
language plpgsql security definer set search_path = '' as $$
begin
  delete from public.ai_job_checkpoints where job_id = p_job;
  update public.ai_jobs
     set status = 'pending', progress = 0, current_stage = null, error = null, completed_at = null,
         message = 'Restarted'
   where id = p_job;
end $$;

revoke execute on function public.pipeline_claim_job(uuid, timestamptz, timestamptz),
  public.pipeline_checkpoint(uuid, text, jsonb, integer, timestamptz), public.pipeline_reset_job(uuid)
  from public, anon, authenticated;
grant execute on function public.pipeline_claim_job(uuid, timestamptz, timestamptz),
  public.pipeline_checkpoint(uuid, text, jsonb, integer, timestamptz), public.pipeline_reset_job(uuid)
  to service_role;

-- Marks the start of a stage: the job's current stage, a heartbeat, and progress raised to the
-- start of the stage's range (never lowered).
create function public.pipeline_stage_started(p_job uuid, p_stage text, p_progress integer, p_now timestamptz)
returns void
language sql security definer set search_path = '' as $$
  update public.ai_jobs
     set current_stage = p_stage, progress = greatest(progress, p_progress), heartbeat_at = p_now,
         message = 'Running stage ' || p_stage
   where id = p_job;
$$;

revoke execute on function public.pipeline_stage_started(uuid, text, integer, timestamptz)
  from public, anon, authenticated;
grant execute on function public.pipeline_stage_started(uuid, text, integer, timestamptz) to service_role;

-- Every model call a job's stages make (the rag_ai_tracking reads): stage, model, tokens,
-- latency and outcome. Calls are events, so a stage that is re-run records its calls again.
create table public.ai_job_model_calls (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references public.ai_jobs (id) on delete cascade,
  stage text not null,
  model text not null,
  purpose text not null,
  input_tokens integer,
  output_tokens integer,
  latency_ms integer not null,
  ok boolean not null,
  error text,
  created_at timestamptz not null default now()
);
create index ai_job_model_calls_job_idx on public.ai_job_model_calls (job_id, created_at);

alter table public.ai_job_model_calls enable row level security;
grant select on public.ai_job_model_calls to authenticated;
grant all on public.ai_job_model_calls to service_role;

-- Whoever can read a job can read its model calls (the job's own read policy decides).
create policy ai_job_model_calls_read on public.ai_job_model_calls for select to authenticated
  using (exists (select 1 from public.ai_jobs j where j.id = job_id));
