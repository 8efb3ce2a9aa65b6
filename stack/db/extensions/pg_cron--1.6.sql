-- pg_cron 1.6 as the local platform emulates it (`create extension pg_cron`). Tables, columns,
-- function signatures and error texts follow citusdata/pg_cron 1.6 (pg_cron.sql and its upgrade
-- scripts); what pg_cron does in C (the scheduler) is stack/cron/worker.ts, which cron.job's
-- trigger NOTIFYs. NOTIFY is delivered on commit only, so a rolled-back change never runs.
-- The script runs as the superuser (trusted, as supautils runs privileged extensions), so cron
-- and everything in it belong to supabase_admin, as on hosted Supabase; the grants at the end
-- are those hosted's grant_pg_cron_access event trigger gives postgres.

create schema cron;

create sequence cron.jobid_seq;
create sequence cron.runid_seq;

create table cron.job (
  jobid bigint primary key default nextval('cron.jobid_seq'),
  schedule text not null,
  command text not null,
  nodename text not null default 'localhost',
  nodeport integer not null default 5432,
  database text not null default current_database(),
  username text not null default current_user,
  active boolean not null default true,
  jobname text,
  constraint jobname_username_uniq unique (jobname, username)
);
alter sequence cron.jobid_seq owned by cron.job.jobid;

create table cron.job_run_details (
  jobid bigint,
  runid bigint primary key default nextval('cron.runid_seq'),
  job_pid integer,
  database text,
  username text,
  command text,
  -- starting | running | sending | connecting | succeeded | failed
  status text,
  return_message text,
  start_time timestamptz,
  end_time timestamptz
);
alter sequence cron.runid_seq owned by cron.job_run_details.runid;

-- pg_cron's policies: a role granted access to cron sees and changes only its own jobs.
alter table cron.job enable row level security;
create policy cron_job_policy on cron.job using (username = current_user);
alter table cron.job_run_details enable row level security;
create policy cron_job_run_details_policy on cron.job_run_details using (username = current_user);

-- The schedule grammar pg_cron accepts: '[1-59] seconds', the @-macros, or five fields
-- (minute hour day-of-month month day-of-week) of numbers, names, ranges, lists and steps,
-- with '$' for the last day of the month. pg_cron refuses anything else when scheduling.
create function cron._field_value(token text, field int) returns int
language sql immutable as $$
  select case
    when $1 ~ '^[0-9]+$' then $1::int
    when $2 = 4 then array_position(
      array['jan','feb','mar','apr','may','jun','jul','aug','sep','oct','nov','dec'], $1)
    when $2 = 5 then array_position(array['sun','mon','tue','wed','thu','fri','sat'], $1) - 1
  end
$$;

create function cron._validate_schedule(schedule text) returns void
language plpgsql immutable as $$
declare
  s text := lower(btrim($1));
  fields text[];
  lo int[] := array[0, 0, 1, 1, 0];
  hi int[] := array[59, 23, 31, 12, 7];
  item text;
  m text[];
  a int;
  b int;
begin
  if s ~ '^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$'
     or s ~ '^([1-9]|[1-5][0-9]) seconds?$' then
    return;
  end if;
  fields := regexp_split_to_array(s, '\s+');
  if coalesce(array_length(fields, 1), 0) <> 5 then
    raise exception 'invalid schedule: %', $1;
  end if;
  for i in 1..5 loop
    continue when i = 3 and fields[3] = '$';
    foreach item in array string_to_array(fields[i], ',') loop
      m := regexp_match(item, '^(\*|([0-9]+|[a-z]{3})(-([0-9]+|[a-z]{3}))?)(/([0-9]+))?$');
      if m is null then
        raise exception 'invalid schedule: %', $1;
      end if;
      if m[1] <> '*' then
        a := cron._field_value(m[2], i);
        b := coalesce(cron._field_value(m[4], i), a);
        if a is null or b is null or a < lo[i] or b > hi[i] or (m[4] is not null and b < a) then
          raise exception 'invalid schedule: %', $1;
        end if;
      end if;
      if m[6] is not null and m[6]::int < 1 then
        raise exception 'invalid schedule: %', $1;
      end if;
    end loop;
  end loop;
end
$$;

-- Every change to cron.job (through the functions below or a direct UPDATE) tells the worker to
-- reload its schedule, as pg_cron's cache-invalidation trigger does.
create function cron._job_changed() returns trigger
language plpgsql as $$
begin
  perform pg_notify('cron_job_changed', '');
  return null;
