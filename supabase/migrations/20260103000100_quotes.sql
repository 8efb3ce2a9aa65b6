-- Quotes and their lines (workspace-scoped).
--
-- Money: prices and quantities are numeric(14, 4), so a price copied from a price document (up
-- to four decimals) is stored exactly; amounts shown to people (line totals, quote totals) are
-- rounded once per line to 2 decimals, half-up, in SQL (see 20260103000200_quote_totals.sql),
-- the same rule as packages/shared/pricing/money.ts. No money is ever computed in float.
--
-- Pricing audit (spec "quote_items (pricing audit fields)"): unit_price, discounted_price,
-- price_source, price_lookup_call_id, notes. price_lookup_call_id will reference
-- agent_tool_call_logs.id; that table arrives with the agent issue, whose migration adds the FK.

create sequence public.quote_number_seq;

create table public.quotes (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- Human-facing number printed on the PDF; unique per workspace. The default is global and
  -- monotonic (Q-<year>-<000001>); a client may set its own.
  quote_number text not null default
    ('Q-' || to_char(now(), 'YYYY') || '-' || lpad(nextval('public.quote_number_seq')::text, 6, '0'))
    check (length(trim(quote_number)) between 1 and 64),
  title text,
  customer_name text,
  customer_email text,
  customer_company text,
  customer_address text,
  currency text not null default 'EUR' check (currency ~ '^[A-Z]{3}$'),
  status text not null default 'draft' check (status in ('draft', 'sent', 'accepted', 'rejected', 'expired')),
  valid_until date,
  notes text,
  -- The last generated PDF (bucket quote-pdfs) and the fingerprint of the quote_document() it
  -- was rendered from; only the service role writes these (generate-quote-pdf).
  pdf_storage_path text,
  pdf_fingerprint text,
  pdf_generated_at timestamptz,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, quote_number),
  -- Target of the composite foreign keys that pin items and requests to the quote's workspace.
  unique (id, workspace_id)
);
create index quotes_workspace_created_idx on public.quotes (workspace_id, created_at desc);

-- Lets quote_items reference (product_id, workspace_id), so a line can only name a product of
-- the quote's own workspace.
alter table public.products add constraint products_id_workspace_key unique (id, workspace_id);

create table public.quote_items (
  id uuid primary key default gen_random_uuid(),
  quote_id uuid not null,
  -- Copied from the quote by trigger; whatever a client sends is overwritten.
  workspace_id uuid not null,
  product_id uuid,
  description text,
  quantity numeric(14, 4) not null default 1 check (quantity > 0),
  unit text,
  unit_price numeric(14, 4) check (unit_price >= 0),
  discounted_price numeric(14, 4) check (discounted_price >= 0),
  price_source text check (
    price_source in ('manual', 'catalog')
    or price_source ~* '^(kb:ai:|kb:quick:|product_price:)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
  ),
  price_lookup_call_id uuid,
  notes text,
  position integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- A line needs something to print: its own description or the product's name.
  check (product_id is not null or length(trim(coalesce(description, ''))) > 0),
  foreign key (quote_id, workspace_id) references public.quotes (id, workspace_id) on delete cascade,
  foreign key (product_id, workspace_id) references public.products (id, workspace_id)
    on delete set null (product_id)
);
create index quote_items_quote_idx on public.quote_items (quote_id, position);
create index quote_items_product_idx on public.quote_items (product_id) where product_id is not null;
create index quote_items_price_lookup_idx on public.quote_items (price_lookup_call_id)
  where price_lookup_call_id is not null;

create trigger quotes_touch before update on public.quotes
  for each row execute function public.touch_updated_at();
create trigger quote_items_touch before update on public.quote_items
  for each row execute function public.touch_updated_at();

-- The line's workspace is always its quote's. SECURITY INVOKER: a caller who cannot see the
-- quote gets null here, and the not-null constraint refuses the row.
create function public.quote_items_set_workspace() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.workspace_id := (select q.workspace_id from public.quotes q where q.id = new.quote_id);
  return new;
end $$;

-- Triggers fire in name order: the workspace is set before the guard reads it.
create trigger quote_items_1_workspace before insert on public.quote_items
  for each row execute function public.quote_items_set_workspace();

-- Committing a looked-up price (a kb:/product_price: source or a price_lookup_call_id) is part
-- of the pricing workflow, which the spec reserves to workspace owners and admins; members may
-- still price lines manually and edit everything else on a committed line. The service role
-- and direct database sessions (no JWT role) are the system and pass.
create function public.quote_items_guard_pricing() returns trigger
language plpgsql set search_path = '' as $$
declare
  v_commits boolean;
begin
  if coalesce(auth.role(), '') <> 'authenticated' then
    return new;
  end if;
  if tg_op = 'INSERT' then
    v_commits := new.price_lookup_call_id is not null
      or coalesce(new.price_source, 'manual') not in ('manual', 'catalog');
  else
    v_commits := (new.price_lookup_call_id is distinct from old.price_lookup_call_id
                  and new.price_lookup_call_id is not null)
      or (new.price_source is distinct from old.price_source
          and coalesce(new.price_source, 'manual') not in ('manual', 'catalog'));
  end if;
  if v_commits and not public.is_workspace_admin(new.workspace_id) then
    raise exception 'committing a looked-up price needs the owner or admin role in the workspace'
      using errcode = '42501';
  end if;
  return new;
end $$;

create trigger quote_items_2_pricing_guard before insert or update on public.quote_items
  for each row execute function public.quote_items_guard_pricing();

-- ---- row-level security ----

alter table public.quotes enable row level security;
alter table public.quote_items enable row level security;

-- Column privileges keep ids, the workspace, the author and timestamps out of clients' reach.
grant usage on sequence public.quote_number_seq to authenticated, service_role;
grant select, delete on public.quotes to authenticated;
grant insert (workspace_id, quote_number, title, customer_name, customer_email, customer_company,
  customer_address, currency, status, valid_until, notes) on public.quotes to authenticated;
grant update (quote_number, title, customer_name, customer_email, customer_company, customer_address,
  currency, status, valid_until, notes) on public.quotes to authenticated;
grant all on public.quotes to service_role;

grant select, delete on public.quote_items to authenticated;
grant insert (quote_id, product_id, description, quantity, unit, unit_price, discounted_price,
  price_source, price_lookup_call_id, notes, position) on public.quote_items to authenticated;
grant update (product_id, description, quantity, unit, unit_price, discounted_price, price_source,
  price_lookup_call_id, notes, position) on public.quote_items to authenticated;
grant all on public.quote_items to service_role;

-- Every member of the workspace (viewers included) reads its quotes.
create policy quotes_read on public.quotes for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members draft quotes, in their own name.
create policy quotes_create on public.quotes for insert to authenticated
  with check (
    public.has_workspace_role(workspace_id, array['owner', 'admin', 'member'])
    and created_by = (select auth.uid())
  );
-- Owners, admins and members edit them; viewers only read.
create policy quotes_edit on public.quotes for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
-- Only owners and admins delete a quote (its lines, requests and proposals go with it).
create policy quotes_delete on public.quotes for delete to authenticated
  using (public.is_workspace_admin(workspace_id));

-- Members read the lines of their workspace's quotes.
create policy quote_items_read on public.quote_items for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members add, edit and remove lines (price commits: see the guard trigger).
create policy quote_items_create on public.quote_items for insert to authenticated
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
create policy quote_items_edit on public.quote_items for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
create policy quote_items_delete on public.quote_items for delete to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
