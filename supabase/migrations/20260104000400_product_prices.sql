-- product_prices: the per-product price cache an owner or admin commits from a price lookup
-- (spec "product_prices (admin-only by row-level security)").
--
-- The primary key is (workspace_id, product_id), the spec's unique pair, so that the spec's
-- commit - POST /rest/v1/product_prices with Prefer resolution=merge-duplicates, no on_conflict -
-- upserts, as PostgREST resolves conflicts on the primary key. `id` names a row for
-- price_source `product_price:<id>`.
--
-- Audit joins: price_lookup_call_id = agent_tool_call_logs.id (same workspace, by composite
-- key); every element of source_kb_doc_ids is a kb_docs.id of the workspace (checked on write).

create table public.product_prices (
  id uuid not null unique default gen_random_uuid(),
  workspace_id uuid not null,
  product_id uuid not null,
  list_price numeric(14, 4) check (list_price >= 0),
  discount_price numeric(14, 4) check (discount_price >= 0),
  discount_percent numeric(7, 4) check (discount_percent between 0 and 100),
  currency text not null default 'EUR' check (currency ~ '^[A-Z]{3}$'),
  unit text check (length(unit) <= 32),
  source_kb_doc_ids uuid[] not null default '{}',
  source_snippet text check (length(source_snippet) <= 4000),
  price_lookup_call_id uuid,
  -- Always the user who wrote the row (set by trigger; whatever a client sends is overwritten).
  confirmed_by uuid default auth.uid() references auth.users (id) on delete set null,
  notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, product_id),
  -- A cache row without any price says nothing.
  check (list_price is not null or discount_price is not null),
  foreign key (product_id, workspace_id) references public.products (id, workspace_id) on delete cascade,
  -- No action on delete: an audit row a committed price points to cannot be removed alone.
  foreign key (price_lookup_call_id, workspace_id) references public.agent_tool_call_logs (id, workspace_id)
);
create index product_prices_lookup_idx on public.product_prices (price_lookup_call_id)
  where price_lookup_call_id is not null;

create trigger product_prices_touch before update on public.product_prices
  for each row execute function public.touch_updated_at();

-- The confirmer is the writer, and the cited documents are the workspace's. SECURITY DEFINER:
-- the check must see the Pricing documents whatever the caller may read (only owners and admins
-- write here anyway).
create function public.product_prices_guard() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_missing uuid;
begin
  if auth.uid() is not null then
    new.confirmed_by := auth.uid();
  end if;
  select s.id into v_missing
    from unnest(new.source_kb_doc_ids) as s (id)
   where not exists (select 1 from public.kb_docs d where d.id = s.id and d.workspace_id = new.workspace_id)
   limit 1;
  if v_missing is not null then
    raise exception 'source_kb_doc_ids: % is not a document of the workspace', v_missing using errcode = '23503';
  end if;
  return new;
end $$;
revoke execute on function public.product_prices_guard() from public, anon, authenticated;
create trigger product_prices_guard before insert or update on public.product_prices
  for each row execute function public.product_prices_guard();

-- ---- row-level security ----

alter table public.product_prices enable row level security;

-- The key columns are updatable only so that a merge-duplicates upsert may name them; the
-- policies and the composite keys keep a row in one workspace.
grant select, delete on public.product_prices to authenticated;
grant insert (workspace_id, product_id, list_price, discount_price, discount_percent, currency, unit,
  source_kb_doc_ids, source_snippet, price_lookup_call_id, confirmed_by, notes) on public.product_prices to authenticated;
grant update (workspace_id, product_id, list_price, discount_price, discount_percent, currency, unit,
  source_kb_doc_ids, source_snippet, price_lookup_call_id, confirmed_by, notes) on public.product_prices to authenticated;
grant all on public.product_prices to service_role;

-- Pricing data: only owners and admins of the workspace read, commit, change or drop a price.
create policy product_prices_admin_read on public.product_prices for select to authenticated
  using (public.is_workspace_admin(workspace_id));
create policy product_prices_admin_insert on public.product_prices for insert to authenticated
  with check (public.is_workspace_admin(workspace_id));
create policy product_prices_admin_update on public.product_prices for update to authenticated
  using (public.is_workspace_admin(workspace_id))
  with check (public.is_workspace_admin(workspace_id));
create policy product_prices_admin_delete on public.product_prices for delete to authenticated
  using (public.is_workspace_admin(workspace_id));
