-- What the product streams over Realtime (postgres_changes through supabase-js channels): the
-- supabase_realtime publication decides, as on hosted Supabase, and every subscriber still only
-- receives rows its RLS lets it read. ai_jobs: upload and processing progress a frontend watches
-- (status, progress, message). Later features add theirs (agent_runs, agent_run_logs) in their
-- own migrations.
do $$
begin
  if not exists (select 1 from pg_catalog.pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end $$;
alter publication supabase_realtime add table public.ai_jobs;
