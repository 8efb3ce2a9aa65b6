-- Competitor price monitoring (spec "Price monitoring", issue 21): where a product's competitors
-- sell it (competitor_sources), whether and how often it is checked (price_monitoring_products),
-- every price seen (price_history) and every check run (price_monitoring_jobs). All four are
-- workspace data: members read them; sources are edited by the workspace's writers through
-- /rest/v1; monitoring settings, history and jobs are written only by the price-monitoring
-- function (service role) after it has authorised the caller.

-- Where a competitor sells the product, with hints for reading the price off the page.
create table public.competitor_sources (
  id uuid primary key default gen_random_uuid(),
  -- Taken from the product by competitor_sources_workspace (a client cannot choose it).
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  product_id uuid not null references public.products (id) on delete cascade,
  competitor_name text not null check (length(trim(competitor_name)) between 1 and 200),
  url text not null check (url ~* '^https?://[^/?#]+' and length(url) <= 2048),
  -- Extraction hints: a CSS selector whose text is the price (pages without structured data), the
  -- competitor's SKU or product name to pick one product on a page listing several, and the
  -- currency to assume when the page names none.
  price_selector text check (length(price_selector) <= 500),
  sku_hint text check (length(sku_hint) <= 200),
  name_hint text check (length(name_hint) <= 500),
  default_currency text check (default_currency ~ '^[A-Z]{3}$'),
  is_active boolean not null default true,
  -- The latest check of this source (written by the monitoring function).
  last_checked_at timestamptz,
  last_price numeric(14, 4),
  last_currency text,
  last_status text check (last_status in ('ok', 'no_price', 'failed')),
  last_error text,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index competitor_sources_product_idx on public.competitor_sources (product_id);
create index competitor_sources_workspace_idx on public.competitor_sources (workspace_id);

-- The source's workspace is its product's (as the caller sees it: a product the caller cannot
-- read is "not found", so an outsider learns nothing about other workspaces' ids).
create function public.competitor_sources_workspace() returns trigger
language plpgsql set search_path = '' as $$
begin
  select p.workspace_id into new.workspace_id from public.products p where p.id = new.product_id;
  if new.workspace_id is null then
    raise exception 'product % not found', new.product_id using errcode = '23503';
  end if;
  return new;
end $$;
create trigger competitor_sources_workspace before insert or update of product_id, workspace_id
  on public.competitor_sources for each row execute function public.competitor_sources_workspace();
create trigger competitor_sources_touch before update on public.competitor_sources
  for each row execute function public.touch_updated_at();

alter table public.competitor_sources enable row level security;
grant select, delete on public.competitor_sources to authenticated;
grant insert (product_id, competitor_name, url, price_selector, sku_hint, name_hint, default_currency, is_active)
  on public.competitor_sources to authenticated;
grant update (competitor_name, url, price_selector, sku_hint, name_hint, default_currency, is_active)
  on public.competitor_sources to authenticated;
grant all on public.competitor_sources to service_role;

-- Members of the product's workspace read its competitor sources.
create policy competitor_sources_read on public.competitor_sources for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members (the catalog's writers) add, edit and remove sources; viewers read.
create policy competitor_sources_insert on public.competitor_sources for insert to authenticated
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
create policy competitor_sources_update on public.competitor_sources for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
create policy competitor_sources_delete on public.competitor_sources for delete to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));

-- Whether a product is monitored and how often; one row per product.
create table public.price_monitoring_products (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  product_id uuid not null unique references public.products (id) on delete cascade,
  frequency text not null default 'daily' check (frequency in ('hourly', 'daily', 'weekly', 'on_demand')),
  enabled boolean not null default true,
  -- Who turned monitoring on: scheduled checks are billed to them.
  started_by uuid references auth.users (id) on delete set null,
  last_checked_at timestamptz,
  -- Null when nothing is scheduled (disabled, or on_demand).
  next_check_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index price_monitoring_products_due_idx on public.price_monitoring_products (next_check_at)
  where enabled and next_check_at is not null;
create index price_monitoring_products_workspace_idx on public.price_monitoring_products (workspace_id);
create trigger price_monitoring_products_touch before update on public.price_monitoring_products
  for each row execute function public.touch_updated_at();

alter table public.price_monitoring_products enable row level security;
grant select on public.price_monitoring_products to authenticated;
grant all on public.price_monitoring_products to service_role;
-- Members read their workspace's monitoring settings; they change them through the
-- price-monitoring function (start_monitoring, stop_monitoring), which writes as the service role.
create policy price_monitoring_products_read on public.price_monitoring_products for select to authenticated
  using (public.is_workspace_member(workspace_id));

-- One check of a product's sources (check_now or a scheduled check).
create table public.price_monitoring_jobs (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  product_id uuid not null references public.products (id) on delete cascade,
  trigger text not null check (trigger in ('manual', 'scheduled')),
  status text not null default 'running' check (status in ('running', 'completed', 'failed')),
  requested_by uuid references auth.users (id) on delete set null,
  sources_checked integer not null default 0,
  prices_found integer not null default 0,
  price_changes integer not null default 0,
  credits_consumed numeric(12, 4) not null default 0,
  credits_refunded numeric(12, 4) not null default 0,
  -- The per-source debits (credit_transactions ids), so a check that died mid-run is refunded
  -- by the sweep of stale jobs.
  credit_transaction_ids uuid[] not null default '{}',
  -- Per source: {source_id, competitor_name, url, status, price, currency, error}.
  results jsonb not null default '[]'::jsonb,
  error_message text,
  started_at timestamptz not null default now(),
  completed_at timestamptz
);
create index price_monitoring_jobs_product_idx on public.price_monitoring_jobs (product_id, started_at desc);
create index price_monitoring_jobs_running_idx on public.price_monitoring_jobs (started_at) where status = 'running';

alter table public.price_monitoring_jobs enable row level security;
grant select on public.price_monitoring_jobs to authenticated;
grant all on public.price_monitoring_jobs to service_role;
-- Members read their workspace's check jobs; only the monitoring function writes them.
create policy price_monitoring_jobs_read on public.price_monitoring_jobs for select to authenticated
  using (public.is_workspace_member(workspace_id));

-- Every price read off a competitor page, with the change against the source's previous price.
create table public.price_history (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  product_id uuid not null references public.products (id) on delete cascade,
  source_id uuid references public.competitor_sources (id) on delete set null,
  job_id uuid references public.price_monitoring_jobs (id) on delete set null,
  competitor_name text not null,
  url text not null,
  price numeric(14, 4) not null check (price >= 0),
  currency text,
  -- The source's previous price (null on its first reading) and the change from it.
  previous_price numeric(14, 4),
  price_change numeric(14, 4),
  change_percent numeric(9, 2),
  checked_at timestamptz not null default now()
);
create index price_history_product_idx on public.price_history (product_id, checked_at desc);
create index price_history_source_idx on public.price_history (source_id, checked_at desc);

alter table public.price_history enable row level security;
grant select on public.price_history to authenticated;
grant all on public.price_history to service_role;
-- Members read their workspace's price history; only the monitoring function writes it.
create policy price_history_read on public.price_history for select to authenticated
  using (public.is_workspace_member(workspace_id));
