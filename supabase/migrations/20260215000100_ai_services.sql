-- The AI services of the gateway's Images, AI services and Direct LLM groups (issue 25):
--
-- ai_service_calls   every model call those services make (action, task type, model, purpose,
--                    tokens, latency, outcome, attempt) and whether it was an escalation: the
--                    validation model asked after a low-confidence first answer (two-stage
--                    classification), or a tie-breaking model after models disagreed on a
--                    critical task (consensus). ai_escalation_stats reads it.
-- image_uploads      images uploaded by images_upload_and_analyze: the stored file (private
--                    bucket image-uploads, path {user_id}/{id}.{ext}) and its vision analysis.
-- document_images    gains classified_at and classification (the last images_reclassify result:
--                    models, first verdict, whether the validation model decided).
--
-- Rows are written by the AI backend with the service role after it authorised the caller; users
-- read their own rows and their workspaces' rows.

create table public.ai_service_calls (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete cascade,
  workspace_id uuid references public.workspaces (id) on delete cascade,
  action text not null,
  task_type text not null,
  model text not null,
  purpose text not null,
  attempt integer not null default 1 check (attempt >= 1),
  ok boolean not null,
  error text,
  input_tokens integer,
  output_tokens integer,
  latency_ms integer not null check (latency_ms >= 0),
  escalated boolean not null default false,
  escalation_reason text check (escalation_reason in ('low_confidence', 'disagreement')),
  request_id text,
  created_at timestamptz not null default now(),
  check (escalated = (escalation_reason is not null))
);
comment on table public.ai_service_calls is
  'Model calls of the AI services (images, ai_*, direct LLM); escalated marks validation / tie-break calls';
create index ai_service_calls_user_idx on public.ai_service_calls (user_id, created_at desc);
create index ai_service_calls_workspace_idx on public.ai_service_calls (workspace_id, created_at desc)
  where workspace_id is not null;

create table public.image_uploads (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  workspace_id uuid references public.workspaces (id) on delete cascade,
  storage_bucket text not null default 'image-uploads',
  storage_path text not null unique,
  filename text not null,
  media_type text not null check (media_type in ('image/png', 'image/jpeg', 'image/gif', 'image/webp')),
  size_bytes integer not null check (size_bytes > 0),
  width integer,
  height integer,
  material_type text,
  confidence real check (confidence between 0 and 1),
  analysis jsonb not null,
  model text not null,
  created_at timestamptz not null default now()
);
comment on table public.image_uploads is
  'Images uploaded through images_upload_and_analyze with their vision analysis';
create index image_uploads_user_idx on public.image_uploads (user_id, created_at desc);
create index image_uploads_workspace_idx on public.image_uploads (workspace_id, created_at desc)
  where workspace_id is not null;

alter table public.document_images
  add column classified_at timestamptz,
  add column classification jsonb;

alter table public.ai_service_calls enable row level security;
alter table public.image_uploads enable row level security;

grant select on public.ai_service_calls, public.image_uploads to authenticated;
grant all on public.ai_service_calls, public.image_uploads to service_role;

-- A user reads their own model calls and those made in a workspace they belong to.
create policy ai_service_calls_read on public.ai_service_calls for select to authenticated
  using (
    user_id = (select auth.uid())
    or (workspace_id is not null and public.is_workspace_member(workspace_id))
  );

-- An upload is read by its uploader and by the members of its workspace.
create policy image_uploads_read on public.image_uploads for select to authenticated
  using (
    user_id = (select auth.uid())
    or (workspace_id is not null and public.is_workspace_member(workspace_id))
  );

-- Uploaded images: private, 10 MB each, written by the AI backend only.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('image-uploads', 'image-uploads', false, 10485760,
        array['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
on conflict (id) do nothing;

-- A stored upload is downloadable by whoever may read its image_uploads row.
create policy image_uploads_object_read on storage.objects for select to authenticated
  using (
    bucket_id = 'image-uploads'
    and exists (select 1 from public.image_uploads u where u.storage_path = name)
  );
