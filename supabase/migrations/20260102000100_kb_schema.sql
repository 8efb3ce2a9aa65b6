-- Knowledge base: categories, documents, their chunks (1024-dimension text embeddings plus full
-- text) and document-product attachments.
--
-- Visibility rule, written once (kb_readable_category_ids) and used by every policy: a workspace
-- member reads the categories of their workspaces whose access_level is `public` or `member`;
-- access_level `admin` (the Pricing category always) is for the workspace's owners and admins
-- only. A document or chunk is readable when its workspace is the caller's and its category is
-- readable (a document without a category is member-level). Writers are owners, admins and
-- members (viewers only read); categories are managed by owners and admins.

-- ---- helpers (SECURITY DEFINER: policies call them without recursing into RLS) ----

-- The caller's workspaces, or only those where the caller holds one of `p_roles`.
create function public.kb_workspace_ids(p_roles text[] default null) returns uuid[]
language sql stable security definer set search_path = '' as $$
  select coalesce(array_agg(m.workspace_id), '{}')
    from public.workspace_members m
   where m.user_id = auth.uid() and (p_roles is null or m.role = any (p_roles))
$$;

-- ---- tables ----

create table public.kb_categories (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null check (length(trim(name)) between 1 and 200),
  slug text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 100),
  description text,
  access_level text not null default 'member' check (access_level in ('public', 'member', 'admin')),
  trigger_keyword text,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, slug),
  unique (workspace_id, id),
  -- Pricing data is for owners and admins only, whatever a client sends.
  constraint kb_categories_pricing_is_admin check (slug <> 'pricing' or access_level = 'admin')
);
comment on table public.kb_categories is
  'KB categories per workspace; access_level admin (Pricing always) is visible to owners and admins only.';

-- The categories the caller may read (the one visibility rule of the knowledge base).
create function public.kb_readable_category_ids() returns uuid[]
language sql stable security definer set search_path = '' as $$
  select coalesce(array_agg(c.id), '{}')
    from public.kb_categories c
   where c.workspace_id = any (public.kb_workspace_ids(null))
     and (c.access_level <> 'admin' or c.workspace_id = any (public.kb_workspace_ids(array['owner', 'admin'])))
$$;

revoke execute on function public.kb_workspace_ids(text[]), public.kb_readable_category_ids() from public;
grant execute on function public.kb_workspace_ids(text[]), public.kb_readable_category_ids()
  to authenticated, service_role;

create table public.kb_docs (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  category_id uuid,
  title text not null check (length(trim(title)) between 1 and 500),
  content text not null,
  -- sha256 hex of the content: an update re-embeds only when it changes.
  content_hash text not null check (content_hash ~ '^[0-9a-f]{64}$'),
  status text not null default 'published' check (status in ('draft', 'published', 'archived')),
  price_doc_type text check (price_doc_type in ('price_list', 'discount_rule', 'contract_terms', 'promotion')),
  source text not null default 'manual' check (source in ('manual', 'pdf', 'api')),
  metadata jsonb not null default '{}'::jsonb,
  chunk_count integer not null default 0 check (chunk_count >= 0),
  embedding_model text,
  embedded_at timestamptz,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  updated_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- The spec's upsert key; a document without a category is keyed by (workspace, title) alone.
  constraint kb_docs_key unique nulls not distinct (workspace_id, title, category_id),
  unique (workspace_id, id),
  -- The category belongs to the same workspace (composite key; restrict keeps documents from
  -- vanishing with a category).
  foreign key (workspace_id, category_id) references public.kb_categories (workspace_id, id) on delete restrict
);
create index kb_docs_category_idx on public.kb_docs (category_id);
create index kb_docs_workspace_updated_idx on public.kb_docs (workspace_id, updated_at desc);

create table public.kb_doc_chunks (
  id uuid primary key default gen_random_uuid(),
  doc_id uuid not null references public.kb_docs (id) on delete cascade,
  -- Copied from the document by trigger (never from the writer), so that search filters and
  -- RLS read the chunk row alone and the HNSW index can serve filtered queries.
  workspace_id uuid not null,
  category_id uuid,
  status text not null,
  price_doc_type text,
  chunk_index integer not null check (chunk_index >= 0),
  heading text,
  content text not null,
  char_start integer not null check (char_start >= 0),
  char_end integer not null check (char_end >= char_start),
  embedding extensions.vector(1024) not null,
  -- 'simple' (no stemming, no stop words): price documents mix languages, and SKUs and
  -- manufacturer names must match as written.
  fts tsvector generated always as (
    setweight(to_tsvector('simple'::regconfig, coalesce(heading, '')), 'B') ||
    setweight(to_tsvector('simple'::regconfig, content), 'A')
  ) stored,
  created_at timestamptz not null default now(),
  unique (doc_id, chunk_index)
);
create index kb_doc_chunks_embedding_idx on public.kb_doc_chunks
  using hnsw (embedding extensions.vector_cosine_ops);
