-- Writing a KB document is one transaction: the row (upsert by the spec's key, or update by id)
-- and, when its content changed, the replacement of all its chunks and embeddings. The caller
-- embeds before calling (embedding may be a network call, which must not sit inside a
-- transaction) and passes p_chunks; when the stored content hash differs from the one the caller
-- saw, and no chunks were passed, the call fails with SQLSTATE 40001 so the caller embeds and
-- retries, and a document's chunks always match its content.
--
-- SECURITY INVOKER: RLS decides who may write which document.

-- p_chunks: [{chunk_index, heading, content, char_start, char_end, embedding: number[1024]}]
create function public.kb_replace_chunks(p_doc_id uuid, p_chunks jsonb, p_embedding_model text)
returns integer
language plpgsql security invoker set search_path = '' as $$
declare
  v_count integer;
begin
  delete from public.kb_doc_chunks where doc_id = p_doc_id;
  insert into public.kb_doc_chunks (doc_id, chunk_index, heading, content, char_start, char_end, embedding)
  select p_doc_id, (c ->> 'chunk_index')::integer, c ->> 'heading', c ->> 'content',
         (c ->> 'char_start')::integer, (c ->> 'char_end')::integer,
         (c ->> 'embedding')::extensions.vector(1024)
    from jsonb_array_elements(p_chunks) as c;
  get diagnostics v_count = row_count;
  update public.kb_docs
     set chunk_count = v_count, embedding_model = p_embedding_model, embedded_at = now()
   where id = p_doc_id;
  return v_count;
end $$;

-- Upsert by (workspace_id, title, category_id). Returns {document, created, re_embedded}.
create function public.kb_upsert_document(
  p_workspace_id uuid, p_title text, p_category_id uuid, p_content text, p_content_hash text,
  p_status text default null, p_price_doc_type text default null, p_source text default 'api',
  p_metadata jsonb default null, p_chunks jsonb default null, p_embedding_model text default null
) returns jsonb
language plpgsql security invoker set search_path = '' as $$
declare
  v_doc public.kb_docs;
  v_created boolean := false;
  v_changed boolean;
begin
  select * into v_doc from public.kb_docs
   where workspace_id = p_workspace_id and title = p_title and category_id is not distinct from p_category_id
   for update;
  if found then
    v_changed := v_doc.content_hash <> p_content_hash;
    if v_changed and p_chunks is null then
      raise exception 'content of document % changed; embed it and retry', v_doc.id using errcode = '40001';
    end if;
    update public.kb_docs
       set content = p_content, content_hash = p_content_hash,
           status = coalesce(p_status, status), price_doc_type = p_price_doc_type,
           metadata = coalesce(p_metadata, metadata), updated_by = auth.uid()
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
                                source, metadata)
    values (p_workspace_id, p_category_id, p_title, p_content, p_content_hash, coalesce(p_status, 'published'),
            p_price_doc_type, coalesce(p_source, 'api'), coalesce(p_metadata, '{}'::jsonb))
    returning * into v_doc;
    v_created := true;
    v_changed := true;
  end if;
  if v_changed then
    perform public.kb_replace_chunks(v_doc.id, p_chunks, p_embedding_model);
    select * into v_doc from public.kb_docs where id = v_doc.id;
  end if;
  return jsonb_build_object('document', to_jsonb(v_doc), 'created', v_created, 're_embedded', v_changed);
end $$;

-- Partial update by id. p_patch may hold title, category_id, status, price_doc_type, content,
-- metadata; a key present with null clears a nullable column. Returns {document, re_embedded},
-- or null when the caller cannot see the document.
create function public.kb_update_document(
  p_doc_id uuid, p_patch jsonb, p_content_hash text default null, p_chunks jsonb default null,
  p_embedding_model text default null
) returns jsonb
language plpgsql security invoker set search_path = '' as $$
declare
  v_doc public.kb_docs;
  v_changed boolean := false;
begin
  select * into v_doc from public.kb_docs where id = p_doc_id for update;
  if not found then
    return null;
  end if;
  if p_patch ? 'content' then
    if p_content_hash is null then
      raise exception 'content_hash is required with content' using errcode = '22023';
    end if;
    v_changed := v_doc.content_hash <> p_content_hash;
    if v_changed and p_chunks is null then
      raise exception 'content of document % changed; embed it and retry', v_doc.id using errcode = '40001';
    end if;
  end if;
  update public.kb_docs set
    title = case when p_patch ? 'title' then p_patch ->> 'title' else title end,
    category_id = case when p_patch ? 'category_id' then (p_patch ->> 'category_id')::uuid else category_id end,
    status = case when p_patch ? 'status' then p_patch ->> 'status' else status end,
    price_doc_type = case when p_patch ? 'price_doc_type' then p_patch ->> 'price_doc_type' else price_doc_type end,
    metadata = case when p_patch ? 'metadata' then coalesce(p_patch -> 'metadata', '{}'::jsonb) else metadata end,
    content = case when p_patch ? 'content' then p_patch ->> 'content' else content end,
    content_hash = case when p_patch ? 'content' then p_content_hash else content_hash end,
    updated_by = auth.uid()
   where id = p_doc_id
  returning * into v_doc;
  if not found then
    raise exception 'not allowed to change document %', p_doc_id using errcode = '42501';
  end if;
  if v_changed then
    perform public.kb_replace_chunks(v_doc.id, p_chunks, p_embedding_model);
    select * into v_doc from public.kb_docs where id = v_doc.id;
  end if;
  return jsonb_build_object('document', to_jsonb(v_doc), 're_embedded', v_changed);
end $$;

revoke execute on function public.kb_replace_chunks(uuid, jsonb, text),
  public.kb_upsert_document(uuid, text, uuid, text, text, text, text, text, jsonb, jsonb, text),
  public.kb_update_document(uuid, jsonb, text, jsonb, text) from public, anon;
grant execute on function public.kb_replace_chunks(uuid, jsonb, text),
  public.kb_upsert_document(uuid, text, uuid, text, text, text, text, text, jsonb, jsonb, text),
  public.kb_update_document(uuid, jsonb, text, jsonb, text) to authenticated, service_role;
