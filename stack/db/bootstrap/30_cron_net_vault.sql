-- pg_cron, pg_net and Vault as hosted Supabase provides them, so that migrations scheduling jobs
-- (cron.schedule + net.http_post with URL and key from vault.decrypted_secrets) apply unchanged.
-- Tables, columns, function signatures and error texts follow citusdata/pg_cron 1.6,
-- supabase/pg_net (sql/pg_net.sql and its upgrade scripts) and supabase/vault 0.3. What the
-- extensions do in C is done by the platform's workers (stack/cron, stack/net), which the
-- NOTIFYs below wake up: NOTIFY is delivered on commit only, so a rolled-back transaction never
-- runs a job change or sends a request.

------------------------------------------------------------------------------------------------
-- pg_cron
------------------------------------------------------------------------------------------------
create schema if not exists cron;

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

-- As on hosted Supabase: cron belongs to postgres; the API roles get nothing.
revoke all on all functions in schema cron from public;

------------------------------------------------------------------------------------------------
-- pg_net
------------------------------------------------------------------------------------------------
create schema if not exists net;

create domain net.http_method as text
  check (value ilike 'get' or value ilike 'post' or value ilike 'delete');

-- Requests waiting for the worker, which deletes each row as it takes it (one attempt each).
create unlogged table net.http_request_queue (
  id bigserial,
  method net.http_method not null,
  url text not null,
  headers jsonb not null,
  body bytea,
  timeout_milliseconds integer not null
);

-- Responses, and failures (error_msg) of requests that got none; purged after pg_net.ttl.
create unlogged table net._http_response (
  id bigint,
  status_code integer,
  content_type text,
  headers jsonb,
  content text,
  timed_out boolean,
  error_msg text,
  created timestamptz not null default now()
);
create index on net._http_response (created);

create type net.request_status as enum ('PENDING', 'SUCCESS', 'ERROR');
create type net.http_response as (status_code integer, headers jsonb, body text);
create type net.http_response_result as (
  status net.request_status,
  message text,
  response net.http_response
);

-- Percent-encodes everything outside RFC 3986's unreserved set (pg_net does it in C with curl).
create function net._urlencode_string(string varchar) returns text
language sql immutable strict as $$
  select coalesce(string_agg(
    case when ch ~ '^[A-Za-z0-9_.~-]$' then ch
         else upper(regexp_replace(encode(convert_to(ch, 'UTF8'), 'hex'), '(..)', '%\1', 'g'))
    end, '' order by ord), '')
  from regexp_split_to_table($1, '') with ordinality as t(ch, ord)
$$;

create function net._encode_url_with_params_array(url text, params_array text[]) returns text
language sql immutable strict as $$
  select case
    when cardinality($2) = 0 then $1
    else $1 || case when position('?' in $1) > 0 then '&' else '?' end || array_to_string($2, '&')
  end
$$;

-- Wakes the worker. The notification reaches it when the calling transaction commits.
-- The request URL with `params` appended as an encoded query string (one place for all three
-- http_* functions).
create function net._url_with_params(url text, params jsonb) returns text
language sql immutable set search_path = '' as $$
  select net._encode_url_with_params_array(url, coalesce((
    select array_agg(net._urlencode_string(key) || '=' || net._urlencode_string(value))
      from jsonb_each_text(coalesce(params, '{}'::jsonb))
  ), '{}'))
$$;

create function net.wake() returns void
language sql as $$
  select pg_notify('pg_net_wake', '')
$$;

create function net.http_get(
  url text,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{}'::jsonb,
  timeout_milliseconds integer default 5000
) returns bigint
language plpgsql strict security definer set search_path = '' as $$
declare
  request_id bigint;
begin
  insert into net.http_request_queue (method, url, headers, timeout_milliseconds)
  values ('GET', net._url_with_params($1, $2), $3, $4)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$$;

create function net.http_post(
  url text,
  body jsonb default '{}'::jsonb,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
  timeout_milliseconds integer default 5000
) returns bigint
language plpgsql security definer set search_path = '' as $$
declare
  request_id bigint;
  content_type text;
  request_headers jsonb := coalesce($4, '{}'::jsonb);
begin
  select header_value into content_type
    from jsonb_each_text(request_headers) as h(header_name, header_value)
   where lower(header_name) = 'content-type'
   limit 1;
  if content_type is null then
    request_headers := request_headers || '{"Content-Type": "application/json"}'::jsonb;
  elsif content_type <> 'application/json' then
    raise exception 'Content-Type header must be "application/json"';
  end if;
  if $2 is null then
    raise exception 'body must not be null';
  end if;
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('POST', net._url_with_params($1, $3), request_headers,
          convert_to($2::text, 'UTF8'), $5)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$$;

