-- Retrieval over what the PDF pipeline produced (issue 25): indexes and the search functions
-- behind rag_search (six strategies), rag_search_mmr, rag_search_advanced, rag_query, rag_chat
-- and the products / entities / chunks types of search_knowledge_base.
--
-- Indexes: a full-text column on document_chunks ('simple' configuration, as the KB: catalogues
-- mix languages) with GIN; HNSW (cosine) on the chunk embeddings and on each of the five image
-- embedding spaces; the look-ups the visibility and product filters need.
--
-- Tenancy: the chunk and image searches are SECURITY DEFINER with an explicit visibility rule,
-- the same one RLS states on pipeline_documents (the uploader, or a member of the document's
-- workspace; the service role sees all). The visible documents are resolved once per call into
-- an array, so the per-row test is `document_id = any (array)` instead of re-running the RLS
-- policy chain (chunk -> document -> workspace membership) on every candidate row.

alter table public.document_chunks
  add column fts tsvector generated always as (to_tsvector('simple'::regconfig, content)) stored;
-- A 1024-d vector is 4 kB, over the 2 kB TOAST threshold: by default it is compressed or moved
-- out of line, and every distance the HNSW walk computes then detoasts it first. Kept inline
-- (the row still fits a page; content and fts stay TOASTable), an index scan measured 25 ms ->
-- 1 ms on PGlite for 40 neighbours among 5,000 chunks.
alter table public.document_chunks alter column embedding set storage plain;

create index document_chunks_fts_idx on public.document_chunks using gin (fts);
create index document_chunks_embedding_idx on public.document_chunks
  using hnsw (embedding extensions.vector_cosine_ops);
create index document_chunks_product_idx on public.document_chunks (product_id) where product_id is not null;
create index document_images_visual_idx on public.document_images
  using hnsw (visual_slig_768 extensions.vector_cosine_ops);
create index document_images_color_idx on public.document_images
  using hnsw (color_slig_768 extensions.vector_cosine_ops);
create index document_images_texture_idx on public.document_images
  using hnsw (texture_slig_768 extensions.vector_cosine_ops);
create index document_images_style_idx on public.document_images
  using hnsw (style_slig_768 extensions.vector_cosine_ops);
create index document_images_material_idx on public.document_images
  using hnsw (material_slig_768 extensions.vector_cosine_ops);
create index pipeline_documents_workspace_idx on public.pipeline_documents (workspace_id, created_at);
create index pipeline_documents_user_idx on public.pipeline_documents (user_id, created_at);
create index document_relationships_image_idx on public.document_relationships (image_id);

-- The documents the caller may search, narrowed by the filters: the uploader, members of the
-- document's workspace, or the service role. Internal helper of the search functions (not
-- executable by users: they could otherwise enumerate nothing more than RLS shows them, but
-- there is no reason to expose it).
create function public.rag_visible_documents(
  p_workspace_id uuid default null,
  p_document_ids uuid[] default null,
  p_date_from timestamptz default null,
  p_date_to timestamptz default null
) returns uuid[]
language sql stable security definer set search_path = ''
as $$
  select coalesce(array_agg(d.id), '{}')
    from public.pipeline_documents d
   where (p_workspace_id is null or d.workspace_id = p_workspace_id)
     and (coalesce(auth.role(), '') = 'service_role'
          or d.user_id = auth.uid()
          or (d.workspace_id is not null and exists (
                select 1 from public.workspace_members m
                 where m.workspace_id = d.workspace_id and m.user_id = auth.uid())))
     and (p_document_ids is null or d.id = any (p_document_ids))
     and (p_date_from is null or d.created_at >= p_date_from)
     and (p_date_to is null or d.created_at <= p_date_to)
$$;
revoke execute on function public.rag_visible_documents(uuid, uuid[], timestamptz, timestamptz) from public, anon,
  authenticated;
grant execute on function public.rag_visible_documents(uuid, uuid[], timestamptz, timestamptz) to service_role;

