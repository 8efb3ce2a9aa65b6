-- social-publish-cron every minute: pg_cron queues a pg_net POST with the service-role key read
-- from Vault at each run (secrets `project_url` and `service_role_key`, created per project with
-- vault.create_secret, never in a migration; the same pattern as 20260205000120). The function
-- claims the due scheduled posts itself with public.social_claim_due_posts (atomic, row locks
-- skipped), so overlapping ticks never publish a post twice. Until the secrets exist the job
-- sends nothing.
select cron.schedule('social-publish-cron', '* * * * *',
  $$ select public.call_edge_function('/functions/v1/social-publish-cron', jsonb_build_object('time', now())) $$);