create function net.http_delete(
  url text,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{}'::jsonb,
  timeout_milliseconds integer default 5000,
  body jsonb default null
) returns bigint
language plpgsql security definer set search_path = '' as $$
declare
  request_id bigint;
begin
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('DELETE', net._url_with_params($1, $2), coalesce($3, '{}'::jsonb),
          convert_to($5::text, 'UTF8'), $4)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$$;

create function net._http_collect_response(request_id bigint, async boolean default true)
returns net.http_response_result
language plpgsql strict security definer set search_path = '' as $$
declare
  rec net._http_response;
begin
  select * into rec from net._http_response r where r.id = $1;
  -- pg_net's async := false polls with pg_sleep until the worker has written the response. On
  -- a single-connection database the worker could never write while this statement waits, so
  -- refuse loudly instead of hanging.
  if rec is null and not $2 then
    raise exception 'net._http_collect_response(async := false) cannot wait on the local platform'
      using hint = 'poll with async := true from a later transaction';
  end if;
  if rec is null or rec.error_msg is not null then
    return ('ERROR', coalesce(rec.error_msg, 'request matching request_id not found'), null)
      ::net.http_response_result;
  end if;
  return ('SUCCESS', 'ok', (rec.status_code, rec.headers, rec.content)::net.http_response)
    ::net.http_response_result;
end
$$;

-- Supabase's grant_pg_net_access: the API roles may queue requests (the functions are SECURITY
-- DEFINER) but cannot read the queue or the responses.
revoke all on all functions in schema net from public;
grant usage on schema net to postgres, anon, authenticated, service_role;
grant execute on function
  net.http_get(text, jsonb, jsonb, integer),
  net.http_post(text, jsonb, jsonb, jsonb, integer),
  net.http_delete(text, jsonb, jsonb, integer, jsonb)
  to postgres, anon, authenticated, service_role;

------------------------------------------------------------------------------------------------
-- Vault
------------------------------------------------------------------------------------------------
create schema if not exists vault;

-- The key secrets are encrypted with. Hosted Vault keeps its root key outside the database
-- (pgsodium's server key); here it is a row only the superuser can read, so a dump or a SELECT
-- of vault.secrets alone reveals nothing.
create table vault._root_key (
  id boolean primary key default true check (id),
  key text not null default encode(extensions.gen_random_bytes(32), 'base64')
);
insert into vault._root_key default values;
revoke all on vault._root_key from public;

create table vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text,
  description text not null default '',
  -- base64 of pgp_sym_encrypt(secret, root key): random salt and IV per write.
  secret text not null,
  key_id uuid,
  nonce bytea default extensions.gen_random_bytes(16),
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp
);
create unique index secrets_name_idx on vault.secrets (name) where name is not null;

create function vault._encrypt(plaintext text) returns text
language sql volatile security definer set search_path = '' as $$
  select encode(extensions.pgp_sym_encrypt($1, k.key, 'cipher-algo=aes256'), 'base64')
    from vault._root_key k
$$;

create function vault.create_secret(
  new_secret text,
  new_name text default null,
  new_description text default '',
  new_key_id uuid default null
) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  new_id uuid;
begin
  insert into vault.secrets (secret, name, description, key_id)
  values (vault._encrypt($1), $2, coalesce($3, ''), $4)
  returning id into new_id;
  return new_id;
end
$$;

create function vault.update_secret(
  secret_id uuid,
  new_secret text default null,
  new_name text default null,
  new_description text default null,
  new_key_id uuid default null
) returns void
language plpgsql security definer set search_path = '' as $$
begin
  update vault.secrets s
     set secret = coalesce(vault._encrypt($2), s.secret),
         name = coalesce($3, s.name),
         description = coalesce($4, s.description),
         key_id = coalesce($5, s.key_id),
         updated_at = now()
   where s.id = $1;
end
$$;

-- Runs with its owner's (the superuser's) rights, so it can read the root key; who may read
-- the view itself is decided by the grants below.
create view vault.decrypted_secrets as
select s.id, s.name, s.description, s.secret,
       extensions.pgp_sym_decrypt(decode(s.secret, 'base64'), k.key) as decrypted_secret,
       s.key_id, s.nonce, s.created_at, s.updated_at
  from vault.secrets s
 cross join vault._root_key k;

-- Only privileged roles: postgres (owner) and service_role. anon and authenticated have no
-- usage on the schema, so every object in it is refused to them.
revoke all on all functions in schema vault from public;
revoke all on vault.secrets, vault.decrypted_secrets from public;
grant usage on schema vault to service_role;
grant select on vault.secrets, vault.decrypted_secrets to service_role;
grant execute on function
  vault.create_secret(text, text, text, uuid),
  vault.update_secret(uuid, text, text, text, uuid)
  to service_role;
