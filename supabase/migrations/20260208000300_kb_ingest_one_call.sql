-- KB ingest in fewer statements (bench/kb.ts; docs19 notes): kb_upsert_document now also
-- keeps the document's price_entries row in step (what the ingest hook storePriceEntries did
-- with two more round trips after the RPC), in the same transaction, and writes a document and
-- its chunk bookkeeping in one statement instead of an insert/update followed by a second
-- update from kb_replace_chunks (each firing kb_docs' triggers again).
--
-- Behaviour is unchanged for callers that do not pass the new arguments (p_sync_price false:
-- price entries are not touched). With p_sync_price:
--   p_price null      the document is not priced: its price_entries row is deleted;
--   p_price {...}     {price_doc_type, content_hash, parser_version, entries, issues} parsed by
--                     the caller; upserted unless the stored row has the same content_hash,
--                     parser_version and price_doc_type (as storePriceEntries skipped it).
-- The caller parses before it knows a new document's id, so it parses with p_assumed_id (a
-- random uuid, or the id it read) and every occurrence of it in p_price is replaced with the
-- document's real id.
--
-- SECURITY INVOKER as before: RLS and column privileges decide who may write the document, its
-- chunks and its price entries.

drop function public.kb_upsert_document(uuid, text, uuid, text, text, text, text, text, jsonb, jsonb, text);

create function public.kb_upsert_document(
  p_workspace_id uuid, p_title text, p_category_id uuid, p_content text, p_content_hash text,
  p_status text default null, p_price_doc_type text default null, p_source text default 'api',
  p_metadata jsonb default null, p_chunks jsonb default null, p_embedding_model text default null,
  p_sync_price boolean default false, p_price jsonb default null, p_assumed_id uuid default null
) returns jsonb
language plpgsql security invoker set search_path = '' as $$
declare
  v_doc public.kb_docs;
  v_created boolean := false;
  v_changed boolean;
  v_count integer := coalesce(jsonb_array_length(p_chunks), 0);
  v_price jsonb := p_price;
begin
  select * into v_doc from public.kb_docs
   where workspace_id = p_workspace_id and title = p_title and category_id is not distinct from p_category_id
   for update;
  if found then
    v_changed := v_doc.content_hash <> p_content_hash;
    if v_changed and p_chunks is null then
      raise exception 'content of document % changed; embed it and retry', v_doc.id using errcode = '40001';
    end if;
    if v_changed then
      delete from public.kb_doc_chunks where doc_id = v_doc.id;
    end if;
    update public.kb_docs
       set content = p_content, content_hash = p_content_hash,
           status = coalesce(p_status, status), price_doc_type = p_price_doc_type,
           metadata = coalesce(p_metadata, metadata), updated_by = auth.uid(),
           chunk_count = case when v_changed then v_count else chunk_count end,
           embedding_model = case when v_changed then p_embedding_model else embedding_model end,
           embedded_at = case when v_changed then now() else embedded_at end
     where id = v_doc.id
    returning * into v_doc;
    if not found then
      raise exception 'not allowed to change document %', v_doc.id using errcode = '42501';
    end if;
  else
    if p_chunks is null then
      raise exception 'a new document needs its chunks' using errcode = '40001';
    end if;
    insert into public.kb_docs (workspace_id, category_id, title, content, content_hash, status, price_doc_type,
                                source, metadata, chunk_count, embedding_model, embedded_at)
    values (p_workspace_id, p_category_id, p_title, p_content, p_content_hash, coalesce(p_status, 'published'),
            p_price_doc_type, coalesce(p_source, 'api'), coalesce(p_metadata, '{}'::jsonb), v_count,
            p_embedding_model, now())
    returning * into v_doc;
    v_created := true;
    v_changed := true;
  end if;
  if v_changed then
    insert into public.kb_doc_chunks (doc_id, chunk_index, heading, content, char_start, char_end, embedding)
    select v_doc.id, (c ->> 'chunk_index')::integer, c ->> 'heading', c ->> 'content',
           (c ->> 'char_start')::integer, (c ->> 'char_end')::integer,
           (c ->> 'embedding')::extensions.vector(1024)
      from jsonb_array_elements(p_chunks) as c;
  end if;
  if p_sync_price then
    if v_price is null then
      delete from public.price_entries where kb_doc_id = v_doc.id;
    else
      if p_assumed_id is not null and p_assumed_id <> v_doc.id then
        v_price := replace(v_price::text, p_assumed_id::text, v_doc.id::text)::jsonb;
      end if;
      insert into public.price_entries as e (workspace_id, kb_doc_id, price_doc_type, content_hash, parser_version,
                                             entries, issues)
      values (v_doc.workspace_id, v_doc.id, v_price ->> 'price_doc_type', v_price ->> 'content_hash',
              v_price ->> 'parser_version', v_price -> 'entries', coalesce(v_price -> 'issues', '[]'::jsonb))
      on conflict (kb_doc_id) do update
        set workspace_id = excluded.workspace_id, price_doc_type = excluded.price_doc_type,
            content_hash = excluded.content_hash, parser_version = excluded.parser_version,
            entries = excluded.entries, issues = excluded.issues
        where (e.content_hash, e.parser_version, e.price_doc_type)
              is distinct from (excluded.content_hash, excluded.parser_version, excluded.price_doc_type);
    end if;
  end if;
  return jsonb_build_object('document', to_jsonb(v_doc), 'created', v_created, 're_embedded', v_changed);
end $$;

revoke execute on function public.kb_upsert_document(uuid, text, uuid, text, text, text, text, text, jsonb, jsonb,
  text, boolean, jsonb, uuid) from public, anon;
grant execute on function public.kb_upsert_document(uuid, text, uuid, text, text, text, text, text, jsonb, jsonb,
  text, boolean, jsonb, uuid) to authenticated, service_role;
