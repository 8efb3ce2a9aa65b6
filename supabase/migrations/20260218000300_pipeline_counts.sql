-- Statistics over every pipeline job for the admin job API (GET /api/admin/jobs/statistics),
-- computed in the database: a read of ai_jobs through /rest/v1 is cut at max_rows (1,000) without
-- an error, so counting rows in the backend undercounts as soon as the platform has more jobs.
-- SECURITY INVOKER: the caller's own rights on ai_jobs apply; only the service role (the AI
-- backend, for platform admins) may call it, and it sees every job.
create function public.pipeline_job_statistics()
returns jsonb
language sql stable security invoker set search_path = '' as $$
  select jsonb_build_object(
    'total_jobs', (select count(*) from public.ai_jobs),
    'by_status', coalesce(
      (select jsonb_object_agg(s.status, s.n)
         from (select j.status, count(*) as n from public.ai_jobs j group by j.status) s),
      '{}'::jsonb),
    'failed_by_stage', coalesce(
      (select jsonb_object_agg(f.current_stage, f.n)
         from (select j.current_stage, count(*) as n from public.ai_jobs j
                where j.status = 'failed' and j.current_stage is not null
                group by j.current_stage) f),
      '{}'::jsonb),
    'jobs_run_more_than_once', (select count(*) from public.ai_jobs j where j.attempts > 1),
    'average_duration_seconds', (
      select avg(extract(epoch from (j.completed_at - j.started_at)))
        from public.ai_jobs j
       where j.status = 'completed' and j.started_at is not null and j.completed_at is not null)
  );
$$;
comment on function public.pipeline_job_statistics() is
  'Counts over all ai_jobs for the admin job statistics (service role only).';
revoke execute on function public.pipeline_job_statistics() from public, anon, authenticated;
grant execute on function public.pipeline_job_statistics() to service_role;
