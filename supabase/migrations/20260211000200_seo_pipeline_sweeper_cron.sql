-- seo-pipeline sweeper every minute: pg_cron queues a pg_net POST to
-- /functions/v1/seo-pipeline/sweep with the service-role key read from Vault at each run
-- (secrets `project_url` and `service_role_key`, created per project with vault.create_secret,
-- never in a migration; the same pair flow-scheduler-cron uses). The function resumes every
-- running article whose worker's heartbeat went stale (a platform restart or a crashed worker)
-- from its last finished stage, or fails it cleanly and refunds it after its last attempt, so no
-- article stays `writing` forever. Claims are atomic: overlapping sweeps cannot double-run one.
-- Until the secrets exist the job sends nothing.
select cron.schedule('seo-pipeline-sweeper', '* * * * *',
  $$ select public.call_edge_function('/functions/v1/seo-pipeline/sweep', jsonb_build_object('time', now())) $$);
