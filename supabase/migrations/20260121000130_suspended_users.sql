-- What a suspended account (user_profiles.status = 'suspended') can no longer do.
--
--   1. Sign in or refresh a session: suspending bans the auth user as GoTrue's admin API does
--      (`ban_duration: "876000h"`, banned_until = now + 100 years) and ends every session, so
--      /auth/v1/token answers 400 user_banned for both grants and GET /auth/v1/user answers 403
--      session_not_found for the tokens already issued. Reactivating lifts the ban.
--   2. Write anything: a statement-level trigger on every table of `public` (and on
--      storage.objects) refuses an insert, update or delete made for a suspended caller
--      (auth.uid() from the request's JWT), whether through /rest/v1, an RPC (SECURITY DEFINER
--      ones included: triggers fire for their writes too) or /storage/v1. 42501: PostgREST 403.
--   3. Call any edge function or the AI backend: packages/shared/auth/context.ts (authContext)
--      answers 403 user_suspended for a suspended user's JWT, before any route runs or any
--      credit moves.
-- Until its expiry (jwt_expiry, 1 hour) an access token issued before the suspension can still
-- read through /rest/v1 what RLS let the user read; it can change nothing.
-- The service role, cron and GoTrue itself (no JWT subject) are never refused.

-- The subject is read as text (not through auth.uid()'s uuid cast), so a write under a token
-- whose sub is not a uuid fails or succeeds exactly as it did before this trigger existed.
create function public.refuse_suspended_writer() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_sub text := coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'
  );
begin
  if v_sub is null or v_sub !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return null;
  end if;
  if exists (select 1 from public.user_profiles p where p.user_id = v_sub::uuid and p.status = 'suspended') then
    raise exception 'This account is suspended' using errcode = '42501',
      hint = 'A suspended account cannot write; an administrator can reactivate it.';
  end if;
  return null;
end $$;
revoke execute on function public.refuse_suspended_writer() from public, anon, authenticated;

-- Every table of public: those that exist now (the loop), and those created later (the event
-- trigger below). tests/security/suspension_test.ts checks that every table carries it.
do $$
declare
  t record;
begin
  for t in
    select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p')
  loop
    execute format(
      'create trigger refuse_suspended_writer before insert or update or delete on public.%I
         for each statement execute function public.refuse_suspended_writer()',
      t.relname
    );
  end loop;
end $$;

create function public.add_refuse_suspended_writer() returns event_trigger
language plpgsql security definer set search_path = '' as $$
declare
  r record;
begin
  for r in
    select * from pg_event_trigger_ddl_commands()
     where command_tag = 'CREATE TABLE' and object_type = 'table' and schema_name = 'public'
  loop
    execute format(
      'create trigger refuse_suspended_writer before insert or update or delete on %s
         for each statement execute function public.refuse_suspended_writer()',
      r.object_identity
    );
  end loop;
end $$;
revoke execute on function public.add_refuse_suspended_writer() from public, anon, authenticated;

create event trigger refuse_suspended_writer_on_new_tables on ddl_command_end when tag in ('CREATE TABLE')
  execute function public.add_refuse_suspended_writer();

create trigger refuse_suspended_writer before insert or update or delete on storage.objects
  for each statement execute function public.refuse_suspended_writer();

-- Suspending bans the auth user and ends their sessions; reactivating lifts the ban.
create function public.sync_suspension_to_auth() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'UPDATE' and old.status is not distinct from new.status then
    return null;
  end if;
  if new.status = 'suspended' then
    update auth.users set banned_until = now() + interval '876000 hours' where id = new.user_id;
    delete from auth.sessions where user_id = new.user_id;
  elsif tg_op = 'UPDATE' then
    update auth.users set banned_until = null where id = new.user_id;
  end if;
  return null;
end $$;
revoke execute on function public.sync_suspension_to_auth() from public, anon, authenticated;

create trigger user_profiles_suspension after insert or update of status on public.user_profiles
  for each row execute function public.sync_suspension_to_auth();
