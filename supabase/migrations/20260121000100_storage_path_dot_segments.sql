-- Stored object paths that the service role later reads must name exactly one object: no dot
-- segments, encoded or not. The ai_jobs rule compared only the first segment, so
-- `<own uid>/../<victim uid>/file.pdf` passed it, and a service-role download of that path (URL
-- resolution turns it into `<victim uid>/file.pdf`) returned the victim's file. The same with
-- `%2e%2e`, `..%2F` and `%252e` forms, which a later decode turns into dot segments.

-- True for a relative object path of plain segments: 1..1024 characters, no empty, `.` or `..`
-- segment, no backslash (a separator on some systems), no control character, and no `%` at all
-- (nothing percent-encoded can decode into a separator or a dot segment later). Paths the
-- platform writes itself never carry a `%` (the AI backend replaces everything but [A-Za-z0-9_.-]
-- in file names).
create function public.is_safe_object_path(p text) returns boolean
language sql immutable set search_path = '' as $$
  select p is not null
     and length(p) between 1 and 1024
     and p !~ '[\\%[:cntrl:]]'
     and not exists (select 1 from unnest(string_to_array(p, '/')) as s(seg) where s.seg in ('', '.', '..'))
$$;
revoke execute on function public.is_safe_object_path(text) from public;
grant execute on function public.is_safe_object_path(text) to anon, authenticated, service_role;

-- Every writer, the service role included: a job can only ever name a safe path.
alter table public.ai_jobs
  add constraint ai_jobs_storage_path_safe check (storage_path is null or public.is_safe_object_path(storage_path));

-- A user's job names a safe path inside their own folder of ai-documents (the policy refuses
-- before the constraint, so a user gets RLS's 42501 like every other foreign path).
alter policy ai_jobs_create on public.ai_jobs
  with check (
    user_id = (select auth.uid())
    and (workspace_id is null or public.is_workspace_member(workspace_id))
    and (
      (storage_bucket is null and storage_path is null)
      or (
        storage_bucket = 'ai-documents'
        and public.is_safe_object_path(storage_path)
        and split_part(storage_path, '/', 1) = (select auth.uid())::text
      )
    )
  );
