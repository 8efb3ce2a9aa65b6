-- pgmq 1.4.4 (Supabase Queues) as the local platform emulates it (`create extension pgmq`). The
-- SQL surface follows tembo-io/pgmq 1.4.4 (pgmq-extension/sql/pgmq--1.4.4.sql and its docs): the
-- pgmq.meta table, the types message_record / queue_record / metrics_result, and the functions
-- create, create_non_partitioned, create_unlogged, drop_queue, list_queues, send, send_batch,
-- read, read_with_poll, pop, set_vt, delete, archive (one id or an array), purge_queue, metrics,
-- metrics_all, detach_archive, with the same argument names, types, defaults and result
-- columns. Each queue is two tables, pgmq.q_<name> (msg_id, read_ct, enqueued_at, vt, message)
-- and pgmq.a_<name> (the same plus archived_at), made by pgmq.create. Upstream pgmq is itself
-- SQL; what differs here:
--   - read_with_poll reads once and returns without sleeping: PGlite runs one statement at a
--     time, so no message could arrive while it waited (upstream would return the same rows
--     after max_poll_seconds);
--   - create_partitioned refuses, as upstream does without pg_partman (the local platform has
--     none).
-- Runs as the creating role (superuser = false, as upstream), so postgres owns pgmq and its
-- objects, as on hosted after Supabase's after-create script. Privileges: functions are
-- executable by PUBLIC (Postgres' default) but the schema is not usable by the API roles until
-- a migration grants it (supabase/migrations/20260221011100_enable_pgmq.sql grants service_role).

create table pgmq.meta (
  queue_name varchar unique not null,
  is_partitioned boolean not null,
  is_unlogged boolean not null,
  created_at timestamp with time zone default now() not null
);

grant usage on schema pgmq to pg_monitor;
grant select on all tables in schema pgmq to pg_monitor;
alter default privileges in schema pgmq grant select on tables to pg_monitor;
alter default privileges in schema pgmq grant select on sequences to pg_monitor;

create type pgmq.message_record as (
  msg_id bigint,
  read_ct integer,
  enqueued_at timestamp with time zone,
  vt timestamp with time zone,
  message jsonb
);

create type pgmq.queue_record as (
  queue_name varchar,
  is_partitioned boolean,
  is_unlogged boolean,
  created_at timestamp with time zone
);

create type pgmq.metrics_result as (
  queue_name text,
  queue_length bigint,
  newest_msg_age_sec int,
  oldest_msg_age_sec int,
  total_messages bigint,
  scrape_time timestamp with time zone
);

-- A queue's table name ('q' queue, 'a' archive), refusing names that could break out of it.
create function pgmq.format_table_name(queue_name text, prefix text) returns text
language plpgsql as $$
begin
  if queue_name ~ '\$|;|--|''' then
    raise exception 'queue name contains invalid characters: $, ;, --, or \''';
  end if;
  return lower(prefix || '_' || queue_name);
end
$$;

create function pgmq.validate_queue_name(queue_name text) returns void
language plpgsql as $$
begin
  if length(queue_name) >= 48 then
    raise exception 'queue name is too long, maximum length is 48 characters';
  end if;
end
$$;

create function pgmq._belongs_to_pgmq(table_name text) returns boolean
language sql as $$
  select exists (
    select 1 from pg_depend
     where refobjid = (select oid from pg_extension where extname = 'pgmq')
       and objid = (select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
                     where n.nspname = 'pgmq' and c.relname = $1)
  )
$$;

-- The two tables of a queue, its vt index, membership of the extension and the meta row.
create function pgmq._create_queue(queue_name text, unlogged boolean) returns void
language plpgsql as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  atable text := pgmq.format_table_name(queue_name, 'a');
begin
  perform pgmq.validate_queue_name(queue_name);
  execute format(
    'create %s table if not exists pgmq.%I (
       msg_id bigint primary key generated always as identity,
       read_ct int default 0 not null,
       enqueued_at timestamp with time zone default now() not null,
       vt timestamp with time zone not null,
       message jsonb)',
    case when unlogged then 'unlogged' else '' end, qtable);
  execute format(
    'create table if not exists pgmq.%I (
       msg_id bigint primary key,
       read_ct int default 0 not null,
       enqueued_at timestamp with time zone default now() not null,
       archived_at timestamp with time zone default now() not null,
       vt timestamp with time zone not null,
       message jsonb)',
    atable);
  if not pgmq._belongs_to_pgmq(qtable) then
    execute format('alter extension pgmq add table pgmq.%I', qtable);
  end if;
  if not pgmq._belongs_to_pgmq(atable) then
    execute format('alter extension pgmq add table pgmq.%I', atable);
  end if;
  execute format('create index if not exists %I on pgmq.%I (vt asc)', qtable || '_vt_idx', qtable);
  execute format('create index if not exists %I on pgmq.%I (archived_at)', 'archived_at_idx_' || queue_name,
    atable);
  insert into pgmq.meta (queue_name, is_partitioned, is_unlogged)
  values (queue_name, false, unlogged)
  on conflict do nothing;
