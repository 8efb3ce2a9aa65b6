-- An accepted async upload is processed without another call (issue 33). upload-async answered
-- 202 `pending` and wrote a job that nothing ran: only POST /api/rag/jobs/{id}/resume or a
-- pdf-batch-process batch moved it, so a frontend that uploads and polls job-status waited
-- forever (a fresh `deno task start`, no keys: the job stayed `pending`).
--
-- Now the AI backend runs queued jobs itself (services/ai-backend/pipeline/runner.ts): right
-- after it accepts an upload, and on a sweep at its start and every 30 s, so a job accepted
-- just before a crash or a restart, or whose runner died mid-way, is taken up by any replica.
--
-- ai_jobs.queued_at marks a job the runner owns: set by the backend (service role) once the
-- upload is accepted and its debit linked, never by a user (no column grant: a job a user
-- inserts through /rest/v1 is never run for free). Null: the job waits for resume, restart or
-- a batch (an upload with defer_processing, a job stepped through the internal stage routes).
--
-- pipeline_claim_queued_job takes one job for one run, atomically (FOR UPDATE SKIP LOCKED, then
-- the status moves to `processing`), so two runners never run one job: the oldest queued job
-- that was never claimed, or a queued job whose runner's heartbeat is older than p_stale_before
-- and that has been claimed fewer than p_max_runs times. pipeline_fail_abandoned_jobs fails the
-- queued jobs whose runner died p_max_runs times (a document that kills its runner is not run
-- forever); the runner refunds them as any failed job.

alter table public.ai_jobs add column queued_at timestamptz;

comment on column public.ai_jobs.queued_at is
  'When the AI backend accepted the job for its own runner (service role only); null: resume, restart or a batch runs it.';

-- The runner's scan: queued jobs still pending or processing, oldest first.
create index ai_jobs_queued_idx on public.ai_jobs (queued_at)
  where queued_at is not null and status in ('pending', 'processing');

create function public.pipeline_claim_queued_job(
  p_now timestamptz, p_stale_before timestamptz, p_max_runs integer
) returns setof public.ai_jobs
language sql security definer set search_path = '' as $$
  update public.ai_jobs j
     set status = 'processing', attempts = j.attempts + 1, heartbeat_at = p_now,
         started_at = coalesce(j.started_at, p_now), completed_at = null, error = null
   where j.id = (
     select q.id from public.ai_jobs q
      where q.queued_at is not null
        and ((q.status = 'pending' and q.attempts = 0)
             or (q.status = 'processing' and q.attempts < p_max_runs
                 and (q.heartbeat_at is null or q.heartbeat_at < p_stale_before)))
      order by q.queued_at
      limit 1
      for update skip locked)
  returning j.*;
$$;

create function public.pipeline_fail_abandoned_jobs(
  p_now timestamptz, p_stale_before timestamptz, p_max_runs integer
) returns setof public.ai_jobs
language sql security definer set search_path = '' as $$
  update public.ai_jobs j
     set status = 'failed', completed_at = p_now,
         error = 'The pipeline runner stopped ' || j.attempts || ' times while running this job; it is not retried again',
         message = 'The pipeline runner stopped ' || j.attempts || ' times while running this job; it is not retried again'
   where j.queued_at is not null and j.status = 'processing' and j.attempts >= p_max_runs
     and (j.heartbeat_at is null or j.heartbeat_at < p_stale_before)
  returning j.*;
$$;

-- Only the AI backend (service role) runs jobs.
revoke execute on function public.pipeline_claim_queued_job(timestamptz, timestamptz, integer),
  public.pipeline_fail_abandoned_jobs(timestamptz, timestamptz, integer)
  from public, anon, authenticated;
grant execute on function public.pipeline_claim_queued_job(timestamptz, timestamptz, integer),
  public.pipeline_fail_abandoned_jobs(timestamptz, timestamptz, integer)
  to service_role;
