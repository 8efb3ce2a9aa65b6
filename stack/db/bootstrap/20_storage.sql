-- The `storage` schema the Storage API owns on hosted Supabase: buckets, objects (their rows;
-- bytes live outside the database), the helpers storage policies call, and the search function
-- behind POST /object/list. Columns follow supabase/storage migrations/tenant (0002 and the
-- ALTERs after it) for the single-version era; the multipart-upload, analytics, vector and
-- object-versioning tables are not part of the local platform.

create schema if not exists storage;

-- Storage's 0002 grants: the API roles use the schema and everything in it; RLS decides rows.
grant usage on schema storage to anon, authenticated, service_role;
alter default privileges in schema storage grant all on tables to anon, authenticated, service_role;
alter default privileges in schema storage grant all on functions to anon, authenticated, service_role;
alter default privileges in schema storage grant all on sequences to anon, authenticated, service_role;

-- Owns the storage schema on hosted Supabase; exists so that hosted-style migrations apply.
create role supabase_storage_admin nologin noinherit createrole;
grant all on schema storage to supabase_storage_admin;

create type storage.buckettype as enum ('STANDARD', 'ANALYTICS');

create table storage.buckets (
  id text primary key,
  name text not null,
  owner uuid,
  owner_id text,
  public boolean default false,
  avif_autodetection boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  type storage.buckettype not null default 'STANDARD',
  created_at timestamptz default now(),
  updated_at timestamptz default now()
);
create unique index bname on storage.buckets using btree (name);

create table storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text constraint "objects_bucketId_fkey" references storage.buckets (id),
  name text,
  -- Deprecated: the owner's uuid. owner_id (the JWT sub, as text) replaces it.
  owner uuid,
  owner_id text,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now(),
  -- System metadata: {eTag, size, mimetype, cacheControl, lastModified, contentLength, httpStatusCode}.
  metadata jsonb,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  -- Names the stored bytes; a write switches it to new bytes in one transaction.
  version text,
  -- What the client sent as `metadata` / `x-metadata`.
  user_metadata jsonb
);
create unique index bucketid_objname on storage.objects using btree (bucket_id, name);
create index name_prefix_search on storage.objects (name text_pattern_ops);

-- No policies here: as on hosted Supabase, nothing but the service role (BYPASSRLS) and the
-- superuser can touch storage until a migration adds policies.
alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;

grant all on storage.buckets, storage.objects to anon, authenticated, service_role;

create function storage.update_updated_at_column() returns trigger
language plpgsql as $$
begin
  new.updated_at = now();
  return new;
end;
$$;

create trigger update_objects_updated_at before update on storage.objects
  for each row execute procedure storage.update_updated_at_column();

-- Path helpers for policies, as Storage defines them: foldername('a/b/c.png') = {a,b},
-- filename(...) = 'c.png', extension(...) = 'png'.
create function storage.foldername(name text) returns text[]
language plpgsql as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1:array_length(_parts, 1) - 1];
end
$$;

create function storage.filename(name text) returns text
language plpgsql as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end
$$;

create function storage.extension(name text) returns text
language plpgsql as $$
declare
  _parts text[];
  _filename text;
begin
  select string_to_array(name, '/') into _parts;
  select _parts[array_length(_parts, 1)] into _filename;
  return reverse(split_part(reverse(_filename), '.', 1));
end
$$;

-- One folder level under `prefix` (which ends in '/' or is empty): sub-folders as rows with a
-- null id, then files, matched case-insensitively on prefix || search, as Storage's search()
-- (migration 0063). Sorting by name interleaves folders and files by lower(name); sorting by a
-- timestamp lists folders (by name) first. SECURITY INVOKER: the caller sees what RLS allows.
create function storage.search(
  prefix text,
  bucketname text,
  limits int default 100,
  offsets int default 0,
  search text default '',
  sortcolumn text default 'name',
  sortorder text default 'asc'
) returns table (
  name text,
  id uuid,
  updated_at timestamptz,
  created_at timestamptz,
  last_accessed_at timestamptz,
  metadata jsonb
)
language plpgsql stable security invoker set search_path = ''
as $func$
declare
  v_column text := case lower(coalesce(sortcolumn, 'name'))
    when 'updated_at' then 'updated_at'
    when 'created_at' then 'created_at'
    when 'last_accessed_at' then 'last_accessed_at'
    else 'name' end;
  v_order text := case when lower(coalesce(sortorder, 'asc')) = 'desc' then 'desc' else 'asc' end;
  v_order_by text;
begin
  if v_column = 'name' then
    v_order_by := format('lower(items.name) collate "C" %s, items.name collate "C" %s', v_order, v_order);
  else
    v_order_by := format('items.is_file, case when not items.is_file then lower(items.name) end collate "C" %s, items.%I %s, items.name collate "C"',
      v_order, v_column, v_order);
  end if;
  return query execute format($sql$
    with matched as (
      select o.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata,
             substr(o.name, length($1) + 1) as rest
        from storage.objects o
       where o.bucket_id = $2
         and lower(left(o.name, length($1 || $3))) = lower($1 || $3)
    ),
    items as (
      select distinct split_part(m.rest, '/', 1) as name, null::uuid as id, null::timestamptz as updated_at,
             null::timestamptz as created_at, null::timestamptz as last_accessed_at, null::jsonb as metadata,
             false as is_file
        from matched m where strpos(m.rest, '/') > 0 and split_part(m.rest, '/', 1) <> ''
      union all
      select m.rest, m.id, m.updated_at, m.created_at, m.last_accessed_at, m.metadata, true
        from matched m where strpos(m.rest, '/') = 0 and m.rest <> ''
    )
    select items.name, items.id, items.updated_at, items.created_at, items.last_accessed_at, items.metadata
      from items
     order by %s
     limit $4 offset $5
  $sql$, v_order_by)
  using coalesce(prefix, ''), bucketname, coalesce(search, ''), least(coalesce(limits, 100), 1500),
        coalesce(offsets, 0);
end;
$func$;

grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text),
  storage.search(text, text, int, int, text, text, text) to anon, authenticated, service_role;