end
$$;

create function pgmq.create_non_partitioned(queue_name text) returns void
language plpgsql as $$
begin
  perform pgmq._create_queue(queue_name, false);
end
$$;

create function pgmq.create_unlogged(queue_name text) returns void
language plpgsql as $$
begin
  perform pgmq._create_queue(queue_name, true);
end
$$;

create function pgmq.create(queue_name text) returns void
language plpgsql as $$
begin
  perform pgmq._create_queue(queue_name, false);
end
$$;

create function pgmq.create_partitioned(
  queue_name text,
  partition_interval text default '10000',
  retention_interval text default '100000'
) returns void
language plpgsql as $$
begin
  raise exception 'pg_partman is required for partitioned queues';
end
$$;

create function pgmq.drop_queue(queue_name text, partitioned boolean default false) returns boolean
language plpgsql as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  atable text := pgmq.format_table_name(queue_name, 'a');
begin
  if pgmq._belongs_to_pgmq(qtable) then
    execute format('alter extension pgmq drop table pgmq.%I', qtable);
  end if;
  if pgmq._belongs_to_pgmq(atable) then
    execute format('alter extension pgmq drop table pgmq.%I', atable);
  end if;
  execute format('drop table if exists pgmq.%I', qtable);
  execute format('drop table if exists pgmq.%I', atable);
  delete from pgmq.meta m where m.queue_name = drop_queue.queue_name;
  return true;
end
$$;

create function pgmq.list_queues() returns setof pgmq.queue_record
language sql as $$
  select queue_name, is_partitioned, is_unlogged, created_at from pgmq.meta
$$;

-- send: the message becomes visible after `delay` seconds; returns its id.
create function pgmq.send(queue_name text, msg jsonb, delay integer default 0) returns setof bigint
language plpgsql as $$
begin
  return query execute format(
    'insert into pgmq.%I (vt, message) values (clock_timestamp() + $2, $1) returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
  using msg, make_interval(secs => delay);
end
$$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], delay integer default 0) returns setof bigint
language plpgsql as $$
begin
  return query execute format(
    'insert into pgmq.%I (vt, message)
     select clock_timestamp() + $2, m from unnest($1) with ordinality as t(m, i) order by i
     returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
  using msgs, make_interval(secs => delay);
end
$$;

-- read: up to `qty` visible messages, oldest first, hidden for `vt` seconds from now (their
-- read_ct counts the reads); rows another reader holds locked are skipped.
create function pgmq.read(queue_name text, vt integer, qty integer) returns setof pgmq.message_record
language plpgsql as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
begin
  return query execute format(
    'with cte as (
       select msg_id from pgmq.%I where vt <= clock_timestamp()
        order by msg_id limit $1 for update skip locked)
     update pgmq.%I m set vt = clock_timestamp() + $2, read_ct = read_ct + 1
       from cte where m.msg_id = cte.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message',
    qtable, qtable)
  using qty, make_interval(secs => vt);
end
$$;

-- read with a filter: only messages whose body contains `conditions` (jsonb @>).
create function pgmq.read(queue_name text, vt integer, qty integer, conditions jsonb)
returns setof pgmq.message_record
language plpgsql as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
begin
  return query execute format(
    'with cte as (
       select msg_id from pgmq.%I where vt <= clock_timestamp() and ($3 is null or message @> $3)
        order by msg_id limit $1 for update skip locked)
     update pgmq.%I m set vt = clock_timestamp() + $2, read_ct = read_ct + 1
       from cte where m.msg_id = cte.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message',
    qtable, qtable)
  using qty, make_interval(secs => vt), conditions;
