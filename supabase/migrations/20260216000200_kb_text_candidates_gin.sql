-- Quick pick speed, part 2 (perf): the text candidates of kb_hybrid_search through the GIN index.
--
-- Profile (bench corpus: 1,000 price documents = 2,400 chunks, all in the Pricing category):
-- kb_hybrid_search spent most of its time in the two full-text tiers. Under RLS the planner
-- answers `fts @@ query` by reading every chunk of the category (the policy's workspace quals
-- make the (workspace_id, category_id) b-tree look cheap, and the category holds every row) and
-- testing each tsvector: 3-6 ms a tier after 20260216000100, 20-34 ms before it. The GIN index
-- on fts finds the same rows without reading the others.
--
-- public.kb_text_candidates returns the ids of the first p_limit chunks of a workspace matching
-- p_match (and not p_exclude) under the search's filters, found through the GIN index only. It
-- is SECURITY DEFINER so that the policy's quals cannot steer the plan away from the index, and
-- applies the same visibility as the kb_doc_chunks_read policy itself: a workspace the caller
-- belongs to (kb_workspace_ids), categories the caller may read (kb_readable_category_ids; a
-- chunk without a category is visible with its workspace). The service role sees everything,
-- as RLS lets it. It returns ids only; kb_hybrid_search then reads and ranks those chunks as the
-- caller, under RLS, exactly as before. Results are the same sets the scans took (the first 250
-- all-word and 100 all-but-one matches in table order) and the same ranking.
--
-- GIN fast update is turned off for kb_doc_chunks_fts_idx: with it, new entries wait in a
-- pending list that every search scans linearly until a vacuum merges it (on PGlite, never), so
-- a freshly ingested price list made each index look-up ~1 ms; now they go straight into the
-- index (the insert cost is the same work, done at once).

alter index public.kb_doc_chunks_fts_idx set (fastupdate = off);

create function public.kb_text_candidates(
  p_workspace_id uuid,
  p_category_ids uuid[],
  p_uncategorised boolean,
  p_price_doc_types text[],
  p_require_published boolean,
  p_match tsquery,
  p_exclude tsquery,
  p_limit integer
) returns uuid[]
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_service boolean := coalesce(auth.role(), '') = 'service_role';
  v_cats uuid[];
  v_ids uuid[];
  v_seqscan text := current_setting('enable_seqscan', true);
  v_indexscan text := current_setting('enable_indexscan', true);
begin
  if p_match is null or pg_catalog.numnode(p_match) = 0 or coalesce(p_limit, 0) <= 0 then
    return '{}';
  end if;
  -- The kb_doc_chunks_read policy: a member's workspace, a category the caller may read.
  if not v_service and not (p_workspace_id = any (public.kb_workspace_ids(null))) then
    return '{}';
  end if;
  select coalesce(array_agg(c), '{}') into v_cats
    from unnest(coalesce(p_category_ids, '{}')) c
   where v_service or c = any (public.kb_readable_category_ids());
  -- Only the GIN index can serve the match: the b-tree quals are wrapped, sequential and plain
  -- index scans are priced out (the caller's settings are put back below).
  perform pg_catalog.set_config('enable_seqscan', 'off', true);
  perform pg_catalog.set_config('enable_indexscan', 'off', true);
  select coalesce(array_agg(x.id), '{}') into v_ids from (
    select c.id from public.kb_doc_chunks c
     where coalesce(c.workspace_id, c.workspace_id) = p_workspace_id
       and (coalesce(c.category_id, c.category_id) = any (v_cats)
            or (coalesce(p_uncategorised, false) and c.category_id is null))
       and (p_price_doc_types is null or c.price_doc_type = any (p_price_doc_types))
       and c.status <> 'archived'
       and (not coalesce(p_require_published, false) or c.status = 'published')
       and c.fts @@ p_match
       and (p_exclude is null or not c.fts @@ p_exclude)
     limit least(p_limit, 1000)) x;
  perform pg_catalog.set_config('enable_seqscan', coalesce(v_seqscan, 'on'), true);
  perform pg_catalog.set_config('enable_indexscan', coalesce(v_indexscan, 'on'), true);
  return v_ids;
end $$;

revoke execute on function public.kb_text_candidates(uuid, uuid[], boolean, text[], boolean, tsquery, tsquery, integer)
  from public, anon;
grant execute on function public.kb_text_candidates(uuid, uuid[], boolean, text[], boolean, tsquery, tsquery, integer)
  to authenticated, service_role;

-- kb_hybrid_search with the plan of 20260214000200_kb_quick_pick_speed.sql (its header: exact
-- distances for up to 500 candidates, else HNSW; text tiers without function words, bounded)
-- and the same signature, grants, RLS and score formula. The text tiers take their candidates
-- from kb_text_candidates instead of testing every eligible chunk, and the HNSW branch (more than
-- 500 candidates), whose plan its settings already fix, keeps a generic plan instead of being
-- planned again for every call's values (plan_cache_mode for the statement only, put back
-- after): kb_hybrid_search p50 10.3 -> 8.6 ms on the bench corpus.
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
  v_plan_cache_mode text := current_setting('plan_cache_mode', true);
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
  v_all_ids uuid[];
  v_most_ids uuid[] := '{}';
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
  -- Text candidates through the GIN index (see kb_text_candidates): chunks with every query word
  -- (at most 250), then - when they are fewer than v_k and the query has several words - chunks
  -- with all words but one (at most 100). The same sets the scans below took before, found
  -- without reading every chunk of the category.
  v_all_ids := public.kb_text_candidates(p_workspace_id, v_cats, v_uncategorised, p_price_doc_types,
    p_require_published, v_all, null, 250);
  if pg_catalog.numnode(v_tsq) > 1 and cardinality(v_all_ids) < v_k then
    v_most_ids := public.kb_text_candidates(p_workspace_id, v_cats, v_uncategorised, p_price_doc_types,
      p_require_published, v_most, v_all, 100);
  end if;
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
    -- Chunks with every query word, then with all but one (v_all_ids, v_most_ids: at most 250
    -- and 100 matches, found through the GIN index), ranked here under RLS.
    text_all as (
      select e.id, ts_rank_cd(e.fts, v_tsq, 32) as r
        from eligible e where e.id = any (v_all_ids)
       order by r desc, e.id limit v_k
    ),
    text_any as (
      select e.id, ts_rank_cd(e.fts, v_tsq, 32) as r
        from eligible e where e.id = any (v_most_ids)
       order by r desc, e.id limit v_k
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
    -- The plan of this branch is fixed by the settings above, so re-planning it for each call's
    -- values (plpgsql's custom plans) buys nothing: ~3 ms of planning per call on PGlite.
    perform pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true);
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
    -- Chunks with every query word, then with all but one (v_all_ids, v_most_ids: at most 250
    -- and 100 matches, found through the GIN index), ranked here under RLS.
    text_all as (
      select e.id, ts_rank_cd(e.fts, v_tsq, 32) as r
        from eligible e where e.id = any (v_all_ids)
       order by r desc, e.id limit v_k
    ),
    text_any as (
      select e.id, ts_rank_cd(e.fts, v_tsq, 32) as r
        from eligible e where e.id = any (v_most_ids)
       order by r desc, e.id limit v_k
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
  perform pg_catalog.set_config('plan_cache_mode', coalesce(v_plan_cache_mode, 'auto'), true);
end $$;

