-- Merge and undo, exact to the row (issue: "Merge and undo").
--
-- 1. A moved row whose primary key contains the product reference (product_prices is keyed by
--    (workspace_id, product_id)) is recorded under the key it has AFTER the move, so undo finds
--    it and puts the source's id back; before, undo looked it up under the old key, found
--    nothing, and the source's price stayed on the target.
-- 2. The merged pair's duplicate_detection_cache row, (target, source), is kept with the spec's
--    status `merged` instead of being deleted with the source; undo restores its old status.
--    A cache row may therefore name a product that was merged away, so the two foreign keys to
--    products become triggers with the same guarantees for every other row: both products
--    exist in the row's workspace when the pair is written (23503 as before), and deleting a
--    product deletes its pairs, except a `merged` pair whose other product still exists (the
--    target), which is the merge's record. Other pairs of a source go as before (recorded for
--    undo).

-- ---- 1 ----
create or replace function duplicates_private.move_references(
  p_table regclass, p_column text, p_sources uuid[], p_target uuid,
  inout moved jsonb, inout removed jsonb
)
language plpgsql set search_path = '' as $$
declare
  v_keys jsonb;
  v_key jsonb;
  v_new_key jsonb;
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
      -- The key the row has now: the same, unless the reference is part of it.
      v_new_key := duplicates_private.key_of(p_table, v_old || jsonb_build_object(p_column, p_target));
      v_new := duplicates_private.fetch_row(p_table, v_new_key);
      moved := moved || jsonb_build_array(
        jsonb_build_object('seq', duplicates_private.next_seq(moved, removed), 'table', p_table::text,
          'column', p_column, 'key', v_new_key)
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

-- ---- 2: the cache's product references as triggers ----
alter table public.duplicate_detection_cache
  drop constraint duplicate_detection_cache_product_id_1_workspace_id_fkey,
  drop constraint duplicate_detection_cache_product_id_2_workspace_id_fkey;

-- Both products of a pair exist in the row's workspace (what the foreign keys checked).
create function duplicates_private.check_detection_products() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select count(*) from public.products p
       where p.workspace_id = new.workspace_id and p.id in (new.product_id_1, new.product_id_2)) <> 2 then
    raise exception 'duplicate detection names a product that is not in workspace %', new.workspace_id
      using errcode = '23503';
  end if;
  return new;
end $$;
create trigger duplicate_detection_cache_products
  before insert or update of workspace_id, product_id_1, product_id_2 on public.duplicate_detection_cache
  for each row execute function duplicates_private.check_detection_products();

-- A deleted product takes its pairs along (the old on delete cascade), except a merged pair whose
-- other product still exists: that is the record of a merge into that product.
create function duplicates_private.drop_product_detections() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from public.duplicate_detection_cache c
   where c.workspace_id = old.workspace_id
     and (c.product_id_1 = old.id or c.product_id_2 = old.id)
     and (c.status <> 'merged' or not exists (
       select 1 from public.products p
        where p.id = case when c.product_id_1 = old.id then c.product_id_2 else c.product_id_1 end));
  return null;
end $$;
create trigger products_drop_detections after delete on public.products
  for each row execute function duplicates_private.drop_product_detections();

revoke execute on function duplicates_private.check_detection_products() from public, anon, authenticated;
revoke execute on function duplicates_private.drop_product_detections() from public, anon, authenticated;

-- ---- 2: merge_products keeps the merged pair (rule 4) ----
create or replace function public.merge_products(
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
  v_pair record;
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

  -- Rule 4, after taking the pair's score when the caller gave none: the source's pairs with
  -- other products go (recorded for undo); the merged pairs stay, marked merged.
  v_similarity := coalesce(p_similarity, (
    select max(c.overall_similarity_score) from public.duplicate_detection_cache c
     where c.workspace_id = v_target.workspace_id
       and ((c.product_id_1 = p_target and c.product_id_2 = any (p_sources))
         or (c.product_id_2 = p_target and c.product_id_1 = any (p_sources)))));
  with gone as (
    delete from public.duplicate_detection_cache c
     where c.workspace_id = v_target.workspace_id
       and (c.product_id_1 = any (p_sources) or c.product_id_2 = any (p_sources))
       and not (c.product_id_1 = p_target or c.product_id_2 = p_target)
    returning c.*
  )
  select coalesce(jsonb_agg(jsonb_build_object('seq', g.seq, 'table', 'public.duplicate_detection_cache', 'row', g.r)
                            order by g.seq), '[]'::jsonb)
    into v_removed
    from (select row_number() over (order by gone.id) - 1 as seq, to_jsonb(gone) as r from gone) g;
  -- The merged pairs themselves, (target, source), stay as the record of what was merged, with
  -- the spec's status `merged`; the change is recorded as a move, so undo puts the old status
  -- (and who reviewed it when) back.
  for v_pair in
    select to_jsonb(c) as r from public.duplicate_detection_cache c
     where c.workspace_id = v_target.workspace_id
       and ((c.product_id_1 = p_target and c.product_id_2 = any (p_sources))
         or (c.product_id_2 = p_target and c.product_id_1 = any (p_sources)))
     order by c.id
     for update
  loop
    update public.duplicate_detection_cache set status = 'merged' where id = (v_pair.r ->> 'id')::uuid;
    v_moved := v_moved || jsonb_build_array(
      jsonb_build_object('seq', duplicates_private.next_seq(v_moved, v_removed),
        'table', 'public.duplicate_detection_cache', 'column', 'status',
        'key', jsonb_build_object('id', v_pair.r -> 'id'))
      || duplicates_private.row_diff(v_pair.r,
        (select to_jsonb(c) from public.duplicate_detection_cache c where c.id = (v_pair.r ->> 'id')::uuid)));
  end loop;

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
