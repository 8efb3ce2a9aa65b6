-- What hosted Supabase creates before any migration runs: the roles, the extensions schema with
-- the default extensions, and the privileges the API roles have on `public`.
-- Sources: supabase/cli apps/cli-go/internal/utils/templates/globals.sql and initial_schemas/*.sql;
-- supabase/postgres migrations/db/init-scripts/00000000000000-initial-schema.sql and
-- migrations/db/migrations/10000000000000_demote-postgres.sql.
--
-- This file runs as `supabase_admin`, the real superuser, as on hosted Supabase (there it is
-- initdb's bootstrap user; here PGlite's, renamed by stack/db/migrate.ts before this file runs).

-- `postgres`: what a project's migrations, the SQL editor and SUPABASE_DB_URL use. Not a
-- superuser (demote-postgres), but with the attributes hosted gives it. What supautils lets it do
-- beyond them is emulated in stack/db (see migrate.ts): create the allow-listed extensions.
create role postgres login createrole createdb replication bypassrls;

create role anon nologin noinherit;
create role authenticated nologin noinherit;
create role service_role nologin noinherit bypassrls;
create role authenticator login noinherit;
grant anon, authenticated, service_role to authenticator;
-- postgres may switch to the API roles (the dashboard's "run as role") and, on Postgres 16 and
-- later (PGlite is 18), administer them, e.g. `alter role anon set statement_timeout`, as hosted
-- grants it (supabase/postgres 20250605172253_grant_with_admin_to_postgres_16_and_above.sql).
grant anon, authenticated, service_role to postgres with admin option;

-- demote-postgres: postgres keeps everything it had on the database.
do $$ begin execute format('grant all on database %I to postgres', current_database()); end $$;

-- The extensions schema and the extensions a fresh project has enabled. pg_graphql (enabled on
-- projects made before supabase/postgres 20260421000000_pg_graphql-off-by-default.sql) and
-- supabase_vault are not built for PGlite (vault is emulated and enabled in 30_vault.sql);
-- pg_stat_statements needs shared_preload_libraries, which PGlite cannot do. vector and pg_trgm
-- are available (stack/db/database.ts loads them) but NOT enabled: a migration must enable them.
create schema if not exists extensions;
alter schema extensions owner to postgres;
grant usage on schema extensions to anon, authenticated, service_role;
create extension if not exists "uuid-ossp" with schema extensions;
create extension if not exists pgcrypto with schema extensions;

-- On hosted, `postgres` owns `public` and so owns (and may grant) everything migrations put there.
alter schema public owner to postgres;
grant usage on schema public to anon, authenticated, service_role;
-- Functions and sequences postgres creates in public are usable by the API roles, as on hosted.
-- Tables are NOT auto-exposed: since 2026-05-30 new hosted projects default
-- `auto_expose_new_tables` to false, so every migration grants table privileges explicitly.
-- (`[api] auto_expose_new_tables = true` in supabase/config.toml restores the old default.)
-- What supabase_admin creates there postgres may use fully, as initial-schema.sql grants (the
-- platform's own connection is supabase_admin: tables a test or tool creates through it stay
-- usable by postgres, e.g. by a postgres-owned event trigger function adding triggers to them).
alter default privileges in schema public grant all on tables to postgres;
alter default privileges in schema public grant all on sequences to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  grant all on sequences to anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  grant all on functions to anon, authenticated, service_role;

-- Supabase's migration history table, as `supabase db push` keeps it.
create schema if not exists supabase_migrations;
create table supabase_migrations.schema_migrations (
  version text primary key,
  statements text[],
  name text
);
-- The CLI creates it as the user it connects as.
alter schema supabase_migrations owner to postgres;
alter table supabase_migrations.schema_migrations owner to postgres;
