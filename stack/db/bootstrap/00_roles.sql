-- What hosted Supabase creates before any migration runs: the API roles, the extensions schema,
-- and the privileges the API roles have on `public`.
-- Source: supabase/cli apps/cli-go/internal/utils/templates/globals.sql and initial_schemas/*.sql.

create role anon nologin noinherit;
create role authenticated nologin noinherit;
create role service_role nologin noinherit bypassrls;
create role authenticator login noinherit;
grant anon, authenticated, service_role to authenticator;
-- supabase_admin owns platform objects on hosted Supabase; here it exists so that migrations
-- written against hosted projects (grants, `owner to`) apply unchanged.
create role supabase_admin nologin bypassrls;

create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;
create extension if not exists pgcrypto with schema extensions;
create extension if not exists pg_trgm with schema extensions;
create extension if not exists vector with schema extensions;

grant usage on schema public to anon, authenticated, service_role;
-- Functions and sequences in public are usable by the API roles, as on hosted Supabase.
-- Tables are NOT auto-exposed: since 2026-05-30 new hosted projects default
-- `auto_expose_new_tables` to false, so every migration grants table privileges explicitly.
-- (`[api] auto_expose_new_tables = true` in supabase/config.toml restores the old default.)
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;

-- Supabase's migration history table, as `supabase db push` keeps it.
create schema if not exists supabase_migrations;
create table supabase_migrations.schema_migrations (
  version text primary key,
  statements text[],
  name text
);
