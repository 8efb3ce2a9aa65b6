-- KB ingest speed (issue 19: 1,000 price documents at 100 documents/s). The HNSW index on
-- kb_doc_chunks.embedding (vector(1024), cosine) cost ~17 ms of the ~23 ms kb_upsert_document took
-- per 3-chunk price document on PGlite: every insert computes hundreds of 1024-float distances in
-- single-threaded WASM. Measured alone on the bench corpus (2,400 chunks): 11-17 ms per document
-- with that index, 1.7 ms with an HNSW index over 1024-bit sketches, 1.0 ms with none.
--
-- So the vector index is now over a sketch of each embedding (pgvector's binary quantization with
-- re-ranking), and kb_hybrid_search re-ranks the sketch's nearest candidates by the exact cosine
-- distance of the full vectors; every score still comes from the full vector. The sketch is
-- SimHash over a randomized Hadamard rotation (packages/shared/embeddings/simhash.ts explains the
-- choice): the raw signs (binary_quantize) fail on the local provider's sparse vectors. Recall@10
-- against exact search, 100 queries over the bench corpus: 0.982 with a pool of 160 candidates
-- (the index on the full vectors: 0.985 at ef_search 100). Writers compute the sketch with the
-- embedding (TypeScript, 0.03 ms) and pass it as embedding_sketch; a row written without one (SQL,
-- another writer) gets it from public.kb_embedding_bits in a trigger, the same transform in SQL
-- (bit-identical, ~17 ms per row).

-- The sketch in SQL: the operations of simhash.ts in the same order (flip by D1, unnormalised
-- Walsh-Hadamard butterflies, flip by D2, butterflies; bit j = component j > 0), in float64 from
-- the stored float32 values. The two bit strings are D1 and D2 (1 = flip), from signLiterals().
create function public.kb_embedding_bits(p_embedding extensions.vector)
returns bit(1024)
language plpgsql immutable strict parallel safe set search_path = ''
as $$
declare
  a double precision[] := p_embedding::real[]::double precision[];
  d bit(1024);
  h integer;
begin
  if pg_catalog.cardinality(a) <> 1024 then
    raise exception 'a sketch needs 1024 dimensions, got %', pg_catalog.cardinality(a) using errcode = '22023';
  end if;
  foreach d in array array[B'1101110001100101000111000001011101100111110010001101000111100010111101011111010110010011011111001100011011010101110111111111000111010100010000011101010011100011101001111011101000000001011010000110010001001000110111100111101101010100000110101101011100110011111001100100101011001000010010100001100010001001010000010000010100110000101101101111100110101110000000000011110101000110010001000110101010110100001011001001110111111000101111000111011101010111110100011011101001100011010011001111110100011111001100111000100001011001000110100111100011111111001101011010001110001000010001110000110101100011011111110010000001101100110100101100010010111110000010110111011000110100100011010100101000100100101101111001010110101010101011011100011110111001010011100101110111001100011111100100110000010111101110111100101000111000110111101101000101100101001101110111101100100001010101000111100011011101010101010011111110110110110111011111111101101110101001101110000011000101101110111110001111001110011101101010100000010010100010100011111101100101'::bit(1024), B'1001010000110111111001010101000111001110111100110101101111011101110000111010110110101001111101111110010000100011110111110000001011101100110001010000001010011111111101101011111011101001101001100001001011111100100111100101111001110001110110010101011010010001011101110101100011100011110111111010110100100111010110100110011111100100011010000010010001001010011111010011101100110100010100111111001000111110100010010001100100000100100111111011110111001000010111011111011110000101100111001011000000010011011111000000110000000110101110110000101110000000001100011101110000010000000110110101010111100000110100110111010011011011001100111001110110011000101111011111010001010111010000010100100011010100011010101000110010001010011011011111010101111111101101100100001100011001010110000110010110011011000111010000110001011110000010011110000010101111111010010000001110000111010110101011111010101001100101001000111000010101100111001000011011100111011110100010101010011011110011001010001001000000010101110001101111001110011100010010001010010111'::bit(1024)] loop
    a := array(select case when pg_catalog.get_bit(d, j - 1) = 1 then -a[j] else a[j] end
                 from pg_catalog.generate_series(1, 1024) j order by j);
    h := 1;
    while h < 1024 loop
      a := array(select case when ((j - 1) & h) = 0 then a[j] + a[j + h] else a[j - h] - a[j] end
                   from pg_catalog.generate_series(1, 1024) j order by j);
      h := h * 2;
    end loop;
  end loop;
  return (select pg_catalog.string_agg(case when a[j] > 0 then '1' else '0' end, '' order by j)
            from pg_catalog.generate_series(1, 1024) j)::bit(1024);
end $$;

-- Writers (the chunk trigger runs as the writer) and searchers are signed in; anon has no use for it.
revoke execute on function public.kb_embedding_bits(extensions.vector) from public, anon;
grant execute on function public.kb_embedding_bits(extensions.vector) to authenticated, service_role;

-- The old index goes first, so that the backfill below does not maintain it row by row.
drop index public.kb_doc_chunks_embedding_idx;
alter table public.kb_doc_chunks add column embedding_sketch bit(1024);

