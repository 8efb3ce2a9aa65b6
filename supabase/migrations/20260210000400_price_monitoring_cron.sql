-- Scheduled competitor price checks (price_monitoring_products.frequency hourly | daily | weekly):
-- every five minutes pg_cron queues a pg_net POST to price-monitoring/scheduled with the
-- service-role key read from Vault at each run (secrets `project_url` and `service_role_key`,
-- as for flow-scheduler-cron; never in a migration). The function claims the due products
-- atomically (price_monitoring_claim_due), so overlapping calls cannot check a product twice.
-- Until the secrets exist the job sends nothing.
select cron.schedule('price-monitoring-scheduler', '*/5 * * * *',
  $$ select public.call_edge_function('/functions/v1/price-monitoring/scheduled', jsonb_build_object('time', now()), 120000) $$);
