-- Realtime, as a fresh Supabase project has it: the supabase_realtime publication (empty; a
-- project's migrations add the tables it streams), and the local platform's stand-in for the
-- logical-replication slot that Supabase Realtime reads (PGlite has no WAL decoding):
--
-- realtime.local_capture(), an AFTER ROW trigger that stack/realtime installs on every table of
-- the publication, appends each change to realtime.local_changes and notifies
-- realtime_local_changes. Notifications are delivered at commit and the queue is read by the
-- realtime part in id order, so subscribers see committed changes only, in commit order (PGlite
-- runs one transaction at a time). The trigger re-checks the publication and its
-- insert/update/delete flags on every row, so a table dropped from the publication stops
-- streaming at once. None of this exists on hosted Supabase, which decodes the WAL instead.
create schema if not exists realtime;
grant usage on schema realtime to postgres, anon, authenticated, service_role;

do $$
begin
  if not exists (select 1 from pg_catalog.pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end $$;

create table realtime.local_changes (
  id bigint generated always as identity primary key,
  schema_name text not null,
  table_name text not null,
  type text not null check (type in ('INSERT', 'UPDATE', 'DELETE')),
  record jsonb,
  old_record jsonb,
  commit_timestamp timestamptz not null default clock_timestamp()
);
revoke all on realtime.local_changes from public, anon, authenticated, service_role;

create function realtime.local_capture() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not exists (
    select 1 from pg_catalog.pg_publication_tables pt
      join pg_catalog.pg_publication p on p.pubname = pt.pubname
     where pt.pubname = 'supabase_realtime' and pt.schemaname = tg_table_schema and pt.tablename = tg_table_name
       and case tg_op when 'INSERT' then p.pubinsert when 'UPDATE' then p.pubupdate else p.pubdelete end
  ) then
    return null;
  end if;
  insert into realtime.local_changes (schema_name, table_name, type, record, old_record)
  values (tg_table_schema, tg_table_name, tg_op,
          case when tg_op <> 'DELETE' then to_jsonb(new) end,
          case when tg_op <> 'INSERT' then to_jsonb(old) end);
  perform pg_notify('realtime_local_changes', '');
  return null;
end $$;
revoke execute on function realtime.local_capture() from public, anon, authenticated, service_role;

-- Puts the capture trigger on every table of the publication that lacks it (called at start and
-- whenever a channel subscribes to a table).
create function realtime.local_sync_capture() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  v record;
  n integer := 0;
begin
  for v in
    select pt.schemaname, pt.tablename from pg_catalog.pg_publication_tables pt
     where pt.pubname = 'supabase_realtime'
       and not exists (
         select 1 from pg_catalog.pg_trigger t
          where t.tgrelid = format('%I.%I', pt.schemaname, pt.tablename)::regclass
            and t.tgname = 'realtime_local_capture')
  loop
    execute format('create trigger realtime_local_capture after insert or update or delete on %I.%I '
                   'for each row execute function realtime.local_capture()', v.schemaname, v.tablename);
    n := n + 1;
  end loop;
  return n;
end $$;
revoke execute on function realtime.local_sync_capture() from public, anon, authenticated, service_role;