create function public.kb_chunks_sketch() returns trigger
language plpgsql security invoker set search_path = '' as $$
begin
  -- embedding is NOT NULL: a row without a sketch, or a new embedding with the old sketch, is sketched.
  if new.embedding_sketch is null
     or (tg_op = 'UPDATE' and not (new.embedding operator(extensions.=) old.embedding)
         and new.embedding_sketch is not distinct from old.embedding_sketch) then
    new.embedding_sketch := public.kb_embedding_bits(new.embedding);
  end if;
  return new;
end $$;
revoke execute on function public.kb_chunks_sketch() from public, anon, authenticated;
create trigger kb_chunks_sketch before insert or update of embedding, embedding_sketch on public.kb_doc_chunks
  for each row execute function public.kb_chunks_sketch();

update public.kb_doc_chunks set embedding_sketch = public.kb_embedding_bits(embedding)
 where embedding is not null and embedding_sketch is null;

create index kb_doc_chunks_sketch_idx on public.kb_doc_chunks
  using hnsw (embedding_sketch extensions.bit_hamming_ops);

-- Chunk writers take the sketch from p_chunks (each element's embedding_sketch, bit-string input
-- such as 'x' and 256 hex digits); an element without one is sketched by the trigger.
create or replace function public.kb_replace_chunks(p_doc_id uuid, p_chunks jsonb, p_embedding_model text)
returns integer
language plpgsql security invoker set search_path = '' as $$
declare
  v_count integer;
begin
  delete from public.kb_doc_chunks where doc_id = p_doc_id;
  insert into public.kb_doc_chunks (doc_id, chunk_index, heading, content, char_start, char_end, embedding,
                                    embedding_sketch)
  select p_doc_id, (c ->> 'chunk_index')::integer, c ->> 'heading', c ->> 'content',
         (c ->> 'char_start')::integer, (c ->> 'char_end')::integer,
         (c ->> 'embedding')::extensions.vector(1024), (c ->> 'embedding_sketch')::bit(1024)
    from jsonb_array_elements(p_chunks) as c;
  get diagnostics v_count = row_count;
  update public.kb_docs
     set chunk_count = v_count, embedding_model = p_embedding_model, embedded_at = now()
   where id = p_doc_id;
  return v_count;
end $$;

create or replace function public.kb_upsert_document(
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
    insert into public.kb_doc_chunks (doc_id, chunk_index, heading, content, char_start, char_end, embedding,
                                      embedding_sketch)
    select v_doc.id, (c ->> 'chunk_index')::integer, c ->> 'heading', c ->> 'content',
           (c ->> 'char_start')::integer, (c ->> 'char_end')::integer,
           (c ->> 'embedding')::extensions.vector(1024), (c ->> 'embedding_sketch')::bit(1024)
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

-- kb_hybrid_search as in 20260216000200 (same plan, grants, RLS and score formula) with the
-- sketch: a new last parameter p_query_sketch (the query embedding's sketch; computed here when
-- null), and the HNSW branch's vector candidates are the v_pool nearest by sketch re-ranked by the
-- exact distance. The exact branch (up to 500 candidates) is unchanged.
drop function public.kb_hybrid_search(uuid, text, extensions.vector, integer, double precision, uuid, text, text[],
  boolean, text[], double precision);

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
  p_vector_weight double precision default 0.7,
  p_query_sketch bit varying default null
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
  -- Sketch candidates re-ranked by the exact distance: 4 x v_k (160 for top 8, at least 150), and
  -- the graph walk keeps as many (hnsw.ef_search). bench/kb_index.ts: recall@10 0.982 at 160
  -- (0.989 at 200, 0.958 at 100; the index on full vectors: 0.985), each 40 candidates ~0.15 ms.
  v_pool integer;
  v_sketch bit(1024);
  v_most_ids uuid[] := '{}';
begin
  -- Checked on every call, whichever branch runs below.
  if pg_catalog.length(p_query_sketch) <> 1024 then
    raise exception 'p_query_sketch must have 1024 bits, got %', pg_catalog.length(p_query_sketch)
      using errcode = '22023';
  end if;
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
    v_pool := least(greatest(v_k * 4, 150), 1000);
    perform pg_catalog.set_config('hnsw.ef_search', v_pool::text, true);
    -- Callers pass the sketch they computed with the query embedding (packages/shared/embeddings/
    -- simhash.ts); a SQL caller without one gets the same sketch computed here (~17 ms).
    v_sketch := coalesce(p_query_sketch::bit(1024), public.kb_embedding_bits(p_query_embedding));
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
    -- The v_pool chunks nearest by sketch (Hamming distance over the HNSW index), re-ranked by the
    -- exact cosine distance of their full vectors.
    by_vector as (
      select x.id from (
        select e.id, e.embedding from eligible e
         order by e.embedding_sketch operator(extensions.<~>) v_sketch limit v_pool
      ) x
      order by x.embedding operator(extensions.<=>) p_query_embedding limit v_k
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

revoke execute on function public.kb_hybrid_search(uuid, text, extensions.vector, integer, double precision, uuid,
  text, text[], boolean, text[], double precision, bit varying) from public, anon;
grant execute on function public.kb_hybrid_search(uuid, text, extensions.vector, integer, double precision, uuid,
  text, text[], boolean, text[], double precision, bit varying) to authenticated, service_role;
