-- Enables pg_cron and pg_net before their first use (issue 34). A fresh hosted project has
-- neither: `supabase db push` stopped at 20260205000120_flow_scheduler_cron.sql, migration 48 of
-- 78, with `schema "cron" does not exist`, because the local platform used to create cron, net
-- and vault before any migration ran. Now the local platform enables only what a fresh hosted
-- project has (uuid-ossp, pgcrypto, supabase_vault; stack/db/bootstrap/30_vault.sql) and these
-- statements bring the local emulations into being, as they enable the real extensions there.
--
-- Used by: flow events (20260205000110, net.http_post), every scheduled job (cron.schedule from
-- 20260205000120 on) and public.call_edge_function (20260207000100).
--
-- The statements are Supabase's (supabase.com/docs/guides/cron, .../database/extensions/pg_net):
-- pg_cron lives in pg_catalog (hosted's supautils puts it there whatever the statement says) and
-- creates schema cron; pg_net is installed with schema extensions and creates schema net. The
-- grants to postgres come with the extensions (hosted's grant_pg_cron_access and
-- grant_pg_net_access event triggers); the cron grant below is the docs' and changes nothing
-- there. `if not exists` keeps this harmless on a database that already has them (enabled in the
-- dashboard). The file's timestamp is earlier than migrations a hosted project may already have:
-- such a project (one where pg_cron was enabled by hand) takes it with
-- `supabase db push --include-all`.
create extension if not exists pg_cron with schema pg_catalog;
grant usage on schema cron to postgres;
create extension if not exists pg_net with schema extensions;
