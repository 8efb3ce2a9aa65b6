-- Products of a workspace's catalog. Quotes, prices, knowledge-base attachments, images,
-- recommendations and duplicate detection all point here.

create table public.products (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null check (length(trim(name)) > 0),
  description text,
  sku text,
  category text,
  -- Free-form attributes; duplicate detection reads factory/manufacturer/brand... from here.
  metadata jsonb not null default '{}'::jsonb,
  status text not null default 'active' check (status in ('draft', 'active', 'archived')),
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index products_workspace_idx on public.products (workspace_id, created_at desc);
create unique index products_workspace_sku_key on public.products (workspace_id, sku) where sku is not null;
create index products_name_trgm_idx on public.products using gin (name extensions.gin_trgm_ops);

create trigger products_touch before update on public.products
  for each row execute function public.touch_updated_at();

alter table public.products enable row level security;

grant select, insert, update, delete on public.products to authenticated;
grant all on public.products to service_role;

-- Members of a workspace read its catalog.
create policy products_read on public.products for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners, admins and members add and edit products; viewers only read.
create policy products_write on public.products for insert to authenticated
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
create policy products_edit on public.products for update to authenticated
  using (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']))
  with check (public.has_workspace_role(workspace_id, array['owner', 'admin', 'member']));
-- Only owners and admins delete (merges go through the duplicate-merge function).
create policy products_delete on public.products for delete to authenticated
  using (public.is_workspace_admin(workspace_id));
