-- What `postgres` (not a superuser) may do with the platform's schemas on hosted Supabase, so
-- that migrations written there apply here unchanged and fail where they would fail there.
-- Source: supabase/postgres migrations/db/migrations/10000000000000_demote-postgres.sql (ALL on
-- auth, storage, extensions and everything in them), the pg_cron and vault grants of the
-- supabase/postgres image, and supautils' policy_grants (postgres may put policies and triggers
-- on storage.objects/buckets; emulated here by membership in the owning role).

grant all on schema auth, storage, extensions to postgres;
grant all on all tables in schema auth, storage, extensions to postgres;
grant all on all sequences in schema auth, storage, extensions to postgres;
grant all on all routines in schema auth, storage, extensions to postgres;

-- Storage's tables belong to supabase_storage_admin; policies on them need ownership.
alter table storage.buckets owner to supabase_storage_admin;
alter table storage.objects owner to supabase_storage_admin;
grant supabase_storage_admin to postgres;

-- pg_cron: postgres schedules jobs (they run as their owner, cron.job.username).
grant usage on schema cron to postgres;
grant all on all tables in schema cron to postgres;
grant all on all sequences in schema cron to postgres;
grant execute on all functions in schema cron to postgres;

-- Vault: postgres stores and reads secrets (cron jobs read keys from vault.decrypted_secrets).
grant usage on schema vault to postgres;
grant all on vault.secrets to postgres;
grant select on vault.decrypted_secrets to postgres;
grant execute on function
  vault.create_secret(text, text, text, uuid),
  vault.update_secret(uuid, text, text, text, uuid)
  to postgres;

-- Realtime: postgres owns the supabase_realtime publication, so migrations add tables to it.
alter publication supabase_realtime owner to postgres;

-- Settings only a superuser may change that supautils lets postgres set
-- (supautils.privileged_role_allowed_configs on hosted), e.g. session_replication_role for
-- writes that must not fire triggers. Postgres 15's SET privilege grants exactly that.
grant set on parameter
  session_replication_role, log_lock_waits, log_min_duration_statement, log_min_messages,
  log_replication_commands, log_statement, log_temp_files, track_io_timing, wal_compression
  to postgres;
