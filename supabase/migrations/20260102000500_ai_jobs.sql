-- Asynchronous AI backend jobs (document uploads through the gateway's multipart route), and the
-- private bucket the uploaded files live in. A job starts `pending`; the processing pipeline (a
-- later part of the platform) moves it on. The debit that paid for it is recorded so that a
-- failed job can be refunded.

create table public.ai_jobs (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  workspace_id uuid references public.workspaces (id) on delete cascade,
  job_type text not null check (job_type in ('document_upload')),
  status text not null default 'pending'
    check (status in ('pending', 'processing', 'completed', 'failed', 'cancelled')),
  progress integer not null default 0 check (progress between 0 and 100),
  message text,
  error text,
  storage_bucket text,
  storage_path text,
  filename text,
  content_type text,
  size_bytes bigint check (size_bytes >= 0),
  -- Set by the gateway (service role) after billing; never by the user.
  credit_transaction_id uuid references public.credit_transactions (id) on delete set null,
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz
);
create index ai_jobs_user_created_idx on public.ai_jobs (user_id, created_at desc);
create index ai_jobs_workspace_idx on public.ai_jobs (workspace_id) where workspace_id is not null;

create trigger ai_jobs_touch before update on public.ai_jobs
  for each row execute function public.touch_updated_at();

alter table public.ai_jobs enable row level security;

-- Users create jobs only in the pending state; status, progress and billing columns are the
-- system's (service role).
grant select on public.ai_jobs to authenticated;
grant insert (id, workspace_id, job_type, message, storage_bucket, storage_path, filename, content_type, size_bytes,
  metadata) on public.ai_jobs to authenticated;
grant all on public.ai_jobs to service_role;

-- A user sees their own jobs; owners and admins also see the jobs of their workspace.
create policy ai_jobs_read on public.ai_jobs for select to authenticated
  using (
    user_id = (select auth.uid())
    or (workspace_id is not null and public.is_workspace_admin(workspace_id))
  );
-- A user creates jobs for themselves, in a workspace they belong to (or none).
create policy ai_jobs_create on public.ai_jobs for insert to authenticated
  with check (
    user_id = (select auth.uid())
    and (workspace_id is null or public.is_workspace_member(workspace_id))
  );

-- Uploaded documents: private, 50 MB each, stored under <user id>/<job id>/<file name>.
insert into storage.buckets (id, name, public, file_size_limit)
values ('ai-documents', 'ai-documents', false, 52428800)
on conflict (id) do nothing;

-- A user uploads into their own folder of ai-documents.
create policy ai_documents_owner_insert on storage.objects for insert to authenticated
  with check (bucket_id = 'ai-documents' and (storage.foldername(name))[1] = (select auth.uid())::text);
-- A user reads back their own uploads.
create policy ai_documents_owner_read on storage.objects for select to authenticated
  using (bucket_id = 'ai-documents' and (storage.foldername(name))[1] = (select auth.uid())::text);
