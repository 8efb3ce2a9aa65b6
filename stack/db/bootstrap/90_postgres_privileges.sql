-- What `postgres` (not a superuser) may do with the platform's schemas on hosted Supabase, so
-- that migrations written there apply here unchanged and fail where they would fail there.
-- Source: supabase/postgres migrations/db/migrations/10000000000000_demote-postgres.sql (ALL on
-- auth, storage, extensions and everything in them) and supautils' policy_grants (postgres may
-- put policies and triggers on storage.objects/buckets; emulated here by membership in the
-- owning role). What postgres gets on cron, net and vault comes with those extensions
-- (stack/db/extensions/*.sql), as hosted's grant_pg_cron_access/grant_pg_net_access event
-- triggers and create_vault migration give it. What supautils lets postgres do with the API
-- roles' settings (`alter role authenticator set pgrst.*`) is emulated in stack/db/supautils.ts.

grant all on schema auth, storage, extensions to postgres;
grant all on all tables in schema auth, storage, extensions to postgres;
grant all on all sequences in schema auth, storage, extensions to postgres;
grant all on all routines in schema auth, storage, extensions to postgres;

-- Storage's tables belong to supabase_storage_admin; policies on them need ownership.
alter table storage.buckets owner to supabase_storage_admin;
alter table storage.objects owner to supabase_storage_admin;
grant supabase_storage_admin to postgres;

-- Realtime: postgres owns the supabase_realtime publication, so migrations add tables to it.
alter publication supabase_realtime owner to postgres;

-- Settings only a superuser may change that supautils lets postgres set
-- (supautils.privileged_role_allowed_configs on hosted), e.g. session_replication_role for
-- writes that must not fire triggers. Postgres 15's SET privilege grants exactly that.
grant set on parameter
  session_replication_role, log_lock_waits, log_min_duration_statement, log_min_messages,
  log_replication_commands, log_statement, log_temp_files, track_io_timing, wal_compression
  to postgres;
