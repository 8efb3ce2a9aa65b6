-- Hybrid KB search in one SQL function: pgvector (HNSW, cosine) plus Postgres full text (GIN).
--
-- Candidates: the k nearest chunks by embedding and the k best full-text matches (k = 4 x the
-- requested count, at least 40), both under the same filters, so neither method can starve the
-- other. Each candidate is then scored:
--
--   vector_score    = 1 - cosine_distance(chunk.embedding, query_embedding)        in [-1, 1]
--   text_score      = ts_rank_cd(chunk.fts, any-word query, normalisation 32)      in [0, 1)
--   relevance_score = w * vector_score + (1 - w) * text_score,   w = p_vector_weight (0.7)
--
-- A weighted sum rather than reciprocal rank fusion keeps relevance_score on an absolute scale,
-- so a threshold (match_threshold / similarity_threshold) means the same thing for every query.
-- The text query matches any word of the query (words OR-ed), ranked by cover density, so exact
-- SKUs and manufacturer names lift a chunk without requiring every word.
--
-- SECURITY INVOKER: RLS on the categories, documents and chunks decides what the caller sees;
-- the filters below only narrow that further. Archived documents are never returned.

create function public.kb_hybrid_search(
  p_workspace_id uuid,
  p_query_text text,
  p_query_embedding extensions.vector(1024),
  p_match_count integer default 10,
  p_match_threshold double precision default 0.2,
  p_category_id uuid default null,
  p_category_slug text default null,
  p_price_doc_types text[] default null,
  p_require_published boolean default false,
  p_access_levels text[] default null,
  p_vector_weight double precision default 0.7
) returns table (
  chunk_id uuid, doc_id uuid, document_title text, content text, chunk_index integer, heading text,
  category_id uuid, category_slug text, category_name text, access_level text, price_doc_type text,
  status text, vector_score double precision, text_score double precision, relevance_score double precision
)
language plpgsql stable security invoker set search_path = ''
as $$
#variable_conflict use_column
declare
  -- The caller's HNSW settings, put back before returning (what a SET clause would do).
  v_iterative_scan text := current_setting('hnsw.iterative_scan', true);
  v_ef_search text := current_setting('hnsw.ef_search', true);
  v_k integer := greatest(least(coalesce(p_match_count, 10), 200) * 4, 40);
  v_cats uuid[];
  v_uncategorised boolean;
  v_tsq tsquery;
  v_w double precision := least(greatest(coalesce(p_vector_weight, 0.7), 0), 1);
