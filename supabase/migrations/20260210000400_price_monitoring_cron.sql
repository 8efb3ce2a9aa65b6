-- Scheduled competitor price checks (price_monitoring_products.frequency hourly | daily | weekly):
-- every five minutes pg_cron queues a pg_net POST to price-monitoring/scheduled with the
-- service-role key read from Vault at each run (secrets `project_url` and `service_role_key`,
-- as for flow-scheduler-cron; never in a migration). The function claims the due products
-- atomically (price_monitoring_claim_due), so overlapping calls cannot check a product twice.
-- Until the secrets exist the job sends nothing.
select cron.schedule(
  'price-monitoring-scheduler',
  '*/5 * * * *',
  $$
  select net.http_post(
    url := (select decrypted_secret from vault.decrypted_secrets where name = 'project_url')
      || '/functions/v1/price-monitoring/scheduled',
    headers := jsonb_build_object(
      'Content-Type', 'application/json',
      'apikey', (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key'),
      'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key')
    ),
    body := jsonb_build_object('time', now()),
    timeout_milliseconds := 120000
  )
  where exists (select 1 from vault.decrypted_secrets where name = 'project_url')
    and exists (select 1 from vault.decrypted_secrets where name = 'service_role_key');
  $$
);
