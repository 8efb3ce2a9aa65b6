-- ai_jobs: a job may only name a file in the caller's own folder of the ai-documents bucket.
-- The processing pipeline will read job files with the service role; without this check a user
-- could create a job pointing at another user's upload (or any bucket) and have it processed.

alter policy ai_jobs_create on public.ai_jobs
  with check (
    user_id = (select auth.uid())
    and (workspace_id is null or public.is_workspace_member(workspace_id))
    and (
      (storage_bucket is null and storage_path is null)
      or (storage_bucket = 'ai-documents' and split_part(storage_path, '/', 1) = (select auth.uid())::text)
    )
  );
