-- social-publish-cron every minute: pg_cron queues a pg_net POST with the service-role key read
-- from Vault at each run (secrets `project_url` and `service_role_key`, created per project with
-- vault.create_secret, never in a migration; the same pattern as 20260205000120). The function
-- claims the due scheduled posts itself with public.social_claim_due_posts (atomic, row locks
-- skipped), so overlapping ticks never publish a post twice. Until the secrets exist the job
-- sends nothing.
select cron.schedule(
  'social-publish-cron',
  '* * * * *',
  $$
  select net.http_post(
    url := (select decrypted_secret from vault.decrypted_secrets where name = 'project_url')
      || '/functions/v1/social-publish-cron',
    headers := jsonb_build_object(
      'Content-Type', 'application/json',
      'apikey', (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key'),
      'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key')
    ),
    body := jsonb_build_object('time', now()),
    timeout_milliseconds := 30000
  )
  where exists (select 1 from vault.decrypted_secrets where name = 'project_url')
    and exists (select 1 from vault.decrypted_secrets where name = 'service_role_key');
  $$
);
