-- Batch ingest of KB documents: POST /api/kb/documents/batch (an AI-backend route beyond the
-- spec's gateway table, for imports; docs/kb-performance.md). One call writes up to 100 documents
-- with kb_upsert_document's exact semantics each (upsert by workspace, title and category; chunks
-- replaced only when the content changed; price entries kept in step), all in one transaction:
-- every document is written or none is. A failure names the document: its message starts with
-- `documents[i]: ` (0-based, input order) and keeps its SQLSTATE, so the caller maps it as it maps
-- kb_upsert_document's errors (42501 403, 22023 400, 40001 embed and retry, ...).
--
-- p_documents: [{title, category_id, content, content_hash, status, price_doc_type, source,
--                metadata, chunks, embedding_model, sync_price, price, assumed_id}], each as the
-- same-named p_ argument of kb_upsert_document (JSON null = SQL null). Returns the array of
-- kb_upsert_document's results ({document, created, re_embedded}) in input order.
--
-- SECURITY INVOKER: RLS and column privileges decide every write, as for one document.
create function public.kb_upsert_documents(p_workspace_id uuid, p_documents jsonb)
returns jsonb
language plpgsql security invoker set search_path = '' as $$
declare
  v_out jsonb[] := '{}';
  v_i integer := 0;
  v_state text;
  v_message text;
  v_detail text;
  v_hint text;
  d jsonb;
begin
  if p_documents is null or pg_catalog.jsonb_typeof(p_documents) <> 'array' then
    raise exception 'p_documents must be a JSON array' using errcode = '22023';
  end if;
  if pg_catalog.jsonb_array_length(p_documents) > 100 then
    raise exception 'at most 100 documents per batch, got %', pg_catalog.jsonb_array_length(p_documents)
      using errcode = '22023';
  end if;
  begin
    for d in select e.value from pg_catalog.jsonb_array_elements(p_documents) as e loop
      if pg_catalog.jsonb_typeof(d) <> 'object' then
        raise exception 'not a JSON object' using errcode = '22023';
      end if;
      v_out := v_out || public.kb_upsert_document(
        p_workspace_id,
        d ->> 'title',
        (d ->> 'category_id')::uuid,
        d ->> 'content',
        d ->> 'content_hash',
        d ->> 'status',
        d ->> 'price_doc_type',
        coalesce(d ->> 'source', 'api'),
        nullif(d -> 'metadata', 'null'::jsonb),
        nullif(d -> 'chunks', 'null'::jsonb),
        d ->> 'embedding_model',
        coalesce((d ->> 'sync_price')::boolean, false),
        nullif(d -> 'price', 'null'::jsonb),
        (d ->> 'assumed_id')::uuid
      );
      v_i := v_i + 1;
    end loop;
  exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_message = message_text, v_detail = pg_exception_detail,
      v_hint = pg_exception_hint;
    raise exception using errcode = v_state, message = pg_catalog.format('documents[%s]: %s', v_i, v_message),
      detail = coalesce(v_detail, ''), hint = coalesce(v_hint, '');
  end;
  return pg_catalog.to_jsonb(v_out);
end $$;

revoke execute on function public.kb_upsert_documents(uuid, jsonb) from public, anon;
grant execute on function public.kb_upsert_documents(uuid, jsonb) to authenticated, service_role;