begin
  -- Filtered HNSW scans keep walking the graph until enough rows pass the filters (pgvector 0.8).
  -- Set here rather than in a SET clause: a SET clause naming hnsw.* is checked when the function
  -- is created, and a non-superuser (postgres on hosted Supabase) is refused (42501) in a session
  -- where pgvector's library is not loaded yet, as in a fresh per-file migration session. By the
  -- time the body runs, p_query_embedding has loaded it, so these are ordinary user settings.
  perform pg_catalog.set_config('hnsw.iterative_scan', 'relaxed_order', true);
  perform pg_catalog.set_config('hnsw.ef_search', '100', true);

  -- Categories that pass the filters and RLS (an admin-level category is simply absent for a
  -- member, so its chunks are too).
  select coalesce(array_agg(c.id), '{}') into v_cats
    from public.kb_categories c
   where c.workspace_id = p_workspace_id
     and (p_category_id is null or c.id = p_category_id)
     and (p_category_slug is null or c.slug = p_category_slug)
     and (p_access_levels is null or c.access_level = any (p_access_levels));
  -- A document without a category is member-level.
  v_uncategorised := p_category_id is null and p_category_slug is null
    and (p_access_levels is null or 'member' = any (p_access_levels));
  v_tsq := replace(plainto_tsquery('simple'::regconfig, coalesce(p_query_text, ''))::text, ' & ', ' | ')::tsquery;

  return query
  -- Not materialized: each use is planned on its own, so by_vector can walk the HNSW index.
  with eligible as not materialized (
    select c.* from public.kb_doc_chunks c
     where c.workspace_id = p_workspace_id
       and (c.category_id = any (v_cats) or (v_uncategorised and c.category_id is null))
       and (p_price_doc_types is null or c.price_doc_type = any (p_price_doc_types))
       and c.status <> 'archived'
       and (not p_require_published or c.status = 'published')
  ),
  by_vector as (
    select e.id from eligible e order by e.embedding operator(extensions.<=>) p_query_embedding limit v_k
  ),
  by_text as (
    select e.id from eligible e
     where numnode(v_tsq) > 0 and e.fts @@ v_tsq
     order by ts_rank_cd(e.fts, v_tsq, 32) desc limit v_k
  ),
  scored as (
    select c.id, c.doc_id, c.content, c.chunk_index, c.heading, c.category_id, c.price_doc_type, c.status,
           (1 - (c.embedding operator(extensions.<=>) p_query_embedding))::double precision as vs,
           (case when numnode(v_tsq) > 0 and c.fts @@ v_tsq then ts_rank_cd(c.fts, v_tsq, 32) else 0 end)
             ::double precision as ts
      from public.kb_doc_chunks c
     where c.id in (select id from by_vector union select id from by_text)
  )
  select s.id, s.doc_id, d.title, s.content, s.chunk_index, s.heading, s.category_id, cat.slug, cat.name,
         coalesce(cat.access_level, 'member'), s.price_doc_type, s.status, s.vs, s.ts,
         v_w * s.vs + (1 - v_w) * s.ts as relevance_score
    from scored s
    join public.kb_docs d on d.id = s.doc_id
    left join public.kb_categories cat on cat.id = s.category_id
   where v_w * s.vs + (1 - v_w) * s.ts >= coalesce(p_match_threshold, 0)
   order by relevance_score desc, s.doc_id, s.chunk_index
   limit least(coalesce(p_match_count, 10), 200);

  perform pg_catalog.set_config('hnsw.iterative_scan', coalesce(v_iterative_scan, 'off'), true);
  perform pg_catalog.set_config('hnsw.ef_search', coalesce(v_ef_search, '40'), true);
end $$;

revoke execute on function public.kb_hybrid_search(uuid, text, extensions.vector, integer, double precision, uuid,
  text, text[], boolean, text[], double precision) from public, anon;
grant execute on function public.kb_hybrid_search(uuid, text, extensions.vector, integer, double precision, uuid,
  text, text[], boolean, text[], double precision) to authenticated, service_role;

-- Counts for kb_health and monitoring, as the caller sees them (RLS applies): categories,
-- documents, chunks, and the bytes of document text and embeddings.
create function public.kb_stats(p_workspace_id uuid default null) returns jsonb
language sql stable security invoker set search_path = '' as $$
  select jsonb_build_object(
    'categories', (select count(*) from public.kb_categories c
                    where p_workspace_id is null or c.workspace_id = p_workspace_id),
    'documents', (select count(*) from public.kb_docs d where p_workspace_id is null or d.workspace_id = p_workspace_id),
    'chunks', (select count(*) from public.kb_doc_chunks c where p_workspace_id is null or c.workspace_id = p_workspace_id),
    'content_bytes', (select coalesce(sum(octet_length(d.content)), 0) from public.kb_docs d
                       where p_workspace_id is null or d.workspace_id = p_workspace_id),
    'embedding_bytes', (select coalesce(sum(pg_catalog.pg_column_size(c.embedding)), 0) from public.kb_doc_chunks c
                         where p_workspace_id is null or c.workspace_id = p_workspace_id)
  )
$$;
revoke execute on function public.kb_stats(uuid) from public, anon;
grant execute on function public.kb_stats(uuid) to authenticated, service_role;
