-- undo_merge: puts back what one merge_products call did, in one transaction, once.
--
-- 1. The target is reverted to target_product_before_merge: every column the merge changed and
--    nobody has changed since goes back, updated_at included; a column edited after the merge
--    keeps the newer value. First, so that a value the target took over from a source (e.g. a
--    unique sku) is free again when the source returns.
-- 2. The sources are re-inserted from the snapshot: same ids, every column as it was.
-- 3. The merge's moves and removals are replayed backwards (by seq): a removed row is
--    re-inserted as it was when deleted; a moved row gets back exactly the columns the move
--    changed (the reference and what its triggers set, e.g. updated_at), each only while it
--    still holds the value the merge left. A row deleted or re-pointed since is left alone.
-- So a merge followed by its undo, with nothing in between, leaves every row exactly as before.
--
-- Steps 1 and 3 write old values back and must not run BEFORE UPDATE triggers that would stamp
-- a new updated_at over them, so those updates run with session_replication_role = replica
-- (user triggers off). That also skips foreign-key checks, which is safe because every value
-- written there is one the row held before the merge and points at a row that exists again (a
-- source restored in step 2) or was never touched. On hosted Supabase, supautils lets the
-- postgres role, which owns this function, set session_replication_role.
--
-- Errors: history not visible PT404; members without the owner or admin role 42501; already
-- undone, target deleted since, or a source id taken again: PT409.
create function duplicates_private.restore_changed(p_table regclass, p_key jsonb, p_old jsonb, p_new jsonb)
returns void
language plpgsql set search_path = '' as $$
declare
  v_current jsonb := duplicates_private.fetch_row(p_table, p_key, true);
begin
  if v_current is null then
    return;
  end if;
  perform duplicates_private.set_columns(p_table, p_key, (
    select jsonb_object_agg(k, p_old -> k) from jsonb_object_keys(p_old) k
     where v_current -> k is not distinct from p_new -> k));
end $$;

create function public.undo_merge(p_history_id uuid) returns public.product_merge_history
language plpgsql security definer set search_path = '' as $$
declare
  v_history public.product_merge_history;
  v_step jsonb;
  v_target_diff jsonb;
begin
  if p_history_id is null then
    raise exception 'history_id is required' using errcode = '22023';
  end if;
  select * into v_history from public.product_merge_history where id = p_history_id for update;
  if not found then
    raise exception 'merge history % not found', p_history_id using errcode = 'PT404';
  end if;
  perform duplicates_private.require_merge_role(v_history.workspace_id, format('merge history %s', p_history_id));
  if v_history.is_undone then
    raise exception 'merge % was already undone at %', p_history_id, v_history.undone_at using errcode = 'PT409';
  end if;
  perform 1 from public.products where id = v_history.target_product_id for update;
  if not found then
    raise exception 'cannot undo merge %: the target product % was deleted since', p_history_id,
      v_history.target_product_id using errcode = 'PT409';
  end if;
  if exists (select 1 from public.products where id = any (v_history.source_product_ids)) then
    raise exception 'cannot undo merge %: a product with a source''s id exists again', p_history_id
      using errcode = 'PT409';
  end if;

  -- 1
  v_target_diff := duplicates_private.row_diff(v_history.target_product_before_merge,
    v_history.target_product_after_merge);
  set local session_replication_role = replica;
  perform duplicates_private.restore_changed('public.products',
    jsonb_build_object('id', v_history.target_product_id), v_target_diff -> 'old', v_target_diff -> 'new');
  set local session_replication_role = origin;

  -- 2
  perform duplicates_private.insert_rows('public.products', v_history.source_products_snapshot);

  -- 3
  for v_step in
    select x.value from (
      select value from jsonb_array_elements(v_history.moved_relationships)
      union all
      select value from jsonb_array_elements(v_history.removed_rows)) x
     order by (x.value ->> 'seq')::integer desc
  loop
    if v_step ? 'row' then
      perform duplicates_private.insert_rows((v_step ->> 'table')::regclass, jsonb_build_array(v_step -> 'row'));
    else
      set local session_replication_role = replica;
      perform duplicates_private.restore_changed((v_step ->> 'table')::regclass, v_step -> 'key',
        v_step -> 'old', v_step -> 'new');
      set local session_replication_role = origin;
    end if;
  end loop;

  update public.product_merge_history
     set is_undone = true, undone_at = now(), undone_by = auth.uid()
   where id = p_history_id
  returning * into v_history;
  return v_history;
end $$;

revoke execute on all functions in schema duplicates_private from public, anon, authenticated, service_role;
revoke execute on function public.undo_merge(uuid) from public, anon;
grant execute on function public.undo_merge(uuid) to authenticated, service_role;
