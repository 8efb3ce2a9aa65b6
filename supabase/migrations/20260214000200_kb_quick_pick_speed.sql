-- Quick pick in under 20 ms (issue 25): where kb_hybrid_search spent its time, and the fix.
--
-- Profile (bench/rag_search.ts, 1,000 price documents = 3,000 chunks): the caller's access
-- look-up took ~1 ms, the billing debit ~1.2 ms, embedding the query 0.01 ms, the HTTP floor
-- 0.1 ms; the rest (~35 ms p50) was this SQL function. Inside it:
--
-- 1. Every candidate distance detoasted a 4 kB embedding: a 1024-d vector is over the 2 kB
--    TOAST threshold, so it was compressed or stored out of line. Stored inline (PLAIN) for
--    rows written from now on, as document_chunks.embedding (20260214000100_rag_search.sql).
-- 2. The nearest neighbours came from scanning every chunk of the category and sorting (the
--    planner prices a vector distance like any operator): 10 ms for 3,000 chunks, against
--    0.7 ms for the HNSW walk (EXPLAIN ANALYZE). Now: exact only for up to 500 candidates
--    (~2 ms), ordered by the inner product (unit vectors: same order, a third of the
--    arithmetic); else the HNSW index, with sequential scans and sorts priced out and the
--    b-tree unusable for that query (RLS quals would otherwise bring it back).
--    A category of more than 500 chunks that is a tiny share of a huge table relies on the
--    iterative scan (hnsw.max_scan_tuples) to find enough of its rows.
-- 3. The any-word text query also matched words nearly every chunk of a category holds ("price"
--    in Pricing, "for", "the"), so ts_rank_cd (~20 us a chunk) ran over the whole category. The
--    text query now leaves out common function words (public.rag_tsquery), takes chunks with
--    every query word first, then with all words but one (public.rag_tsquery_most), and ranks at
--    most 250 all-word and 100 all-but-one matches.
--
-- The formula is unchanged (relevance_score = 0.7 x vector_score + 0.3 x text_score); text_score
-- is now ts_rank_cd against the query without function words. Signature, grants and RLS
-- behaviour are the same.

alter table public.kb_doc_chunks alter column embedding set storage plain;

create or replace function public.kb_hybrid_search(
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
  v_seqscan text := current_setting('enable_seqscan', true);
  v_sort text := current_setting('enable_sort', true);
  v_candidates bigint;
  v_exact boolean;
  v_ef_search text := current_setting('hnsw.ef_search', true);
  v_k integer := greatest(least(coalesce(p_match_count, 10), 200) * 4, 40);
  v_cats uuid[];
  v_uncategorised boolean;
  v_tsq tsquery;
  v_all tsquery;
  v_most tsquery;
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
  v_tsq := public.rag_tsquery(p_query_text, false);
  v_all := public.rag_tsquery(p_query_text, true);
  v_most := public.rag_tsquery_most(p_query_text);

  -- Exact or approximate nearest neighbours: up to 500 candidate chunks are scanned exactly
  -- (~2 ms); more are served by the HNSW index (iterative scan keeps walking until enough rows
  -- pass the filters), and the planner may not fall back to a scan that computes every
  -- candidate's distance (it prices those far below their real cost).
  -- Counted up to 501 only: a full count under RLS cost 7 ms for 3,000 chunks.
  select count(*) into v_candidates from (
    select 1 from public.kb_doc_chunks c
     where c.workspace_id = p_workspace_id
       and (c.category_id = any (v_cats) or (v_uncategorised and c.category_id is null))
     limit 501) x;
  v_exact := v_candidates <= 500;
  -- Two static statements (not one with branches folded per call), so each keeps a cached
  -- plan: re-planning this statement on every call cost more than executing it.
  if v_exact then
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
    -- Stored embeddings are unit length (every provider normalises), so the negative inner product
    -- orders exactly as the cosine distance at a third of the arithmetic.
    by_vector as (
      select e.id from eligible e order by e.embedding operator(extensions.<#>) p_query_embedding limit v_k
    ),
    -- Chunks with every query word, then with all but one; ranked among at most 250 (every word)
    -- and 100 (all but one) matches (ts_rank_cd costs ~20 us a chunk on PGlite: ranking every chunk of a category that
    -- all contain "sealant" took 20 ms). Past 250 matches the words barely discriminate, and the
    -- vector side decides.
    text_all as (
      select x.id, ts_rank_cd(x.fts, v_tsq, 32) as r
        from (select e.id, e.fts from eligible e where numnode(v_all) > 0 and e.fts @@ v_all limit 250) x
       order by r desc, x.id limit v_k
    ),
    text_any as (
      select x.id, ts_rank_cd(x.fts, v_tsq, 32) as r
        from (select e.id, e.fts from eligible e
               where numnode(v_tsq) > 1 and (select count(*) from text_all) < v_k
                 and e.fts @@ v_most and not e.fts @@ v_all limit 100) x
       order by r desc, x.id limit v_k
    ),
    by_text as (
      select a.id from text_all a union select o.id from text_any o
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
  else
    -- RLS quals on workspace_id/category_id make the b-tree usable again; "scan the category and
    -- sort by distance" must lose to the ordered HNSW scan, so sorts are priced out too (the
    -- statement's other sorts are unavoidable and so unaffected).
    perform pg_catalog.set_config('enable_seqscan', 'off', true);
    perform pg_catalog.set_config('enable_sort', 'off', true);
    return query
    -- Not materialized: each use is planned on its own, so by_vector can walk the HNSW index.
    with eligible as not materialized (
      select c.* from public.kb_doc_chunks c
       where coalesce(c.workspace_id, c.workspace_id) = p_workspace_id
         and (coalesce(c.category_id, c.category_id) = any (v_cats) or (v_uncategorised and c.category_id is null))
         and (p_price_doc_types is null or c.price_doc_type = any (p_price_doc_types))
         and c.status <> 'archived'
         and (not p_require_published or c.status = 'published')
    ),
    by_vector as (
      select e.id from eligible e order by e.embedding operator(extensions.<=>) p_query_embedding limit v_k
    ),
    -- Chunks with every query word, then with all but one; ranked among at most 250 (every word)
    -- and 100 (all but one) matches (ts_rank_cd costs ~20 us a chunk on PGlite: ranking every chunk of a category that
    -- all contain "sealant" took 20 ms). Past 250 matches the words barely discriminate, and the
    -- vector side decides.
    text_all as (
      select x.id, ts_rank_cd(x.fts, v_tsq, 32) as r
        from (select e.id, e.fts from eligible e where numnode(v_all) > 0 and e.fts @@ v_all limit 250) x
       order by r desc, x.id limit v_k
    ),
    text_any as (
      select x.id, ts_rank_cd(x.fts, v_tsq, 32) as r
        from (select e.id, e.fts from eligible e
               where numnode(v_tsq) > 1 and (select count(*) from text_all) < v_k
                 and e.fts @@ v_most and not e.fts @@ v_all limit 100) x
       order by r desc, x.id limit v_k
    ),
    by_text as (
      select a.id from text_all a union select o.id from text_any o
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
  end if;

  perform pg_catalog.set_config('hnsw.iterative_scan', coalesce(v_iterative_scan, 'off'), true);
  perform pg_catalog.set_config('hnsw.ef_search', coalesce(v_ef_search, '40'), true);
  perform pg_catalog.set_config('enable_seqscan', coalesce(v_seqscan, 'on'), true);
  perform pg_catalog.set_config('enable_sort', coalesce(v_sort, 'on'), true);
end $$;

