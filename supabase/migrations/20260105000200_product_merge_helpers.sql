-- Generic row plumbing for merge_products and undo_merge: they handle rows of tables they do not
-- know (every table with a foreign key to products, including tables added later), so rows
-- travel as jsonb (to_jsonb / jsonb_populate_record) and are addressed by their primary key.
--
-- The schema is not exposed by PostgREST and nobody but its owner may use it: these functions
-- run only inside the SECURITY DEFINER functions, which authorise the caller first.
create schema duplicates_private;
revoke all on schema duplicates_private from public, anon, authenticated, service_role;

-- The table's primary-key columns in key order; null when it has none.
create function duplicates_private.primary_key(p_table regclass) returns text[]
language sql stable set search_path = '' as $$
  select array_agg(a.attname::text order by k.ord)
    from pg_catalog.pg_index i
    cross join lateral unnest(i.indkey::int2[]) with ordinality as k(attnum, ord)
    join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
   where i.indrelid = p_table and i.indisprimary
$$;

-- Columns an insert or update may set: generated columns recompute themselves.
create function duplicates_private.writable_columns(p_table regclass) returns text[]
language sql stable set search_path = '' as $$
  select coalesce(array_agg(a.attname::text order by a.attnum), '{}')
    from pg_catalog.pg_attribute a
   where a.attrelid = p_table and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
$$;

-- "(t.a, t.b) = (select k.a, k.b from jsonb_populate_record(null::tbl, $1) k)": the row of alias
-- t whose primary key is in the jsonb object $1. Going through the row type casts every key
-- column from its JSON text exactly as an insert would.
create function duplicates_private.key_match(p_table regclass) returns text
language plpgsql stable set search_path = '' as $$
declare
  v_pk text[] := duplicates_private.primary_key(p_table);
begin
  if v_pk is null then
    raise exception 'table % has no primary key, so merge cannot record which rows it moved', p_table
      using errcode = '55000';
  end if;
  return format('(%s) = (select %s from pg_catalog.jsonb_populate_record(null::%s, $1) k)',
    (select string_agg('t.' || quote_ident(c), ', ') from unnest(v_pk) c),
    (select string_agg('k.' || quote_ident(c), ', ') from unnest(v_pk) c),
    p_table);
end $$;

-- {pk column: value} of a row image.
create function duplicates_private.key_of(p_table regclass, p_row jsonb) returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_object_agg(c, p_row -> c) from unnest(duplicates_private.primary_key(p_table)) c
$$;

-- Inserts row images (a jsonb array of to_jsonb rows of one table) in one statement, so rows
-- referencing each other pass their foreign-key checks, which run at the end of the statement.
-- Only the keys present are inserted: a column added since the snapshot gets its default.
-- OVERRIDING SYSTEM VALUE keeps the original ids of identity columns.
create function duplicates_private.insert_rows(p_table regclass, p_rows jsonb) returns void
language plpgsql set search_path = '' as $$
declare
  v_cols text[];
begin
  if jsonb_array_length(p_rows) = 0 then
    return;
  end if;
  select array_agg(c order by ord) into v_cols
    from unnest(duplicates_private.writable_columns(p_table)) with ordinality as w(c, ord)
   where p_rows -> 0 ? c;
  execute format('insert into %s (%s) overriding system value select %s from pg_catalog.jsonb_populate_recordset(null::%s, $1) k',
    p_table,
    (select string_agg(quote_ident(c), ', ') from unnest(v_cols) c),
    (select string_agg('k.' || quote_ident(c), ', ') from unnest(v_cols) c),
    p_table)
  using p_rows;
end $$;

-- Sets the columns named in p_values (an object of column -> value) on the row with key p_key.
create function duplicates_private.set_columns(p_table regclass, p_key jsonb, p_values jsonb) returns void
language plpgsql set search_path = '' as $$
declare
  v_cols text[];
begin
  select array_agg(c) into v_cols
    from unnest(duplicates_private.writable_columns(p_table)) c where p_values ? c;
  if v_cols is null then
    return;
  end if;
  execute format('update %s t set (%s) = (select %s from pg_catalog.jsonb_populate_record(null::%s, $2) v) where %s',
    p_table,
    (select string_agg(quote_ident(c), ', ') from unnest(v_cols) c),
    (select string_agg('v.' || quote_ident(c), ', ') from unnest(v_cols) c),
    p_table,
    duplicates_private.key_match(p_table))
  using p_key, p_values;
end $$;

-- The row image of the row with key p_key, or null when it is gone.
create function duplicates_private.fetch_row(p_table regclass, p_key jsonb, p_lock boolean default false)
returns jsonb
language plpgsql set search_path = '' as $$
declare
  v_row jsonb;
begin
  execute format('select to_jsonb(t) from %s t where %s%s', p_table, duplicates_private.key_match(p_table),
    case when p_lock then ' for update' else '' end)
    into v_row using p_key;
  return v_row;
end $$;

-- True when some row of any table references this row through a foreign key. Deleting such a
-- row would cascade to (or be blocked by) rows merge does not track, so merge refuses instead.
create function duplicates_private.is_referenced(p_table regclass, p_row jsonb) returns boolean
language plpgsql stable set search_path = '' as $$
declare
  v_fk record;
  v_hit boolean;
begin
  for v_fk in
    select con.conrelid::regclass as tbl,
           (select string_agg('r.' || quote_ident(a.attname), ', ' order by k.ord)
              from unnest(con.conkey) with ordinality as k(attnum, ord)
              join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum) as ref_cols,
           (select string_agg('k.' || quote_ident(a.attname), ', ' order by k.ord)
              from unnest(con.confkey) with ordinality as k(attnum, ord)
              join pg_catalog.pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum) as key_cols
      from pg_catalog.pg_constraint con
     where con.contype = 'f' and con.confrelid = p_table
  loop
    execute format('select exists (select 1 from %s r, pg_catalog.jsonb_populate_record(null::%s, $1) k where (%s) = (%s))',
      v_fk.tbl, p_table, v_fk.ref_cols, v_fk.key_cols)
      into v_hit using p_row;
    if v_hit then
      return true;
    end if;
  end loop;
  return false;
end $$;

-- The columns of p_old that differ in p_new, as {old: {...}, new: {...}}.
create function duplicates_private.row_diff(p_old jsonb, p_new jsonb) returns jsonb
language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'old', coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb),
    'new', coalesce(jsonb_object_agg(e.key, p_new -> e.key), '{}'::jsonb))
    from jsonb_each(p_old) e
   where p_new -> e.key is distinct from e.value
$$;

revoke execute on all functions in schema duplicates_private from public, anon, authenticated, service_role;
