-- seo-pipeline sweeper every minute: pg_cron queues a pg_net POST to
-- /functions/v1/seo-pipeline/sweep with the service-role key read from Vault at each run
-- (secrets `project_url` and `service_role_key`, created per project with vault.create_secret,
-- never in a migration; the same pair flow-scheduler-cron uses). The function resumes every
-- running article whose worker's heartbeat went stale (a platform restart or a crashed worker)
-- from its last finished stage, or fails it cleanly and refunds it after its last attempt, so no
-- article stays `writing` forever. Claims are atomic: overlapping sweeps cannot double-run one.
-- Until the secrets exist the job sends nothing.
select cron.schedule(
  'seo-pipeline-sweeper',
  '* * * * *',
  $$
  select net.http_post(
    url := (select decrypted_secret from vault.decrypted_secrets where name = 'project_url')
      || '/functions/v1/seo-pipeline/sweep',
    headers := jsonb_build_object(
      'Content-Type', 'application/json',
      'apikey', (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key'),
      'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key')
    ),
    body := jsonb_build_object('time', now()),
    timeout_milliseconds := 30000
  )
  where exists (select 1 from vault.decrypted_secrets where name = 'project_url')
    and exists (select 1 from vault.decrypted_secrets where name = 'service_role_key')
    and exists (
      select 1 from public.seo_articles
       where status in ('researching', 'planning', 'writing', 'analyzing')
         and heartbeat_at < now() - interval '90 seconds'
    );
  $$
);