end
$$;
create trigger cron_job_cache_invalidate after insert or update or delete or truncate on cron.job
  for each statement execute function cron._job_changed();

create function cron.schedule(schedule text, command text) returns bigint
language plpgsql as $$
declare
  new_jobid bigint;
begin
  perform cron._validate_schedule($1);
  insert into cron.job (schedule, command) values ($1, $2) returning jobid into new_jobid;
  return new_jobid;
end
$$;

-- Scheduling an existing name (of the same user) updates that job, as pg_cron's upsert does.
create function cron.schedule(job_name text, schedule text, command text) returns bigint
language plpgsql as $$
declare
  new_jobid bigint;
begin
  perform cron._validate_schedule($2);
  insert into cron.job (jobname, schedule, command) values ($1, $2, $3)
  on conflict on constraint jobname_username_uniq
  do update set schedule = excluded.schedule, command = excluded.command
  returning jobid into new_jobid;
  return new_jobid;
end
$$;

create function cron.schedule_in_database(
  job_name text, schedule text, command text, database text,
  username text default null, active boolean default true
) returns bigint
language plpgsql as $$
declare
  new_jobid bigint;
begin
  perform cron._validate_schedule($2);
  -- The local platform has one database; a job for another could never run.
  if $4 <> current_database() then
    raise exception 'database "%" does not exist', $4;
  end if;
  insert into cron.job (jobname, schedule, command, database, username, active)
  values ($1, $2, $3, $4, coalesce($5, current_user), $6)
  on conflict on constraint jobname_username_uniq
  do update set schedule = excluded.schedule, command = excluded.command,
                database = excluded.database, active = excluded.active
  returning jobid into new_jobid;
  return new_jobid;
end
$$;

create function cron.unschedule(job_id bigint) returns boolean
language plpgsql as $$
begin
  delete from cron.job where jobid = $1;
  if not found then
    raise exception 'could not find valid entry for job %', $1;
  end if;
  return true;
end
$$;

create function cron.unschedule(job_name text) returns boolean
language plpgsql as $$
begin
  delete from cron.job where jobname = $1 and username = current_user;
  if not found then
    raise exception 'could not find valid entry for job ''%''', $1;
  end if;
  return true;
end
$$;

create function cron.alter_job(
  job_id bigint,
  schedule text default null,
  command text default null,
  database text default null,
  username text default null,
  active boolean default null
) returns void
language plpgsql as $$
begin
  if $2 is not null then
    perform cron._validate_schedule($2);
  end if;
  if $4 is not null and $4 <> current_database() then
    raise exception 'database "%" does not exist', $4;
  end if;
  update cron.job j
     set schedule = coalesce($2, j.schedule),
         command = coalesce($3, j.command),
         database = coalesce($4, j.database),
         username = coalesce($5, j.username),
         active = coalesce($6, j.active)
   where j.jobid = $1;
  if not found then
    raise exception 'could not find valid entry for job %', $1;
  end if;
end
$$;

revoke all on all functions in schema cron from public;

-- pg_cron's own: its tables are configuration, kept by pg_dump.
select pg_catalog.pg_extension_config_dump('cron.job', '');
select pg_catalog.pg_extension_config_dump('cron.job_run_details', '');
select pg_catalog.pg_extension_config_dump('cron.jobid_seq', '');
select pg_catalog.pg_extension_config_dump('cron.runid_seq', '');

-- The API roles get nothing. postgres gets what supabase/postgres'
-- extensions.grant_pg_cron_access() gives it on `create extension pg_cron`
-- (migrations/db/migrations/20260730000000_revoke_trigger_on_cron_tables_from_postgres.sql):
-- usage on the schema, everything on its tables but TRIGGER on job_run_details, and (default
-- privileges) its functions. One difference: hosted leaves postgres only SELECT on cron.job,
-- because pg_cron's C functions write it with their own rights; these functions are SQL run
-- as the caller, so postgres keeps INSERT/UPDATE/DELETE there (RLS still limits it to its own
-- jobs).
revoke all on all functions in schema cron from public;
grant usage on schema cron to postgres with grant option;
grant all on all tables in schema cron to postgres with grant option;
grant all on all sequences in schema cron to postgres with grant option;
grant execute on all functions in schema cron to postgres with grant option;
revoke trigger on cron.job_run_details from postgres;
