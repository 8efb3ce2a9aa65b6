-- Duplicate-material detection (issue 8): the cache of detected pairs and the merge history.
-- Scoring lives in packages/shared/duplicates; merge and undo are the SQL functions of the next
-- migrations, because each must be one transaction.
--
-- Who may do what (workspace roles):
--   read detections                 owner, admin, member, viewer: a detection only repeats the
--                                   names and scores of products every member can already read
--   store detections, set a status  owner, admin, member: the roles that edit products
--   merge, undo, read merge history owner, admin: a merge deletes products, which only they may
--                                   do (products_delete), and the history serves only to undo

-- ---- duplicate_detection_cache ----

-- One row per unordered pair, stored in id order (product_id_1 < product_id_2, the order
-- batchDetect reports), so a pair has one key however it was found.
create table public.duplicate_detection_cache (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  product_id_1 uuid not null,
  product_id_2 uuid not null,
  -- Scores are the domain code's doubles, stored as they were computed.
  overall_similarity_score double precision not null check (overall_similarity_score between 0 and 1),
  name_similarity double precision not null check (name_similarity between 0 and 1),
  description_similarity double precision not null check (description_similarity between 0 and 1),
  metadata_similarity double precision not null check (metadata_similarity between 0 and 1),
  similarity_breakdown jsonb not null default '{}'::jsonb,
  is_duplicate boolean not null default true,
  confidence_level text not null check (confidence_level in ('high', 'medium', 'low')),
  status text not null default 'pending' check (status in ('pending', 'reviewed', 'merged', 'dismissed')),
  reviewed_by uuid references auth.users (id) on delete set null,
  reviewed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (product_id_1 < product_id_2),
  unique (workspace_id, product_id_1, product_id_2),
  -- Both products belong to the row's workspace (products_id_workspace_key), and a pair goes
  -- with either of its products. merge_products snapshots the rows before they cascade.
  foreign key (product_id_1, workspace_id) references public.products (id, workspace_id) on delete cascade,
  foreign key (product_id_2, workspace_id) references public.products (id, workspace_id) on delete cascade
);
create index duplicate_detection_cache_list_idx
  on public.duplicate_detection_cache (workspace_id, status, overall_similarity_score desc);
create index duplicate_detection_cache_product_2_idx on public.duplicate_detection_cache (product_id_2);

create trigger duplicate_detection_cache_touch before update on public.duplicate_detection_cache
  for each row execute function public.touch_updated_at();

-- reviewed_by and reviewed_at say who last changed the status and when. They come from the
-- session, never from the client (the column grants below leave them out), so nobody can
-- record a review in someone else's name. Inserts are untouched: undo_merge re-inserts rows
-- exactly as they were.
create function public.duplicate_detection_cache_stamp_review() returns trigger
language plpgsql set search_path = '' as $$
begin
  if new.status is distinct from old.status then
    new.reviewed_by := auth.uid();
    new.reviewed_at := now();
  end if;
  return new;
end $$;
revoke execute on function public.duplicate_detection_cache_stamp_review() from public, anon, authenticated;

create trigger duplicate_detection_cache_review before update on public.duplicate_detection_cache
  for each row execute function public.duplicate_detection_cache_stamp_review();

alter table public.duplicate_detection_cache enable row level security;

-- Clients insert detections (always pending: status is not insertable) and update scores and
-- status; ids, workspace, pair, reviewer and timestamps are not theirs to write.
grant select, delete on public.duplicate_detection_cache to authenticated;
grant insert (workspace_id, product_id_1, product_id_2, overall_similarity_score, name_similarity,
  description_similarity, metadata_similarity, similarity_breakdown, is_duplicate, confidence_level)
  on public.duplicate_detection_cache to authenticated;
grant update (overall_similarity_score, name_similarity, description_similarity, metadata_similarity,
  similarity_breakdown, is_duplicate, confidence_level, status)
  on public.duplicate_detection_cache to authenticated;
grant all on public.duplicate_detection_cache to service_role;

-- Every member (viewers too) reads the workspace's detections.
create policy duplicate_detection_cache_read on public.duplicate_detection_cache for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members store detections (batch-detect) in their workspace.
create policy duplicate_detection_cache_insert on public.duplicate_detection_cache for insert to authenticated
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
-- The same roles refresh scores on re-detection and review pairs (set the status).
create policy duplicate_detection_cache_update on public.duplicate_detection_cache for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
-- Owners and admins clear detections.
create policy duplicate_detection_cache_delete on public.duplicate_detection_cache for delete to authenticated
  using (public.is_workspace_admin(workspace_id));