end
$$;

-- read_with_poll: see the header (one read, no sleep: nothing can arrive meanwhile here).
create function pgmq.read_with_poll(
  queue_name text,
  vt integer,
  qty integer,
  max_poll_seconds integer default 5,
  poll_interval_ms integer default 100
) returns setof pgmq.message_record
language sql as $$
  select * from pgmq.read(queue_name, vt, qty)
$$;

-- pop: takes the oldest visible message off the queue (read and delete in one).
create function pgmq.pop(queue_name text) returns setof pgmq.message_record
language plpgsql as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
begin
  return query execute format(
    'with cte as (
       select msg_id from pgmq.%I where vt <= clock_timestamp()
        order by msg_id limit 1 for update skip locked)
     delete from pgmq.%I m using cte where m.msg_id = cte.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message',
    qtable, qtable);
end
$$;

-- set_vt: the message becomes visible `vt` seconds from now (0: at once).
create function pgmq.set_vt(queue_name text, msg_id bigint, vt integer) returns setof pgmq.message_record
language plpgsql as $$
begin
  return query execute format(
    'update pgmq.%I m set vt = clock_timestamp() + $2 where m.msg_id = $1
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message',
    pgmq.format_table_name(queue_name, 'q'))
  using msg_id, make_interval(secs => vt);
end
$$;

create function pgmq.delete(queue_name text, msg_id bigint) returns boolean
language plpgsql as $$
declare
  deleted bigint;
begin
  execute format('delete from pgmq.%I where msg_id = $1 returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
  into deleted using msg_id;
  return deleted is not null;
end
$$;

create function pgmq.delete(queue_name text, msg_ids bigint[]) returns setof bigint
language plpgsql as $$
begin
  return query execute format('delete from pgmq.%I where msg_id = any($1) returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
  using msg_ids;
end
$$;

-- archive: moves messages from q_<name> to a_<name> (archived_at = now).
create function pgmq.archive(queue_name text, msg_ids bigint[]) returns setof bigint
language plpgsql as $$
begin
  return query execute format(
    'with archived as (
       delete from pgmq.%I where msg_id = any($1)
       returning msg_id, vt, read_ct, enqueued_at, message)
     insert into pgmq.%I (msg_id, vt, read_ct, enqueued_at, message)
     select msg_id, vt, read_ct, enqueued_at, message from archived
     returning msg_id',
    pgmq.format_table_name(queue_name, 'q'), pgmq.format_table_name(queue_name, 'a'))
  using msg_ids;
end
$$;

create function pgmq.archive(queue_name text, msg_id bigint) returns boolean
language sql as $$
  select exists (select 1 from pgmq.archive(queue_name, array[msg_id]))
$$;

create function pgmq.purge_queue(queue_name text) returns bigint
language plpgsql as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  n bigint;
begin
  execute format('select count(*) from pgmq.%I', qtable) into n;
  execute format('truncate table pgmq.%I', qtable);
  return n;
end
$$;

-- metrics: messages waiting (visible or not), the newest and oldest one's age in seconds, and
-- the messages ever sent (the msg_id sequence's position).
create function pgmq.metrics(queue_name text) returns pgmq.metrics_result
language plpgsql as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  result pgmq.metrics_result;
begin
  execute format(
    'select $1::text, count(*),
            extract(epoch from (now() - max(enqueued_at)))::int,
            extract(epoch from (now() - min(enqueued_at)))::int,
            (select case when is_called then last_value else 0 end from %s),
            now()
       from pgmq.%I',
    pg_get_serial_sequence(format('pgmq.%I', qtable), 'msg_id'), qtable)
  into result using queue_name;
  return result;
end
$$;

create function pgmq.metrics_all() returns setof pgmq.metrics_result
language sql as $$
  select (pgmq.metrics(m.queue_name)).* from pgmq.meta m
$$;

-- Keeps the archive table when the queue is dropped.
create function pgmq.detach_archive(queue_name text) returns void
language plpgsql as $$
begin
  execute format('alter extension pgmq drop table pgmq.%I', pgmq.format_table_name(queue_name, 'a'));
end
$$;

-- pgmq's own configuration: queues made later are dumped with their tables (members).
select pg_catalog.pg_extension_config_dump('pgmq.meta', '');
