-- The Admin group's system and data actions (services/ai-backend/routes/admin_system.ts):
--   - product_embeddings: text embeddings of catalog products (admin_generate_product_embeddings),
--     one per product, with the hash of the text embedded so an edited product is re-embedded;
--   - document_images.ocr_*: the text the vision model read off an image (admin_process_ocr);
--   - admin-backups: the private bucket workspace snapshots are written to (admin_backup_data);
--   - admin_system_metrics(), admin_job_queue(), admin_cleanup_candidates(): the figures and
--     look-ups these actions need from the whole database (service role only).

create table public.product_embeddings (
  product_id uuid primary key references public.products (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  embedding extensions.vector(1024) not null,
  embedding_model text not null,
  -- sha-256 of the text that was embedded (name, sku, category, description, metadata).
  content_hash text not null,
  embedded_at timestamptz not null default now()
);
create index product_embeddings_workspace_idx on public.product_embeddings (workspace_id);

alter table public.product_embeddings enable row level security;
grant select on public.product_embeddings to authenticated;
grant all on public.product_embeddings to service_role;

-- A workspace's members read its products' embeddings (as they read the products); only the
-- service role writes them.
create policy product_embeddings_read on public.product_embeddings for select to authenticated
  using (public.is_workspace_member(workspace_id));

alter table public.document_images
  add column ocr_text text,
  add column ocr_model text,
  add column ocr_at timestamptz;

-- Workspace snapshots: private, written and read by the service role only (no user policies).
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('admin-backups', 'admin-backups', false, 104857600, array['application/json'])
on conflict (id) do nothing;

-- The job queue now: jobs per status, processing jobs whose heartbeat is older than
-- p_stale_before (their runner died; a resume takes them over), and the oldest pending job.
create function public.admin_job_queue(p_stale_before timestamptz)
returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object(
    'pending', count(*) filter (where status = 'pending'),
    'processing', count(*) filter (where status = 'processing'),
    'stale_processing', count(*) filter (
      where status = 'processing' and (heartbeat_at is null or heartbeat_at < p_stale_before)),
    'oldest_pending_at', min(created_at) filter (where status = 'pending'),
    'failed_last_24h', count(*) filter (where status = 'failed' and updated_at > now() - interval '24 hours')
  )
  from public.ai_jobs;
$$;

-- Platform figures from the database: jobs by status, throughput and durations over the last
-- 24 hours, error rates (jobs and model calls), credit use, and row counts and sizes of the
-- tables the AI backend writes.
create function public.admin_system_metrics()
returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  v_jobs jsonb;
  v_throughput jsonb;
  v_errors jsonb;
  v_credits jsonb;
  v_tables jsonb := '[]'::jsonb;
  v_table text;
  v_rows bigint;
begin
  select jsonb_build_object(
           'total', (select count(*) from public.ai_jobs),
           'by_status', coalesce((select jsonb_object_agg(status, n)
                                    from (select status, count(*) as n from public.ai_jobs group by status) s),
                                 '{}'::jsonb))
    into v_jobs;

  select jsonb_build_object(
           'window_hours', 24,
           'jobs_created', count(*) filter (where created_at > now() - interval '24 hours'),
           'jobs_completed', count(*) filter (where status = 'completed' and completed_at > now() - interval '24 hours'),
           'jobs_completed_per_hour',
             round(count(*) filter (where status = 'completed' and completed_at > now() - interval '24 hours') / 24.0, 3),
           'avg_duration_seconds',
             round(avg(extract(epoch from completed_at - started_at))
                     filter (where status = 'completed' and completed_at > now() - interval '24 hours'
                             and started_at is not null)::numeric, 3),
           'pages_processed', (select coalesce(sum(d.page_count), 0) from public.pipeline_documents d
                                 join public.ai_jobs j on j.id = d.job_id
                                where j.status = 'completed' and j.completed_at > now() - interval '24 hours'))
    into v_throughput
    from public.ai_jobs;

  select jsonb_build_object(
           'jobs_finished', f.finished,
           'jobs_failed', f.failed,
           'job_failure_rate', case when f.finished > 0 then round(f.failed::numeric / f.finished, 4) else 0 end,
           'model_calls', m.calls,
           'model_calls_failed', m.failed,
           'model_call_error_rate', case when m.calls > 0 then round(m.failed::numeric / m.calls, 4) else 0 end)
    into v_errors
    from (select count(*) filter (where status in ('completed', 'failed')) as finished,
                 count(*) filter (where status = 'failed') as failed
            from public.ai_jobs where updated_at > now() - interval '24 hours') f,
         (select count(*) as calls, count(*) filter (where not ok) as failed
            from public.ai_job_model_calls where created_at > now() - interval '24 hours') m;

  select jsonb_build_object(
           'window_hours', 24,
           'debited', coalesce(-sum(amount) filter (where kind = 'debit'), 0),
           'refunded', coalesce(sum(amount) filter (where kind = 'refund'), 0),
           'net_used', coalesce(-sum(amount) filter (where kind in ('debit', 'refund')), 0),
           'granted', coalesce(sum(amount) filter (where kind in ('grant', 'purchase', 'adjustment') and amount > 0), 0),
           'by_action', coalesce((select jsonb_object_agg(action, used)
                                    from (select action, -sum(amount) as used from public.credit_transactions
                                           where kind = 'debit' and created_at > now() - interval '24 hours'
                                           group by action) a), '{}'::jsonb))
    into v_credits
    from public.credit_transactions where created_at > now() - interval '24 hours';

  foreach v_table in array array[
    'ai_jobs', 'ai_job_checkpoints', 'ai_job_model_calls', 'pipeline_documents', 'pipeline_products',
    'document_images', 'document_chunks', 'document_relationships', 'kb_docs', 'kb_doc_chunks', 'products',
    'product_embeddings', 'credit_transactions', 'ai_usage_logs', 'ai_prompts', 'ai_prompt_history'
  ] loop
    execute format('select count(*) from public.%I', v_table) into v_rows;
    v_tables := v_tables || jsonb_build_object(
      'table', v_table, 'rows', v_rows,
      'total_bytes', pg_catalog.pg_total_relation_size(format('public.%I', v_table)::regclass));
  end loop;

  return jsonb_build_object('jobs', v_jobs, 'throughput', v_throughput, 'error_rates', v_errors,
                            'credits', v_credits, 'tables', v_tables,
                            'database_bytes', pg_catalog.pg_database_size(pg_catalog.current_database()),
                            'generated_at', now());
end $$;

-- What admin_cleanup_data would remove, by rule (at most p_limit of each):
--   failed_jobs    failed or cancelled jobs last changed more than p_older_than_days ago (with the
--                  partial document they cascade to, and their files);
--   orphan_uploads ai-documents objects no job names, older than p_grace_minutes;
--   orphan_images  material-images objects under a document id that no longer exists, older
--                  than p_grace_minutes;
--   old_prompt_tests  prompt test records older than p_older_than_days.
-- Completed, pending and processing jobs are never candidates.
create function public.admin_cleanup_candidates(p_older_than_days integer, p_grace_minutes integer, p_limit integer)
returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object(
    'failed_jobs', coalesce((
      select jsonb_agg(jsonb_build_object('id', j.id, 'storage_bucket', j.storage_bucket,
                                          'storage_path', j.storage_path, 'document_id', d.id))
        from (select * from public.ai_jobs
               where status in ('failed', 'cancelled')
                 and updated_at < now() - make_interval(days => p_older_than_days)
               order by updated_at limit p_limit) j
        left join public.pipeline_documents d on d.job_id = j.id), '[]'::jsonb),
    'orphan_uploads', coalesce((
      select jsonb_agg(o.name) from (
        select o.name from storage.objects o
         where o.bucket_id = 'ai-documents'
           and o.created_at < now() - make_interval(mins => p_grace_minutes)
           and not exists (select 1 from public.ai_jobs j
                            where j.storage_bucket = 'ai-documents' and j.storage_path = o.name)
         order by o.created_at limit p_limit) o), '[]'::jsonb),
    'orphan_images', coalesce((
      select jsonb_agg(o.name) from (
        select o.name from storage.objects o
         where o.bucket_id = 'material-images'
           and o.created_at < now() - make_interval(mins => p_grace_minutes)
           and not exists (select 1 from public.pipeline_documents d
                            where d.id::text = split_part(o.name, '/', 1))
         order by o.created_at limit p_limit) o), '[]'::jsonb),
    'old_prompt_tests', coalesce((
      select jsonb_agg(t.id) from (
        select id from public.ai_prompt_tests
         where created_at < now() - make_interval(days => p_older_than_days)
         order by created_at limit p_limit) t), '[]'::jsonb)
  );
$$;

revoke execute on function public.admin_job_queue(timestamptz), public.admin_system_metrics(),
  public.admin_cleanup_candidates(integer, integer, integer) from public, anon, authenticated;
grant execute on function public.admin_job_queue(timestamptz), public.admin_system_metrics(),
  public.admin_cleanup_candidates(integer, integer, integer) to service_role;
