-- price_entries: the structured entries (packages/shared/pricing PriceEntry[]) each Pricing KB
-- document is parsed into, so that a price lookup reads prices, not text. One row per priced
-- kb_docs row; it goes with its document (cascade) and is current when its content_hash and
-- parser_version equal the document's hash and the running parser's version
-- (packages/shared/pricing/store.ts re-parses anything else before it builds a lookup index).
--
-- Pricing data: owners and admins of the workspace only, like the Pricing category itself.

create table public.price_entries (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  kb_doc_id uuid not null unique,
  price_doc_type text not null check (price_doc_type in ('price_list', 'discount_rule', 'contract_terms', 'promotion')),
  -- kb_docs.content_hash of the content that was parsed.
  content_hash text not null check (content_hash ~ '^[0-9a-f]{64}$'),
  parser_version text not null,
  entries jsonb not null check (jsonb_typeof(entries) = 'array'),
  -- Rows the parser skipped or rejected, for people fixing a document.
  issues jsonb not null default '[]'::jsonb check (jsonb_typeof(issues) = 'array'),
  entry_count integer generated always as (jsonb_array_length(entries)) stored,
  parsed_at timestamptz not null default clock_timestamp(),
  -- The document is of the same workspace (composite key) and takes its entries with it.
  foreign key (workspace_id, kb_doc_id) references public.kb_docs (workspace_id, id) on delete cascade
);
create index price_entries_workspace_idx on public.price_entries (workspace_id);

-- parsed_at is the time of the write, whatever a client sends.
create function public.price_entries_stamp() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.parsed_at := clock_timestamp();
  return new;
end $$;
create trigger price_entries_stamp before insert or update on public.price_entries
  for each row execute function public.price_entries_stamp();

-- A per-workspace counter that moves with every change to its priced documents or their
-- entries: the lookup's in-memory index is current while the counter has not moved, which one
-- primary-key read tells (price_index_version), instead of scanning the documents each time.
create table public.price_index_versions (
  workspace_id uuid primary key references public.workspaces (id) on delete cascade,
  version bigint not null default 1,
  changed_at timestamptz not null default clock_timestamp()
);

create function public.price_index_bump() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_ws uuid;
begin
  -- kb_docs rows count only when priced before or after the change.
  if tg_table_name = 'kb_docs' and coalesce(new.price_doc_type, old.price_doc_type) is null then
    return null;
  end if;
  v_ws := coalesce(new.workspace_id, old.workspace_id);
  -- A workspace being deleted takes its documents with it: nothing left to version.
  if not exists (select 1 from public.workspaces w where w.id = v_ws) then
    return null;
  end if;
  insert into public.price_index_versions as v (workspace_id) values (v_ws)
  on conflict (workspace_id) do update set version = v.version + 1, changed_at = clock_timestamp();
  return null;
end $$;
revoke execute on function public.price_index_bump() from public, anon, authenticated;
create trigger price_index_bump after insert or update or delete on public.kb_docs
  for each row execute function public.price_index_bump();
create trigger price_index_bump after insert or update or delete on public.price_entries
  for each row execute function public.price_index_bump();

-- The workspace's counter (0 before its first priced document); owners and admins only.
create function public.price_index_version(p_workspace_id uuid) returns bigint
language plpgsql stable security invoker set search_path = '' as $$
begin
  if coalesce(auth.role(), '') <> 'service_role' and not public.is_workspace_admin(p_workspace_id) then
    raise exception 'price lookups need the owner or admin role in the workspace' using errcode = '42501';
  end if;
  return coalesce((select v.version from public.price_index_versions v where v.workspace_id = p_workspace_id), 0);
end $$;

-- What a lookup needs before (re)building its index, as the caller sees it: the counter, how
-- many published priced documents the workspace has, and which of them have no current entries
-- (missing, other content hash, other parser version), to be parsed first. Refused (42501) to
-- anyone but the workspace's owners and admins.
create function public.price_index_state(p_workspace_id uuid, p_parser_version text)
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
begin
  if coalesce(auth.role(), '') <> 'service_role' and not public.is_workspace_admin(p_workspace_id) then
    raise exception 'price lookups need the owner or admin role in the workspace' using errcode = '42501';
  end if;
  return (
    select jsonb_build_object(
      'version', coalesce((select v.version from public.price_index_versions v where v.workspace_id = p_workspace_id), 0),
      'documents', count(*),
      'stale', coalesce(jsonb_agg(d.id order by d.id) filter (
        where e.id is null or e.content_hash <> d.content_hash or e.parser_version <> p_parser_version
      ), '[]'::jsonb)
    )
      from public.kb_docs d
      left join public.price_entries e on e.kb_doc_id = d.id
     where d.workspace_id = p_workspace_id and d.price_doc_type is not null and d.status = 'published'
  );
end $$;

-- The current entries of the workspace's published priced documents (what the index is built
-- from); entries of another content hash or parser version are left out, never used.
create function public.price_index_entries(p_workspace_id uuid, p_parser_version text)
returns table (kb_doc_id uuid, entries jsonb)
language plpgsql stable security invoker set search_path = '' as $$
begin
  if coalesce(auth.role(), '') <> 'service_role' and not public.is_workspace_admin(p_workspace_id) then
    raise exception 'price lookups need the owner or admin role in the workspace' using errcode = '42501';
  end if;
  return query
  select e.kb_doc_id, e.entries
    from public.price_entries e
    join public.kb_docs d on d.id = e.kb_doc_id
   where e.workspace_id = p_workspace_id and d.price_doc_type is not null and d.status = 'published'
     and e.content_hash = d.content_hash and e.parser_version = p_parser_version
   order by e.kb_doc_id;
end $$;

revoke execute on function public.price_index_version(uuid), public.price_index_state(uuid, text),
  public.price_index_entries(uuid, text) from public, anon;
grant execute on function public.price_index_version(uuid), public.price_index_state(uuid, text),
  public.price_index_entries(uuid, text) to authenticated, service_role;

-- ---- row-level security ----

alter table public.price_entries enable row level security;
alter table public.price_index_versions enable row level security;

-- The counter is written only by the trigger; owners and admins may read theirs.
grant select on public.price_index_versions to authenticated;
grant all on public.price_index_versions to service_role;
create policy price_index_versions_admin_read on public.price_index_versions for select to authenticated
  using (public.is_workspace_admin(workspace_id));

grant select, delete on public.price_entries to authenticated;
grant insert (workspace_id, kb_doc_id, price_doc_type, content_hash, parser_version, entries, issues)
  on public.price_entries to authenticated;
-- The key columns are updatable only so that an upsert (on conflict kb_doc_id) may name them;
-- the policies and the composite key keep a row in its document's workspace.
grant update (workspace_id, kb_doc_id, price_doc_type, content_hash, parser_version, entries, issues)
  on public.price_entries to authenticated;
grant all on public.price_entries to service_role;

-- Owners and admins of the workspace read and (re)write its parsed price entries: they are the
-- ones who may write the Pricing documents they are derived from.
create policy price_entries_admin_read on public.price_entries for select to authenticated
  using (public.is_workspace_admin(workspace_id));
create policy price_entries_admin_insert on public.price_entries for insert to authenticated
  with check (public.is_workspace_admin(workspace_id));
create policy price_entries_admin_update on public.price_entries for update to authenticated
  using (public.is_workspace_admin(workspace_id))
  with check (public.is_workspace_admin(workspace_id));
create policy price_entries_admin_delete on public.price_entries for delete to authenticated
  using (public.is_workspace_admin(workspace_id));