-- The full-text queries of a text ('simple' configuration, as the column): its distinct words
-- minus common function words (the 'simple' configuration keeps them, and an OR over "for" or
-- "the" would match nearly every chunk), OR-ed (p_all false) or AND-ed (p_all true).
create function public.rag_stop_words() returns text[]
language sql immutable set search_path = ''
as $$
  select array['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'does', 'for', 'from',
    'how', 'i', 'in', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'what', 'which', 'with', 'der', 'die', 'das',
    'und', 'oder', 'mit', 'für', 'von', 'im', 'ist', 'ein', 'eine']
$$;
revoke execute on function public.rag_stop_words() from public, anon;
grant execute on function public.rag_stop_words() to authenticated, service_role;

create function public.rag_tsquery(p_text text, p_all boolean default false) returns tsquery
language plpgsql immutable set search_path = ''
as $$
declare
  q tsquery := ''::tsquery;
  w text;
begin
  for w in
    select distinct t from unnest(pg_catalog.tsvector_to_array(
      pg_catalog.to_tsvector('simple'::regconfig, coalesce(p_text, '')))) t
     where not (t = any (public.rag_stop_words()))
     order by t
  loop
    q := case when pg_catalog.numnode(q) = 0 then pg_catalog.quote_literal(w)::tsquery
              when p_all then q && pg_catalog.quote_literal(w)::tsquery
              else q || pg_catalog.quote_literal(w)::tsquery end;
  end loop;
  return q;
end $$;
revoke execute on function public.rag_tsquery(text, boolean) from public, anon;
grant execute on function public.rag_tsquery(text, boolean) to authenticated, service_role;

-- The second tier of text candidates: chunks with all query words but one (3 to 8 words; with
-- fewer any word, with more any word too). Chunks matching one word of a long query are left to
-- the vector side, so a word every chunk holds cannot flood the candidates.
create function public.rag_tsquery_most(p_text text) returns tsquery
language plpgsql immutable set search_path = ''
as $$
declare
  v_words text[];
  q tsquery := ''::tsquery;
  part tsquery;
  i integer;
  j integer;
begin
  select array_agg(t order by t) into v_words
    from unnest(pg_catalog.tsvector_to_array(pg_catalog.to_tsvector('simple'::regconfig, coalesce(p_text, '')))) t
   where not (t = any (public.rag_stop_words()));
  if v_words is null or cardinality(v_words) < 3 or cardinality(v_words) > 8 then
    return public.rag_tsquery(p_text, false);
  end if;
  for i in 1 .. cardinality(v_words) loop
    part := ''::tsquery;
    for j in 1 .. cardinality(v_words) loop
      continue when j = i;
      part := case when pg_catalog.numnode(part) = 0 then pg_catalog.quote_literal(v_words[j])::tsquery
                   else part && pg_catalog.quote_literal(v_words[j])::tsquery end;
    end loop;
    q := case when pg_catalog.numnode(q) = 0 then part else q || part end;
  end loop;
  return q;
end $$;
revoke execute on function public.rag_tsquery_most(text) from public, anon;
grant execute on function public.rag_tsquery_most(text) to authenticated, service_role;

