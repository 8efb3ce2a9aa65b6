-- merge_products: folds source products into a target in one transaction, writing a
-- product_merge_history record from which undo_merge restores everything.
--
-- Rules.
-- 1. Fields. For every column of products except id, workspace_id, created_by, created_at and
--    updated_at: a target value that is not empty is kept; an empty one (null, blank text, [] or
--    {}) takes the first non-empty value among the sources, in p_sources order. JSON objects
--    (metadata) are merged key by key with the same rule one level down: the target's
--    non-empty keys win, then the sources' in order.
-- 2. Relationships. Every foreign key that references public.products (id), in any table, found
--    in pg_catalog at call time so that tables added later are covered, is re-pointed from the
--    sources to the target, row by row; each moved row and every column the move changed (the
--    reference and whatever triggers set, e.g. updated_at) is recorded for undo. A foreign key
--    may also carry workspace_id (products_id_workspace_key); sources and target share it.
-- 3. Collisions. A row that cannot point at the target - it would be a second row for the
--    target in a unique key such as (workspace_id, product_id), or it breaks a check such as
--    "not related to itself" - is deleted and its full row recorded; the target's own row wins,
--    and among sources the earlier in p_sources wins. If other rows reference that row, the
--    merge is refused (PT409) rather than cascade into rows it does not track.
-- 4. Detections. duplicate_detection_cache rows that involve a source describe that product,
--    not the target, so they are recorded and deleted rather than moved.
-- 5. Sources are deleted; a source still referenced at that point (a foreign key shape the
--    merge cannot move, e.g. one to a column other than id) refuses the merge (PT409).
-- 6. The record: merged_by is auth.uid() (null for the service role); similarity_score is
--    p_similarity or else the best cached detection of the target with a source; p_strategy
--    (manual, auto, suggested) says who decided and does not change what the merge does.
--
-- Errors: bad arguments 22023 (400); a target or source the caller cannot see, or a source in
-- another workspace, PT404; members without the owner or admin role 42501 (403).

-- Owners and admins of the workspace (and the service role) may merge and undo. Outsiders get
-- PT404, as if the products did not exist, so ids of other workspaces reveal nothing.
create function duplicates_private.require_merge_role(p_workspace uuid, p_what text) returns void
language plpgsql stable set search_path = '' as $$
begin
  if coalesce(auth.role(), '') = 'service_role' then
    return;
  end if;
  if not public.is_workspace_member(p_workspace) then
    raise exception '% not found', p_what using errcode = 'PT404';
  end if;
  if not public.is_workspace_admin(p_workspace) then
    raise exception 'merging products needs the owner or admin role in the workspace' using errcode = '42501';
  end if;
end $$;