create index kb_doc_chunks_fts_idx on public.kb_doc_chunks using gin (fts);
create index kb_doc_chunks_workspace_idx on public.kb_doc_chunks (workspace_id, category_id);

create table public.kb_doc_attachments (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  doc_id uuid not null,
  product_id uuid not null references public.products (id) on delete cascade,
  relationship_type text not null default 'related'
    check (relationship_type in ('primary', 'supplementary', 'related', 'certificate', 'specification')),
  notes text,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  unique (doc_id, product_id),
  foreign key (workspace_id, doc_id) references public.kb_docs (workspace_id, id) on delete cascade
);
create index kb_doc_attachments_product_idx on public.kb_doc_attachments (product_id);

create trigger kb_categories_touch before update on public.kb_categories
  for each row execute function public.touch_updated_at();
create trigger kb_docs_touch before update on public.kb_docs
  for each row execute function public.touch_updated_at();

-- ---- integrity triggers ----

-- price_doc_type marks pricing data, which lives only in the Pricing category (slug pricing,
-- always admin-level): a typed document elsewhere would leak prices to members.
create function public.kb_docs_guard() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.price_doc_type is not null and not exists (
    select 1 from public.kb_categories c where c.id = new.category_id and c.slug = 'pricing'
  ) then
    raise exception 'price_doc_type is only allowed on documents of the Pricing category (slug pricing)'
      using errcode = '23514';
  end if;
  return new;
end $$;
revoke execute on function public.kb_docs_guard() from public, anon, authenticated;
create trigger kb_docs_guard before insert or update of category_id, price_doc_type on public.kb_docs
  for each row execute function public.kb_docs_guard();

-- Chunks take their filter columns from their document.
create function public.kb_chunks_fill() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select d.workspace_id, d.category_id, d.status, d.price_doc_type
    into new.workspace_id, new.category_id, new.status, new.price_doc_type
    from public.kb_docs d where d.id = new.doc_id;
  return new;
end $$;
revoke execute on function public.kb_chunks_fill() from public, anon, authenticated;
create trigger kb_chunks_fill before insert or update on public.kb_doc_chunks
  for each row execute function public.kb_chunks_fill();

-- ...and follow it when it moves category, status or type.
create function public.kb_docs_propagate() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.kb_doc_chunks
     set category_id = new.category_id, status = new.status, price_doc_type = new.price_doc_type
   where doc_id = new.id;
  return null;
end $$;
revoke execute on function public.kb_docs_propagate() from public, anon, authenticated;
create trigger kb_docs_propagate after update of category_id, status, price_doc_type on public.kb_docs
  for each row
  when (old.category_id is distinct from new.category_id or old.status is distinct from new.status
        or old.price_doc_type is distinct from new.price_doc_type)
  execute function public.kb_docs_propagate();

-- An attachment joins a document and a product of the same workspace.
create function public.kb_attachments_guard() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not exists (select 1 from public.products p where p.id = new.product_id and p.workspace_id = new.workspace_id) then
    raise exception 'product % is not in the document''s workspace', new.product_id using errcode = '23503';
  end if;
  return new;
end $$;
revoke execute on function public.kb_attachments_guard() from public, anon, authenticated;
create trigger kb_attachments_guard before insert or update on public.kb_doc_attachments
  for each row execute function public.kb_attachments_guard();

-- ---- row-level security ----

alter table public.kb_categories enable row level security;
alter table public.kb_docs enable row level security;
alter table public.kb_doc_chunks enable row level security;
alter table public.kb_doc_attachments enable row level security;

-- Slugs are the categories' stable names (the Pricing gate keys on `pricing`): not updatable.
grant select, delete on public.kb_categories to authenticated;
grant insert (workspace_id, name, slug, description, access_level, trigger_keyword) on public.kb_categories
  to authenticated;
grant update (name, description, access_level, trigger_keyword) on public.kb_categories to authenticated;
grant select, delete on public.kb_docs to authenticated;
grant insert (workspace_id, category_id, title, content, content_hash, status, price_doc_type, source, metadata,
  chunk_count, embedding_model, embedded_at) on public.kb_docs to authenticated;
