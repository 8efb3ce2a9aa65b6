-- The private bucket for generated quote PDFs.
--
-- Objects are named <workspace_id>/<quote_id>/<file>.pdf. generate-quote-pdf authorises the
-- caller (the quote must be visible to them under RLS), then uploads with the service role and
-- hands out a signed URL valid 7 days; nobody writes here with their own JWT. Members may still
-- read their workspace's PDFs directly through /storage/v1 with their JWT.

insert into storage.buckets (id, name, public, allowed_mime_types)
values ('quote-pdfs', 'quote-pdfs', false, array['application/pdf'])
on conflict (id) do nothing;

-- True when `name` lies under a folder named after a workspace the caller belongs to. Names that
-- do not start with a uuid folder belong to nobody (and must not raise a cast error in a policy).
create function public.quote_pdf_visible(name text) returns boolean
language plpgsql stable set search_path = '' as $$
declare
  v_folder text := split_part(name, '/', 1);
begin
  if v_folder !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return false;
  end if;
  return public.is_workspace_member(v_folder::uuid);
end $$;
revoke execute on function public.quote_pdf_visible(text) from public;
grant execute on function public.quote_pdf_visible(text) to authenticated, service_role;

-- Workspace members read (download, sign, list) their workspace's quote PDFs. There are no
-- insert, update or delete policies: only the service role writes in this bucket.
create policy "quote-pdfs: members read" on storage.objects for select to authenticated
  using (bucket_id = 'quote-pdfs' and public.quote_pdf_visible(name));