-- Stores the pairs batch-detect found (p_pairs: DuplicatePair objects of the domain code, ids in
-- order) in one statement. A pair seen before gets fresh scores but keeps its status and review:
-- a dismissed pair stays dismissed when detection runs again. Pairs no longer detected are left
-- alone. SECURITY INVOKER: the insert and update policies decide.
create function public.store_duplicate_detections(p_workspace_id uuid, p_pairs jsonb)
returns setof public.duplicate_detection_cache
language sql security invoker set search_path = '' as $$
  insert into public.duplicate_detection_cache as c (
    workspace_id, product_id_1, product_id_2, overall_similarity_score, name_similarity,
    description_similarity, metadata_similarity, similarity_breakdown, is_duplicate, confidence_level)
  select p_workspace_id, x.product_id_1, x.product_id_2, x.overall_similarity, x.name_similarity,
         x.description_similarity, x.metadata_similarity, coalesce(x.similarity_breakdown, '{}'::jsonb), true,
         x.confidence_level
    from jsonb_to_recordset(p_pairs) as x(
      product_id_1 uuid, product_id_2 uuid, overall_similarity double precision, name_similarity double precision,
      description_similarity double precision, metadata_similarity double precision, similarity_breakdown jsonb,
      confidence_level text)
  on conflict (workspace_id, product_id_1, product_id_2) do update
    set overall_similarity_score = excluded.overall_similarity_score,
        name_similarity = excluded.name_similarity,
        description_similarity = excluded.description_similarity,
        metadata_similarity = excluded.metadata_similarity,
        similarity_breakdown = excluded.similarity_breakdown,
        is_duplicate = true,
        confidence_level = excluded.confidence_level
  returning c.*
$$;
revoke execute on function public.store_duplicate_detections(uuid, jsonb) from public, anon;
grant execute on function public.store_duplicate_detections(uuid, jsonb) to authenticated, service_role;

-- Sets a detection's status. SECURITY INVOKER: the update policy decides, and the review trigger
-- stamps reviewed_by / reviewed_at. A status outside the four is 22023 (HTTP 400); a detection
-- the caller cannot see is PT404; one they see but may not review is 42501.
create function public.update_duplicate_status(p_cache_id uuid, p_status text)
returns public.duplicate_detection_cache
language plpgsql security invoker set search_path = '' as $$
declare
  v_row public.duplicate_detection_cache;
begin
  if p_status is null or p_status not in ('pending', 'reviewed', 'merged', 'dismissed') then
    raise exception 'status must be one of pending, reviewed, merged, dismissed; got %', coalesce(p_status, 'null')
      using errcode = '22023';
  end if;
  update public.duplicate_detection_cache set status = p_status where id = p_cache_id returning * into v_row;
  if found then
    return v_row;
  end if;
  if exists (select 1 from public.duplicate_detection_cache where id = p_cache_id) then
    raise exception 'reviewing duplicates needs the owner, admin or member role in the workspace'
      using errcode = '42501';
  end if;
  raise exception 'duplicate detection % not found', p_cache_id using errcode = 'PT404';
end $$;
revoke execute on function public.update_duplicate_status(uuid, text) from public, anon;
grant execute on function public.update_duplicate_status(uuid, text) to authenticated, service_role;

-- ---- product_merge_history ----

-- Product ids here are plain uuids, not foreign keys: the sources are deleted by the merge and
-- the record must outlive the target too. The snapshots and the two lists below are what
-- undo_merge needs to put every row back exactly.
create table public.product_merge_history (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  merged_at timestamptz not null default now(),
  merged_by uuid references auth.users (id) on delete set null,
  source_product_ids uuid[] not null check (cardinality(source_product_ids) > 0),
  source_product_names text[] not null,
  target_product_id uuid not null,
  target_product_name text not null,
  similarity_score double precision check (similarity_score between 0 and 1),
  merge_reason text,
  merge_strategy text not null default 'manual' check (merge_strategy in ('manual', 'auto', 'suggested')),
  -- Full rows (to_jsonb) of the sources, in source_product_ids order.
  source_products_snapshot jsonb not null,
  target_product_before_merge jsonb not null,
  target_product_after_merge jsonb not null,
  -- [{seq, table, column, key: {primary key}, old: {col: value}, new: {col: value}}]: each row
  -- the merge re-pointed from a source to the target, with every column the update changed
  -- (the reference and whatever its triggers set, e.g. updated_at), before and after.
  moved_relationships jsonb not null default '[]'::jsonb,
  -- [{seq, table, row}]: rows the merge deleted instead of moving (a second row for the target
  -- in a unique key, a pair detection of a source), as they were when deleted. seq orders these
  -- and the moves in one sequence, which undo replays backwards.
  removed_rows jsonb not null default '[]'::jsonb,
  is_undone boolean not null default false,
  undone_at timestamptz,
  undone_by uuid references auth.users (id) on delete set null
);
create index product_merge_history_workspace_idx on public.product_merge_history (workspace_id, merged_at desc);

alter table public.product_merge_history enable row level security;

-- Written only by merge_products and undo_merge (SECURITY DEFINER); clients only read.
grant select on public.product_merge_history to authenticated;
grant all on public.product_merge_history to service_role;

-- Owners and admins read their workspace's merges: merging and undoing is theirs alone, and a
-- record (with its snapshots and undo data) serves only to review or undo one.
create policy product_merge_history_read on public.product_merge_history for select to authenticated
  using (public.is_workspace_admin(workspace_id));
