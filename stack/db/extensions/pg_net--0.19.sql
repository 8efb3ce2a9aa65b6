-- pg_net as the local platform emulates it (`create extension pg_net`). Tables, types and
-- function signatures follow supabase/pg_net (sql/pg_net.sql and its upgrade scripts); what
-- pg_net's background worker does in C (send the queued requests, record the responses) is
-- stack/net/worker.ts, woken by net.wake()'s NOTIFY, delivered on commit only: a rolled-back
-- request is never sent. Runs as the superuser (trusted, as supautils runs privileged
-- extensions); the grants at the end are those of hosted's grant_pg_net_access event trigger.

create schema net;

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

