-- Aggregates over ai_jobs computed in SQL, so that no figure depends on reading every job row
-- through /rest/v1 (a read answers at most max_rows = 1,000 rows, without an error).
--
-- ai_jobs_status_counts(): the number of jobs per status the caller can see. SECURITY INVOKER:
-- row-level security decides which jobs are counted (a user's own jobs, plus their workspaces'
-- jobs for owners and admins), exactly the rows a select on ai_jobs would answer. Statuses without
-- jobs are absent; no visible job is {}.
create function public.ai_jobs_status_counts() returns jsonb
language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_object_agg(s.status, s.n order by s.status), '{}'::jsonb)
    from (select j.status, count(*) as n from public.ai_jobs j group by j.status) s;
$$;
revoke execute on function public.ai_jobs_status_counts() from public, anon;
grant execute on function public.ai_jobs_status_counts() to authenticated, service_role;

-- ai_jobs_uploaded_bytes(): the bytes of every uploaded document (sum of ai_jobs.size_bytes) for
-- the platform storage estimate. SECURITY INVOKER and the service role's only: the service role
-- sees every job; users have no platform-wide figure.
create function public.ai_jobs_uploaded_bytes() returns bigint
language sql stable security invoker set search_path = '' as $$
  select coalesce(sum(j.size_bytes), 0)::bigint from public.ai_jobs j;
$$;
revoke execute on function public.ai_jobs_uploaded_bytes() from public, anon, authenticated;
grant execute on function public.ai_jobs_uploaded_bytes() to service_role;
