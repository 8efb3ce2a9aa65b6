-- background-agent-runner's scheduler tick every minute: pg_cron queues a pg_net POST to
-- /functions/v1/background-agent-runner/cron with the service-role key read from Vault at each run
-- (secrets `project_url` and `service_role_key`, created per project with vault.create_secret,
-- never in a migration; the same pattern as flow-scheduler-cron). The function claims the due
-- agents itself, atomically (agent_claim_due): overlapping ticks cannot double-run a slot. Until
-- the secrets exist the job sends nothing.
select cron.schedule('background-agents-cron', '* * * * *',
  $$ select public.call_edge_function('/functions/v1/background-agent-runner/cron', jsonb_build_object('time', now())) $$);