create function duplicates_private.is_empty(p_value jsonb) returns boolean
language sql immutable set search_path = '' as $$
  select p_value is null or p_value = 'null'::jsonb or p_value = '[]'::jsonb or p_value = '{}'::jsonb
      or (jsonb_typeof(p_value) = 'string' and btrim(p_value #>> '{}') = '')
$$;

-- Rule 1 one level down: the object p_target merged with the values in p_sources (an array, one
-- per source; non-objects contribute nothing).
create function duplicates_private.merge_objects(p_target jsonb, p_sources jsonb) returns jsonb
language sql immutable set search_path = '' as $$
  select coalesce(jsonb_object_agg(m.key, m.value), '{}'::jsonb)
    from (
      select distinct on (e.key) e.key, e.value
        from (select p_target as obj, 0::bigint as rank
              union all
              select s.value, s.ord from jsonb_array_elements(p_sources) with ordinality as s(value, ord)) x
        cross join lateral jsonb_each(case when jsonb_typeof(x.obj) = 'object' then x.obj else '{}'::jsonb end) e
       order by e.key, duplicates_private.is_empty(e.value), x.rank
    ) m
$$;

-- Rule 1: the merged target row image, from the target's and the sources' row images.
create function duplicates_private.merged_fields(p_target jsonb, p_sources jsonb) returns jsonb
language sql immutable set search_path = '' as $$
  select jsonb_object_agg(t.key, case
      when t.key in ('id', 'workspace_id', 'created_by', 'created_at', 'updated_at') then t.value
      when jsonb_typeof(t.value) = 'object' then duplicates_private.merge_objects(t.value,
        (select jsonb_agg(s.value -> t.key order by s.ord)
           from jsonb_array_elements(p_sources) with ordinality as s(value, ord)))
      when duplicates_private.is_empty(t.value) then coalesce(
        (select s.value -> t.key from jsonb_array_elements(p_sources) with ordinality as s(value, ord)
          where not duplicates_private.is_empty(s.value -> t.key) order by s.ord limit 1),
        t.value)
      else t.value end)
    from jsonb_each(p_target) t
$$;

-- The column of a foreign key that references products.id, when the rest of the key is
-- workspace_id (which source and target share); null for shapes a merge cannot re-point.
create function duplicates_private.product_reference_column(p_constraint oid) returns text
language sql stable set search_path = '' as $$
  select max(a.attname::text) filter (where fa.attname = 'id')
    from pg_catalog.pg_constraint con
    cross join lateral unnest(con.conkey, con.confkey) as k(attnum, fattnum)
    join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
    join pg_catalog.pg_attribute fa on fa.attrelid = con.confrelid and fa.attnum = k.fattnum
   where con.oid = p_constraint
  having bool_and(fa.attname in ('id', 'workspace_id')) and count(*) filter (where fa.attname = 'id') = 1
$$;

-- Moves and removals share one sequence (seq), so undo can replay them newest first.
create function duplicates_private.next_seq(p_moved jsonb, p_removed jsonb) returns integer
language sql immutable set search_path = '' as $$
  select jsonb_array_length(p_moved) + jsonb_array_length(p_removed)
$$;

-- Rules 2 and 3 for one foreign-key column: appends to moved / removed.
create function duplicates_private.move_references(
  p_table regclass, p_column text, p_sources uuid[], p_target uuid,
  inout moved jsonb, inout removed jsonb
)
language plpgsql set search_path = '' as $$
declare
  v_keys jsonb;
  v_key jsonb;
  v_old jsonb;
  v_new jsonb;
begin
  execute format('select coalesce(jsonb_agg(to_jsonb(t) order by pg_catalog.array_position($1, t.%1$I), to_jsonb(t)), ''[]'')
                    from (select * from %2$s where %1$I = any($1) for update) t', p_column, p_table)
    into v_keys using p_sources;
  for v_key in select duplicates_private.key_of(p_table, r.value) from jsonb_array_elements(v_keys) r loop
    -- Re-read: a trigger fired by an earlier move may have changed or removed this row.
    v_old := duplicates_private.fetch_row(p_table, v_key);
    continue when v_old is null or not ((v_old ->> p_column)::uuid = any (p_sources));
    begin
      execute format('update %s t set %I = $2 where %s', p_table, p_column, duplicates_private.key_match(p_table))
        using v_key, p_target;
      v_new := duplicates_private.fetch_row(p_table, v_key);
      moved := moved || jsonb_build_array(
        jsonb_build_object('seq', duplicates_private.next_seq(moved, removed), 'table', p_table::text,
          'column', p_column, 'key', v_key)
        || duplicates_private.row_diff(v_old, v_new));
    exception when unique_violation or exclusion_violation or check_violation then
      if duplicates_private.is_referenced(p_table, v_old) then
        raise exception 'cannot merge: a row of % (key %) would duplicate one of the target''s, and other rows reference it',
          p_table, v_key using errcode = 'PT409';
      end if;
      execute format('delete from %s t where %s', p_table, duplicates_private.key_match(p_table)) using v_key;
      removed := removed || jsonb_build_array(
        jsonb_build_object('seq', duplicates_private.next_seq(moved, removed), 'table', p_table::text, 'row', v_old));
    end;
  end loop;
end $$;

create function public.merge_products(
  p_target uuid, p_sources uuid[], p_strategy text default 'manual', p_reason text default null,
  p_similarity double precision default null
) returns public.product_merge_history
language plpgsql security definer set search_path = '' as $$
declare
  v_target public.products;
  v_sources jsonb;
  v_missing uuid[];
  v_similarity double precision;
  v_moved jsonb := '[]'::jsonb;
  v_removed jsonb := '[]'::jsonb;
  v_fk record;
  v_column text;
  v_merged jsonb;
  v_cols text[];
  v_after public.products;
  v_history public.product_merge_history;
begin
  if p_target is null or p_sources is null or cardinality(p_sources) = 0 or array_position(p_sources, null) is not null then
    raise exception 'a target and at least one source product id are required' using errcode = '22023';
  end if;
  if p_target = any (p_sources) then
    raise exception 'the target % cannot also be a source', p_target using errcode = '22023';
  end if;
  if (select count(distinct s) from unnest(p_sources) s) <> cardinality(p_sources) then
    raise exception 'source product ids must be distinct' using errcode = '22023';
  end if;
  if p_strategy is null or p_strategy not in ('manual', 'auto', 'suggested') then
    raise exception 'merge_strategy must be manual, auto or suggested; got %', coalesce(p_strategy, 'null')
      using errcode = '22023';
  end if;
  if p_similarity is not null and not (p_similarity between 0 and 1) then
    raise exception 'similarity_score must be between 0 and 1; got %', p_similarity using errcode = '22023';
  end if;

  -- Lock every product involved, in id order so that concurrent merges cannot deadlock; a second
  -- merge of the same source waits here and then finds it gone.
  perform 1 from public.products where id = p_target or id = any (p_sources) order by id for update;
  select * into v_target from public.products where id = p_target;
  if not found then
    raise exception 'product % not found', p_target using errcode = 'PT404';
  end if;
  perform duplicates_private.require_merge_role(v_target.workspace_id, format('product %s', p_target));

  select coalesce(jsonb_agg(to_jsonb(p) order by s.ord), '[]'::jsonb) into v_sources
    from unnest(p_sources) with ordinality as s(id, ord)
    join public.products p on p.id = s.id and p.workspace_id = v_target.workspace_id;
  if jsonb_array_length(v_sources) <> cardinality(p_sources) then
    select array_agg(s) into v_missing from unnest(p_sources) s
     where not exists (select 1 from jsonb_array_elements(v_sources) x where (x.value ->> 'id')::uuid = s);
    raise exception 'source products not found in the target''s workspace: %', v_missing using errcode = 'PT404';
  end if;

  -- Rule 4, after taking the pair's score when the caller gave none.
  v_similarity := coalesce(p_similarity, (
    select max(c.overall_similarity_score) from public.duplicate_detection_cache c
     where c.workspace_id = v_target.workspace_id
       and ((c.product_id_1 = p_target and c.product_id_2 = any (p_sources))
         or (c.product_id_2 = p_target and c.product_id_1 = any (p_sources)))));
  with gone as (
    delete from public.duplicate_detection_cache c
     where c.workspace_id = v_target.workspace_id
       and (c.product_id_1 = any (p_sources) or c.product_id_2 = any (p_sources))
    returning c.*
  )
  select coalesce(jsonb_agg(jsonb_build_object('seq', g.seq, 'table', 'public.duplicate_detection_cache', 'row', g.r)
                            order by g.seq), '[]'::jsonb)
    into v_removed
    from (select row_number() over (order by gone.id) - 1 as seq, to_jsonb(gone) as r from gone) g;

  -- Rules 2 and 3.
  for v_fk in
    select con.oid, con.conrelid::regclass as tbl from pg_catalog.pg_constraint con
     where con.contype = 'f' and con.confrelid = 'public.products'::regclass
       and con.conparentid = 0 -- a partitioned table's key once, not again per partition
       and con.conrelid <> 'public.duplicate_detection_cache'::regclass
     order by con.conrelid::regclass::text, con.conname
  loop
    v_column := duplicates_private.product_reference_column(v_fk.oid);
    continue when v_column is null;
    select m.moved, m.removed into v_moved, v_removed
      from duplicates_private.move_references(v_fk.tbl, v_column, p_sources, p_target, v_moved, v_removed) m;
  end loop;

  -- Rule 5.
  if exists (select 1 from jsonb_array_elements(v_sources) s
              where duplicates_private.is_referenced('public.products', s.value)) then
    raise exception 'cannot merge: a source product is still referenced through a foreign key merge cannot re-point'
      using errcode = 'PT409';
  end if;
  delete from public.products where id = any (p_sources);

  -- Rule 1, on the target as the moves left it; after the delete, so a value the target takes
  -- over from a source (e.g. its sku) no longer collides with the source's.
  v_merged := duplicates_private.merged_fields(
    (select to_jsonb(p) from public.products p where p.id = p_target), v_sources);
  select array_agg(c) into v_cols from unnest(duplicates_private.writable_columns('public.products')) c
   where c not in ('id', 'workspace_id', 'created_by', 'created_at', 'updated_at');
  execute format('update public.products t set (%s) = (select %s from pg_catalog.jsonb_populate_record(null::public.products, $1) v) where t.id = $2 returning t.*',
    (select string_agg(quote_ident(c), ', ') from unnest(v_cols) c),
    (select string_agg('v.' || quote_ident(c), ', ') from unnest(v_cols) c))
    into v_after using v_merged, p_target;

  insert into public.product_merge_history (
    workspace_id, merged_by, source_product_ids, source_product_names, target_product_id, target_product_name,
    similarity_score, merge_reason, merge_strategy, source_products_snapshot, target_product_before_merge,
    target_product_after_merge, moved_relationships, removed_rows
  ) values (
    v_target.workspace_id, auth.uid(), p_sources,
    (select array_agg(s.value ->> 'name' order by s.ord) from jsonb_array_elements(v_sources) with ordinality as s(value, ord)),
    p_target, v_after.name, v_similarity, p_reason, p_strategy, v_sources, to_jsonb(v_target),
    to_jsonb(v_after), v_moved, v_removed
  ) returning * into v_history;
  return v_history;
end $$;

revoke execute on all functions in schema duplicates_private from public, anon, authenticated, service_role;
revoke execute on function public.merge_products(uuid, uuid[], text, text, double precision) from public, anon;
grant execute on function public.merge_products(uuid, uuid[], text, text, double precision) to authenticated, service_role;
