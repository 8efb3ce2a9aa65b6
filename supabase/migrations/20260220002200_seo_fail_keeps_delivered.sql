-- A failed SEO run keeps what it delivered (issue 31). A run that failed after Write refunded
-- every credit, while the draft had been readable through /rest/v1/seo_articles since its
-- checkpoint. Now a failure refunds only the stages whose output was not persisted
-- (packages/shared/seo/pipeline.ts), so the stages kept as charged must stay readable: failing a
-- row no longer drops the draft. research, plan, draft and analysis stay as the finished stages
-- left them; the article fields stay empty (only seo_article_finalize writes them).
--
-- Redefined from 20260211000100_seo_articles.sql; only `draft = null` goes. Same rules: the
-- service role only (the pipeline's worker, or the sweeper under its own claim id); RLS on
-- seo_articles is unchanged (the author and members of its workspace read, nobody but the
-- service role writes).
create or replace function public.seo_article_fail(p_id uuid, p_worker text, p_error text)
returns boolean
language sql security definer set search_path = '' as $$
  with u as (
    update public.seo_articles
       set status = 'failed', error = left(p_error, 2000), error_stage = current_stage,
           worker_id = null, completed_at = null
     where id = p_id and worker_id = p_worker and status in ('researching', 'planning', 'writing', 'analyzing')
    returning 1
  )
  select exists (select 1 from u);
$$;

revoke execute on function public.seo_article_fail(uuid, text, text) from public, anon, authenticated;
grant execute on function public.seo_article_fail(uuid, text, text) to service_role;
