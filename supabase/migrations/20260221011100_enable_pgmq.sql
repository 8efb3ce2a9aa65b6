-- Enables Supabase Queues (pgmq) for long work done off the request (issue 35): a function has
-- 150 s to answer and a worker 400 s to live on hosted, so work that must be paced or takes
-- longer (messaging-api send-bulk: 10,000 recipients at 600/min is 17 minutes) is put on a queue
-- and drained in slices by a worker that pg_cron fires every minute.
--
-- The statement is Supabase's (supabase.com/docs/guides/queues: Integrations > Queues enables
-- the same extension); pgmq creates and owns schema pgmq. Locally it brings the emulation into
-- being (stack/db/extensions/pgmq--1.4.4.sql, the same functions and tables), as
-- 20260205000105 does for pg_cron and pg_net. `if not exists` keeps it harmless where the
-- dashboard enabled it already.
--
-- Who may use queues: postgres (the owner) and service_role, which the edge functions' service
-- client runs as (the grants below are those Supabase's dashboard gives service_role when it
-- exposes queues: usage, every queue table, the functions). anon and authenticated get nothing:
-- without usage on schema pgmq they can neither call pgmq.send/read nor touch a queue table, so
-- a client cannot read or forge queued work. A queue meant for clients would be granted to them
-- one table at a time, with RLS.
create extension if not exists pgmq;

grant usage on schema pgmq to service_role;
grant select, insert, update, delete on all tables in schema pgmq to service_role;
grant usage, select on all sequences in schema pgmq to service_role;
-- Queues made later (pgmq.create run by postgres, e.g. in a migration) are usable the same way.
alter default privileges for role postgres in schema pgmq
  grant select, insert, update, delete on tables to service_role;
alter default privileges for role postgres in schema pgmq grant usage, select on sequences to service_role;
grant execute on all functions in schema pgmq to service_role;