grant update (category_id, title, content, content_hash, status, price_doc_type, metadata, chunk_count,
  embedding_model, embedded_at, updated_by) on public.kb_docs to authenticated;
grant select, insert, delete on public.kb_doc_chunks to authenticated;
grant select, delete on public.kb_doc_attachments to authenticated;
grant insert (workspace_id, doc_id, product_id, relationship_type, notes) on public.kb_doc_attachments
  to authenticated;
grant all on public.kb_categories, public.kb_docs, public.kb_doc_chunks, public.kb_doc_attachments to service_role;

-- Members read their workspaces' categories; admin-level ones only owners and admins. (The
-- rule of kb_readable_category_ids, written on the row's own columns so that a row being
-- inserted, which that function's snapshot cannot see yet, can be returned.)
create policy kb_categories_read on public.kb_categories for select to authenticated
  using (
    workspace_id = any ((select public.kb_workspace_ids(null))::uuid[])
    and (access_level <> 'admin' or workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin']))::uuid[]))
  );
-- Owners and admins create, change and delete categories (the Pricing setup is theirs).
create policy kb_categories_create on public.kb_categories for insert to authenticated
  with check (public.is_workspace_admin(workspace_id));
create policy kb_categories_change on public.kb_categories for update to authenticated
  using (public.is_workspace_admin(workspace_id))
  with check (public.is_workspace_admin(workspace_id));
create policy kb_categories_remove on public.kb_categories for delete to authenticated
  using (public.is_workspace_admin(workspace_id));

-- Documents: readable when their category is (member-level without a category).
create policy kb_docs_read on public.kb_docs for select to authenticated
  using (
    workspace_id = any ((select public.kb_workspace_ids(null))::uuid[])
    and (category_id is null or category_id = any ((select public.kb_readable_category_ids())::uuid[]))
  );
-- Owners, admins and members write documents into categories they can read (so pricing
-- documents only owners and admins); viewers only read.
create policy kb_docs_create on public.kb_docs for insert to authenticated
  with check (
    workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin', 'member']))::uuid[])
    and (category_id is null or category_id = any ((select public.kb_readable_category_ids())::uuid[]))
  );
create policy kb_docs_change on public.kb_docs for update to authenticated
  using (
    workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin', 'member']))::uuid[])
    and (category_id is null or category_id = any ((select public.kb_readable_category_ids())::uuid[]))
  )
  with check (
    workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin', 'member']))::uuid[])
    and (category_id is null or category_id = any ((select public.kb_readable_category_ids())::uuid[]))
  );
create policy kb_docs_remove on public.kb_docs for delete to authenticated
  using (
    workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin', 'member']))::uuid[])
    and (category_id is null or category_id = any ((select public.kb_readable_category_ids())::uuid[]))
  );

-- Chunks follow their document's visibility, read from the chunk's own copied columns.
create policy kb_doc_chunks_read on public.kb_doc_chunks for select to authenticated
  using (
    workspace_id = any ((select public.kb_workspace_ids(null))::uuid[])
    and (category_id is null or category_id = any ((select public.kb_readable_category_ids())::uuid[]))
  );
-- Whoever may write a document may replace its chunks.
create policy kb_doc_chunks_create on public.kb_doc_chunks for insert to authenticated
  with check (exists (
    select 1 from public.kb_docs d
     where d.id = doc_id
       and d.workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin', 'member']))::uuid[])
  ));
create policy kb_doc_chunks_remove on public.kb_doc_chunks for delete to authenticated
  using (
    workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin', 'member']))::uuid[])
    and (category_id is null or category_id = any ((select public.kb_readable_category_ids())::uuid[]))
  );

-- Attachments are visible with their document; writers of the document attach it to products.
create policy kb_doc_attachments_read on public.kb_doc_attachments for select to authenticated
  using (exists (select 1 from public.kb_docs d where d.id = doc_id));
create policy kb_doc_attachments_create on public.kb_doc_attachments for insert to authenticated
  with check (
    workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin', 'member']))::uuid[])
    and exists (select 1 from public.kb_docs d where d.id = doc_id)
  );
create policy kb_doc_attachments_remove on public.kb_doc_attachments for delete to authenticated
  using (
    workspace_id = any ((select public.kb_workspace_ids(array['owner', 'admin', 'member']))::uuid[])
    and exists (select 1 from public.kb_docs d where d.id = doc_id)
  );