-- Chunk search, one round trip per strategy:
--
--   semantic  k nearest chunks by embedding (HNSW, cosine); score = vector_score = 1 - distance
--   keyword   full-text matches (GIN): chunks with every query word first, then chunks with any
--             (inside hybrid: with all but one, rag_tsquery_most, as the vectors carry the rest)
--             (each tier ranked by ts_rank_cd among at most 1,000 matches - 250 inside hybrid,
--             where the vectors carry relevance - which bounds the cost of very common words);
--             score = text_score = ts_rank_cd(fts, any-word q, 32)
--   hybrid    both candidate lists (k = max(4 x count, 40) each), fused by reciprocal rank
--             fusion: rrf = 1/(60 + vector_rank) + 1/(60 + text_rank) (a missing rank adds 0),
--             normalised by its maximum 2/61, so score = 1 for a chunk ranked first in both
--
-- Every row carries both component scores (vector_score, text_score) and both ranks (null
-- when the chunk was not in that list). Filters: workspace, documents, products, page range
-- (chunks overlapping it), categories (the chunk's product: metadata.category or one of
-- metadata.materials, case-insensitive), document dates (created_at) and a minimum score of the
-- strategy. p_with_embedding returns each chunk's embedding (MMR re-ranks with them).
--
-- Plans: without a narrowing filter (documents, products, categories, pages) the nearest
-- neighbours come from the HNSW index, filtered to the visible documents during the scan
-- (iterative scan); the document filter is written so the planner cannot trade the HNSW walk
-- for a document_id b-tree scan plus a sort of every visible chunk's distance. With a narrowing
-- filter the planner chooses (an exact scan of a few documents' chunks beats walking the graph).
-- Sequential scans are off for the unfiltered case: the planner prices a 1024-d distance like
-- any operator, but each one detoasts a 4 kB vector, so "scan and sort" of even a few thousand
-- chunks costs far more than it estimates (measured: 160 ms for 5,000 chunks on PGlite, against
-- a few ms for the HNSW walk). Custom plans are forced so these choices see the actual arguments.
create function public.rag_search_chunks(
  p_query_text text,
  p_query_embedding extensions.vector(1024),
  p_mode text default 'hybrid',
  p_match_count integer default 10,
  p_workspace_id uuid default null,
  p_document_ids uuid[] default null,
  p_product_ids uuid[] default null,
  p_page_from integer default null,
  p_page_to integer default null,
  p_categories text[] default null,
  p_date_from timestamptz default null,
  p_date_to timestamptz default null,
  p_min_score double precision default null,
  p_with_embedding boolean default false
) returns table (
  chunk_id uuid, document_id uuid, workspace_id uuid, document_filename text, chunk_index integer,
  content text, page_start integer, page_end integer, product_id uuid, product_name text,
  vector_score double precision, text_score double precision, vector_rank integer, text_rank integer,
  score double precision, embedding extensions.vector
)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
declare
  v_iterative_scan text := current_setting('hnsw.iterative_scan', true);
  v_ef_search text := current_setting('hnsw.ef_search', true);
  v_count integer := least(greatest(coalesce(p_match_count, 10), 1), 200);
  v_k integer;
  v_docs uuid[];
  v_products uuid[] := p_product_ids;
  v_cats text[];
  v_plan_mode text := current_setting('plan_cache_mode', true);
  v_seqscan text := current_setting('enable_seqscan', true);
  v_tsq tsquery := public.rag_tsquery(p_query_text, false);
  v_all tsquery := public.rag_tsquery(p_query_text, true);
  -- Second-tier text candidates: any word for keyword search (the words are all it has), all
  -- words but one inside hybrid (the vectors carry the rest).
  v_tier2 tsquery := case when p_mode = 'keyword' then public.rag_tsquery(p_query_text, false)
                          else public.rag_tsquery_most(p_query_text) end;
  -- Text matches ranked per tier: ts_rank_cd costs ~20 us a chunk on PGlite.
  v_pool integer := case when p_mode = 'keyword' then 1000 else 250 end;
  v_narrow boolean := p_document_ids is not null or p_product_ids is not null or p_categories is not null
    or p_page_from is not null or p_page_to is not null;
begin
  if p_mode is null or p_mode not in ('semantic', 'keyword', 'hybrid') then
    raise exception using errcode = '22023', message = 'p_mode must be semantic, keyword or hybrid';
  end if;
  if coalesce(auth.role(), '') <> 'service_role' and auth.uid() is null then
    raise exception using errcode = '42501', message = 'searching documents needs a signed-in user';
  end if;
  v_k := greatest(v_count * 4, 40);
  v_docs := public.rag_visible_documents(p_workspace_id, p_document_ids, p_date_from, p_date_to);
  if cardinality(v_docs) = 0 then return; end if;
  if p_categories is not null then
    select array_agg(lower(x)) into v_cats from unnest(p_categories) x;
    select coalesce(array_agg(p.id), '{}') into v_products
      from public.pipeline_products p
     where p.document_id = any (v_docs)
       and (p_product_ids is null or p.id = any (p_product_ids))
       and (lower(p.metadata ->> 'category') = any (v_cats)
            or (jsonb_typeof(p.metadata -> 'materials') = 'array' and exists (
                  select 1 from jsonb_array_elements_text(p.metadata -> 'materials') m where lower(m) = any (v_cats))));
    if cardinality(v_products) = 0 then return; end if;
  end if;

  perform pg_catalog.set_config('hnsw.iterative_scan', 'relaxed_order', true);
  perform pg_catalog.set_config('hnsw.ef_search', v_k::text, true);
  perform pg_catalog.set_config('plan_cache_mode', 'force_custom_plan', true);
  if not v_narrow then perform pg_catalog.set_config('enable_seqscan', 'off', true); end if;

  return query
  with eligible as not materialized (
    select c.id, c.embedding, c.fts from public.document_chunks c
     where ((v_narrow and c.document_id = any (v_docs))
            or (not v_narrow and coalesce(c.document_id, c.document_id) = any (v_docs)))
       and (v_products is null or c.product_id = any (v_products))
       and (p_page_from is null or c.page_end >= p_page_from)
       and (p_page_to is null or c.page_start <= p_page_to)
  ),
  by_vector as (
    select v.id, (row_number() over (order by v.dist, v.id))::integer as rnk
      -- Narrow (exact) scans order by the negative inner product: stored embeddings are unit
      -- length, so the order is the cosine order at a third of the arithmetic; the HNSW index is
      -- built for the cosine operator (the CASE folds away in each custom plan).
      from (select e.id,
                   case when v_narrow then e.embedding operator(extensions.<#>) p_query_embedding
                        else e.embedding operator(extensions.<=>) p_query_embedding end as dist
              from eligible e
             where p_mode <> 'keyword'
             order by case when v_narrow then e.embedding operator(extensions.<#>) p_query_embedding
                           else e.embedding operator(extensions.<=>) p_query_embedding end
             limit v_k) v
  ),
  text_all as (
    select x.id, ts_rank_cd(x.fts, v_tsq, 32) as r
      from (select e.id, e.fts from eligible e
             where p_mode <> 'semantic' and numnode(v_all) > 0 and e.fts @@ v_all limit v_pool) x
     order by r desc, x.id limit v_k
  ),
  text_any as (
    select x.id, ts_rank_cd(x.fts, v_tsq, 32) as r
      from (select e.id, e.fts from eligible e
             where p_mode <> 'semantic' and numnode(v_tsq) > 1 and (select count(*) from text_all) < v_k
               and e.fts @@ v_tier2 and not e.fts @@ v_all limit v_pool) x
     order by r desc, x.id limit v_k
  ),
  by_text as (
    select t.id, (row_number() over (order by t.tier, t.r desc, t.id))::integer as rnk
      from (select a.id, a.r, 0 as tier from text_all a union all select o.id, o.r, 1 from text_any o) t
     order by t.tier, t.r desc, t.id limit v_k
  ),
  cand as (
    select coalesce(v.id, t.id) as id, v.rnk as vr, t.rnk as tr
      from by_vector v full join by_text t on t.id = v.id
  ),
  scored as (
    select c.id, c.document_id, c.chunk_index, c.content, c.page_start, c.page_end, c.product_id, c.embedding,
           cand.vr, cand.tr,
           (1 - (c.embedding operator(extensions.<=>) p_query_embedding))::double precision as vs,
           (case when numnode(v_tsq) > 0 and c.fts @@ v_tsq then ts_rank_cd(c.fts, v_tsq, 32) else 0 end)
             ::double precision as ts
      from cand join public.document_chunks c on c.id = cand.id
  ),
  ranked as (
    select s.*,
           (case p_mode
              when 'semantic' then s.vs
              when 'keyword' then s.ts
              else (coalesce(1.0 / (60 + s.vr), 0) + coalesce(1.0 / (60 + s.tr), 0)) * 30.5
            end)::double precision as sc
      from scored s
  )
  select r.id, r.document_id, d.workspace_id, d.filename, r.chunk_index, r.content, r.page_start, r.page_end,
         r.product_id, pp.name, r.vs, r.ts, r.vr, r.tr, r.sc,
         case when p_with_embedding then r.embedding else null end
    from ranked r
    join public.pipeline_documents d on d.id = r.document_id
    left join public.pipeline_products pp on pp.id = r.product_id
   where p_min_score is null or r.sc >= p_min_score
   order by r.sc desc, r.vs desc, r.document_id, r.chunk_index
   limit v_count;

  perform pg_catalog.set_config('hnsw.iterative_scan', coalesce(v_iterative_scan, 'off'), true);
  perform pg_catalog.set_config('hnsw.ef_search', coalesce(v_ef_search, '40'), true);
  perform pg_catalog.set_config('plan_cache_mode', coalesce(v_plan_mode, 'auto'), true);
  perform pg_catalog.set_config('enable_seqscan', coalesce(v_seqscan, 'on'), true);
end $$;

revoke execute on function public.rag_search_chunks(text, extensions.vector, text, integer, uuid, uuid[], uuid[],
  integer, integer, text[], timestamptz, timestamptz, double precision, boolean) from public, anon;
grant execute on function public.rag_search_chunks(text, extensions.vector, text, integer, uuid, uuid[], uuid[],
  integer, integer, text[], timestamptz, timestamptz, double precision, boolean) to authenticated, service_role;

-- Image search over the five 768-d spaces (visual, color, texture, style, material). Each space
-- given a query vector contributes its k nearest images (HNSW, one index each); a candidate's
-- score is the weighted mean of its cosine similarities over the given spaces:
--   score = sum(w_i * sim_i) / sum(w_i)     (spaces without a query vector or weight 0 excluded)
-- Visual search passes only the visual vector; multi-vector search all five. Each image comes
-- with the chunk it relates to (the strongest chunk_image relationship, else the first chunk of
-- its document whose page range covers the image's page) and its product (product_image
-- relationship, else the product whose page range covers the page). p_exclude_image leaves the
-- query image itself out (query by example).
create function public.rag_search_images(
  p_visual extensions.vector(768) default null,
  p_color extensions.vector(768) default null,
  p_texture extensions.vector(768) default null,
  p_style extensions.vector(768) default null,
  p_material extensions.vector(768) default null,
  p_weights double precision[] default array[1, 1, 1, 1, 1],
  p_match_count integer default 10,
  p_workspace_id uuid default null,
  p_document_ids uuid[] default null,
  p_product_ids uuid[] default null,
  p_page_from integer default null,
  p_page_to integer default null,
  p_date_from timestamptz default null,
  p_date_to timestamptz default null,
  p_min_score double precision default null,
  p_exclude_image uuid default null
) returns table (
  image_id uuid, document_id uuid, workspace_id uuid, document_filename text, filename text, storage_url text,
  page_number integer, category text,
  visual_score double precision, color_score double precision, texture_score double precision,
  style_score double precision, material_score double precision, score double precision,
  chunk_id uuid, chunk_index integer, content text, page_start integer, page_end integer,
  product_id uuid, product_name text
)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
declare
  v_iterative_scan text := current_setting('hnsw.iterative_scan', true);
  v_ef_search text := current_setting('hnsw.ef_search', true);
  v_count integer := least(greatest(coalesce(p_match_count, 10), 1), 200);
  v_k integer;
  v_docs uuid[];
  w double precision[] := coalesce(p_weights, array[1, 1, 1, 1, 1]::double precision[]);
  v_wsum double precision;
  v_seqscan text := current_setting('enable_seqscan', true);
begin
  if coalesce(auth.role(), '') <> 'service_role' and auth.uid() is null then
    raise exception using errcode = '42501', message = 'searching documents needs a signed-in user';
  end if;
  if cardinality(w) <> 5 or exists (select 1 from unnest(w) x where x is null or x < 0) then
    raise exception using errcode = '22023', message = 'p_weights must be five non-negative numbers';
  end if;
  v_wsum := (case when p_visual is null then 0 else w[1] end) + (case when p_color is null then 0 else w[2] end)
          + (case when p_texture is null then 0 else w[3] end) + (case when p_style is null then 0 else w[4] end)
          + (case when p_material is null then 0 else w[5] end);
  if v_wsum <= 0 then
    raise exception using errcode = '22023', message = 'at least one image query vector with a positive weight is required';
  end if;
  v_k := greatest(v_count * 4, 40);
  v_docs := public.rag_visible_documents(p_workspace_id, p_document_ids, p_date_from, p_date_to);
  if cardinality(v_docs) = 0 then return; end if;

  perform pg_catalog.set_config('hnsw.iterative_scan', 'relaxed_order', true);
  perform pg_catalog.set_config('hnsw.ef_search', greatest(v_k, 100)::text, true);
  if p_document_ids is null then perform pg_catalog.set_config('enable_seqscan', 'off', true); end if;

  return query
  with eligible as not materialized (
    select i.* from public.document_images i
     -- Without a document filter the b-tree on document_id must not replace the HNSW walks.
     where ((p_document_ids is not null and i.document_id = any (v_docs))
            or (p_document_ids is null and coalesce(i.document_id, i.document_id) = any (v_docs)))
       and (p_page_from is null or i.page_number >= p_page_from)
       and (p_page_to is null or i.page_number <= p_page_to)
       and (p_exclude_image is null or i.id <> p_exclude_image)
  ),
  cand as (
    (select e.id from eligible e where p_visual is not null and w[1] > 0
      order by e.visual_slig_768 operator(extensions.<=>) p_visual limit v_k)
    union
    (select e.id from eligible e where p_color is not null and w[2] > 0
      order by e.color_slig_768 operator(extensions.<=>) p_color limit v_k)
    union
    (select e.id from eligible e where p_texture is not null and w[3] > 0
      order by e.texture_slig_768 operator(extensions.<=>) p_texture limit v_k)
    union
    (select e.id from eligible e where p_style is not null and w[4] > 0
      order by e.style_slig_768 operator(extensions.<=>) p_style limit v_k)
    union
    (select e.id from eligible e where p_material is not null and w[5] > 0
      order by e.material_slig_768 operator(extensions.<=>) p_material limit v_k)
  ),
  sims as (
    select i.*,
           case when p_visual is null then null
             else (1 - (i.visual_slig_768 operator(extensions.<=>) p_visual))::double precision end as sv,
           case when p_color is null then null
             else (1 - (i.color_slig_768 operator(extensions.<=>) p_color))::double precision end as sc,
           case when p_texture is null then null
             else (1 - (i.texture_slig_768 operator(extensions.<=>) p_texture))::double precision end as st,
           case when p_style is null then null
             else (1 - (i.style_slig_768 operator(extensions.<=>) p_style))::double precision end as ss,
           case when p_material is null then null
             else (1 - (i.material_slig_768 operator(extensions.<=>) p_material))::double precision end as sm
      from cand join public.document_images i on i.id = cand.id
  ),
  scored as (
    select s.*, ((coalesce(s.sv, 0) * w[1] + coalesce(s.sc, 0) * w[2] + coalesce(s.st, 0) * w[3]
                 + coalesce(s.ss, 0) * w[4] + coalesce(s.sm, 0) * w[5]) / v_wsum)::double precision as total
      from sims s
  ),
  linked as (
    select s.*,
           coalesce(
             (select r.source_id from public.document_relationships r
               where r.image_id = s.id and r.kind = 'chunk_image'
               order by r.similarity desc, r.source_id limit 1),
             (select c.id from public.document_chunks c
               where c.document_id = s.document_id and s.page_number between c.page_start and c.page_end
               order by c.chunk_index limit 1)) as cid,
           coalesce(
             (select r.source_id from public.document_relationships r
               where r.image_id = s.id and r.kind = 'product_image'
               order by r.similarity desc, r.source_id limit 1),
             (select p.id from public.pipeline_products p
               where p.document_id = s.document_id and s.page_number between p.page_start and p.page_end
               order by p.page_start, p.name limit 1)) as pid
      from scored s
     where p_min_score is null or s.total >= p_min_score
  )
  select l.id, l.document_id, d.workspace_id, d.filename, l.filename, l.storage_url, l.page_number, l.category,
         l.sv, l.sc, l.st, l.ss, l.sm, l.total,
         c.id, c.chunk_index, c.content, c.page_start, c.page_end, pp.id, pp.name
    from linked l
    join public.pipeline_documents d on d.id = l.document_id
    left join public.document_chunks c on c.id = l.cid
    left join public.pipeline_products pp on pp.id = l.pid
   where p_product_ids is null or pp.id = any (p_product_ids)
   order by l.total desc, l.id
   limit v_count;

  perform pg_catalog.set_config('hnsw.iterative_scan', coalesce(v_iterative_scan, 'off'), true);
  perform pg_catalog.set_config('hnsw.ef_search', coalesce(v_ef_search, '40'), true);
  perform pg_catalog.set_config('enable_seqscan', coalesce(v_seqscan, 'on'), true);
end $$;

revoke execute on function public.rag_search_images(extensions.vector, extensions.vector, extensions.vector,
  extensions.vector, extensions.vector, double precision[], integer, uuid, uuid[], uuid[], integer, integer,
  timestamptz, timestamptz, double precision, uuid) from public, anon;
grant execute on function public.rag_search_images(extensions.vector, extensions.vector, extensions.vector,
  extensions.vector, extensions.vector, double precision[], integer, uuid, uuid[], uuid[], integer, integer,
  timestamptz, timestamptz, double precision, uuid) to authenticated, service_role;

-- search_knowledge_base's `products` and `entities` types, as the caller (SECURITY INVOKER: RLS
-- on products and on the pipeline's tables decides what is visible):
--   products  the workspace's catalog products (public.products): never archived ones; drafts only
--             for the `admin` caller kind
--   entities  the products the PDF pipeline discovered in the workspace's processed documents
--             (pipeline_products: name, page range, extracted metadata)
-- relevance_score = word_similarity(query, text) (pg_trgm: the best match of the query's
-- trigrams against any stretch of the record's text), so SKUs, names and attribute words match
-- with typos; rows under p_threshold are left out. Entities are not for the `public` caller kind.
create function public.rag_search_records(
  p_workspace_id uuid,
  p_query_text text,
  p_types text[],
  p_caller text default 'agent',
  p_match_count integer default 8,
  p_threshold double precision default 0.3
) returns table (
  type text, id uuid, title text, content text, category text, document_id uuid, page_start integer,
  page_end integer, relevance_score double precision
)
language sql stable security invoker set search_path = ''
as $$
  (select 'product'::text, p.id, p.name,
          concat_ws(E'\n', nullif(concat_ws(' ', p.sku, p.name), ''), p.description),
          p.category, null::uuid, null::integer, null::integer,
          extensions.word_similarity(lower(p_query_text),
            lower(concat_ws(' ', p.name, p.sku, p.category, p.description)))::double precision as s
     from public.products p
    where 'products' = any (p_types) and p.workspace_id = p_workspace_id
      and (p.status = 'active' or (p_caller = 'admin' and p.status = 'draft'))
      and extensions.word_similarity(lower(p_query_text),
            lower(concat_ws(' ', p.name, p.sku, p.category, p.description))) >= p_threshold
    order by s desc, p.name
    limit least(greatest(p_match_count, 1), 200))
  union all
  (select 'entity'::text, pp.id, pp.name,
          concat_ws(E'\n', pp.name, nullif(pp.metadata::text, '{}')),
          pp.metadata ->> 'category', pp.document_id, pp.page_start, pp.page_end,
          extensions.word_similarity(lower(p_query_text), lower(pp.name || ' ' || pp.metadata::text))::double precision
     from public.pipeline_products pp
     join public.pipeline_documents d on d.id = pp.document_id
    where 'entities' = any (p_types) and p_caller <> 'public' and d.workspace_id = p_workspace_id
      and extensions.word_similarity(lower(p_query_text), lower(pp.name || ' ' || pp.metadata::text)) >= p_threshold
    order by 9 desc, pp.name
    limit least(greatest(p_match_count, 1), 200))
$$;
revoke execute on function public.rag_search_records(uuid, text, text[], text, integer, double precision)
  from public, anon;
grant execute on function public.rag_search_records(uuid, text, text[], text, integer, double precision)
  to authenticated, service_role;
