-- What the PDF pipeline produces for one document: the document, the products discovered in it
-- (with their page ranges and extracted metadata), its material images (stored in the public
-- bucket material-images at {document_id}/{filename}, with five 768-d unit embeddings), its
-- chunks (1024-d embeddings, linked to a product by page range) and the relationships between
-- them. Every table has a natural key the stages upsert on, so re-running a stage after a crash
-- never duplicates rows. Rows are written by the pipeline (service role) only.

create table public.pipeline_documents (
  id uuid primary key,
  job_id uuid not null unique references public.ai_jobs (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  workspace_id uuid references public.workspaces (id) on delete cascade,
  filename text,
  page_count integer not null check (page_count >= 0),
  created_at timestamptz not null default now()
);

create table public.pipeline_products (
  id uuid primary key default gen_random_uuid(),
  document_id uuid not null references public.pipeline_documents (id) on delete cascade,
  name text not null,
  page_start integer not null,
  page_end integer not null check (page_end >= page_start),
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  unique (document_id, name)
);

create table public.document_images (
  id uuid primary key default gen_random_uuid(),
  document_id uuid not null references public.pipeline_documents (id) on delete cascade,
  filename text not null,
  storage_url text not null,
  page_number integer not null,
  width integer,
  height integer,
  category text,
  confidence real,
  visual_slig_768 extensions.vector(768) not null,
  color_slig_768 extensions.vector(768) not null,
  texture_slig_768 extensions.vector(768) not null,
  style_slig_768 extensions.vector(768) not null,
  material_slig_768 extensions.vector(768) not null,
  created_at timestamptz not null default now(),
  unique (document_id, filename)
);

create table public.document_chunks (
  id uuid primary key default gen_random_uuid(),
  document_id uuid not null references public.pipeline_documents (id) on delete cascade,
  chunk_index integer not null,
  content text not null,
  page_start integer not null,
  page_end integer not null,
  product_id uuid references public.pipeline_products (id) on delete set null,
  embedding extensions.vector(1024) not null,
  embedding_model text not null,
  created_at timestamptz not null default now(),
  unique (document_id, chunk_index)
);

create table public.document_relationships (
  id uuid primary key default gen_random_uuid(),
  document_id uuid not null references public.pipeline_documents (id) on delete cascade,
  kind text not null check (kind in ('chunk_image', 'product_image')),
  source_id uuid not null,
  image_id uuid not null references public.document_images (id) on delete cascade,
  similarity real not null,
  created_at timestamptz not null default now(),
  unique (kind, source_id, image_id)
);

create index pipeline_products_document_idx on public.pipeline_products (document_id);
create index document_images_document_idx on public.document_images (document_id);
create index document_chunks_document_idx on public.document_chunks (document_id);
create index document_relationships_document_idx on public.document_relationships (document_id);

alter table public.pipeline_documents enable row level security;
alter table public.pipeline_products enable row level security;
alter table public.document_images enable row level security;
alter table public.document_chunks enable row level security;
alter table public.document_relationships enable row level security;

grant select on public.pipeline_documents, public.pipeline_products, public.document_images,
  public.document_chunks, public.document_relationships to authenticated;
grant all on public.pipeline_documents, public.pipeline_products, public.document_images,
  public.document_chunks, public.document_relationships to service_role;

-- A document is read by whoever uploaded it and by the members of its workspace.
create policy pipeline_documents_read on public.pipeline_documents for select to authenticated
  using (
    user_id = (select auth.uid())
    or (workspace_id is not null and public.is_workspace_member(workspace_id))
  );
-- Products of a document are read by whoever may read the document.
create policy pipeline_products_read on public.pipeline_products for select to authenticated
  using (exists (select 1 from public.pipeline_documents d where d.id = document_id));
-- Images of a document are read by whoever may read the document.
create policy document_images_read on public.document_images for select to authenticated
  using (exists (select 1 from public.pipeline_documents d where d.id = document_id));
-- Chunks of a document are read by whoever may read the document.
create policy document_chunks_read on public.document_chunks for select to authenticated
  using (exists (select 1 from public.pipeline_documents d where d.id = document_id));
-- Relationships of a document are read by whoever may read the document.
create policy document_relationships_read on public.document_relationships for select to authenticated
  using (exists (select 1 from public.pipeline_documents d where d.id = document_id));

-- Material images: public (the spec's public URLs), written by the pipeline only.
insert into storage.buckets (id, name, public, file_size_limit)
values ('material-images', 'material-images', true, 10485760)
on conflict (id) do nothing;
