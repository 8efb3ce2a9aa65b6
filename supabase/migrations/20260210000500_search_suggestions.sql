-- Search suggestions (gateway actions autocomplete, typo_correction, query_expansion,
-- trending_searches, search_analytics, search_recommendations, track_suggestion_click; AI backend
-- routes/search.ts). Tables:
-- - search_queries: the search log (analytics, trending), search_query_stats its per-query counts
--   (recent-query suggestions);
-- - search_suggestion_clicks: which suggestion a user picked;
-- - search_terms: the product-name vocabulary per workspace (typo correction), kept by a trigger
--   on products;
-- - search_synonyms: synonyms and related terms, global (workspace_id null, seeded below with
--   building-materials terms) or a workspace's own.
-- The read functions are service-role only: the backend passes the workspaces the caller belongs
-- to (from the JWT and workspace_members), so no result ever crosses a tenant.

create function public.search_normalize(p_text text) returns text
language sql immutable set search_path = '' as $$
  select lower(regexp_replace(btrim(coalesce(p_text, '')), '\s+', ' ', 'g'))
$$;

-- The words of a text that typo correction knows: lower case, three characters or more, with a letter.
create function public.search_words(p_text text) returns setof text
language sql immutable set search_path = '' as $$
  select distinct w from regexp_split_to_table(lower(coalesce(p_text, '')), '[^[:alnum:]]+') w
   where length(w) >= 3 and w ~ '[[:alpha:]]'
$$;

create table public.search_queries (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid references auth.users (id) on delete set null,
  query text not null check (length(query) between 1 and 500 and btrim(query) <> ''),
  -- search_normalize(query): the key of analytics, trending and suggestions.
  normalized_query text generated always as (lower(regexp_replace(btrim(query), '\s+', ' ', 'g'))) stored,
  results_count integer check (results_count >= 0),
  source text not null default 'search' check (length(source) <= 50),
  created_at timestamptz not null default now()
);
create index search_queries_workspace_created_idx on public.search_queries (workspace_id, created_at desc);
create index search_queries_user_idx on public.search_queries (user_id, created_at desc);

alter table public.search_queries enable row level security;
grant select on public.search_queries to authenticated;
grant all on public.search_queries to service_role;
-- Members read their workspace's search log (its analytics are theirs); the AI backend writes it.
create policy search_queries_read on public.search_queries for select to authenticated
  using (public.is_workspace_member(workspace_id));

-- Per workspace and normalised query: how often and when last it was searched (autocomplete
-- reads this instead of aggregating the log on every keystroke). Kept by a trigger on the log.
create table public.search_query_stats (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  normalized_query text not null,
  searches integer not null default 0,
  last_searched_at timestamptz not null,
  primary key (workspace_id, normalized_query)
);
create index search_query_stats_prefix_idx on public.search_query_stats
  (workspace_id, normalized_query text_pattern_ops);

alter table public.search_query_stats enable row level security;
grant select on public.search_query_stats to authenticated;
grant all on public.search_query_stats to service_role;
-- Members read their workspace's query counts; only the search-log trigger writes them.
create policy search_query_stats_read on public.search_query_stats for select to authenticated
  using (public.is_workspace_member(workspace_id));

create function public.search_query_stats_sync() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.search_query_stats as s (workspace_id, normalized_query, searches, last_searched_at)
  values (new.workspace_id, new.normalized_query, 1, new.created_at)
  on conflict (workspace_id, normalized_query) do update
    set searches = s.searches + 1, last_searched_at = greatest(s.last_searched_at, excluded.last_searched_at);
  return null;
end $$;
revoke execute on function public.search_query_stats_sync() from public, anon, authenticated;
create trigger search_queries_stats after insert on public.search_queries
  for each row execute function public.search_query_stats_sync();

create table public.search_suggestion_clicks (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid references auth.users (id) on delete set null,
  query text not null check (length(query) between 1 and 500),
  suggestion text not null check (length(suggestion) between 1 and 500),
  suggestion_type text not null check (suggestion_type in
    ('product', 'query', 'correction', 'expansion', 'trending', 'recommendation')),
  product_id uuid references public.products (id) on delete set null,
  position integer check (position >= 0),
  created_at timestamptz not null default now()
);
create index search_suggestion_clicks_workspace_idx on public.search_suggestion_clicks (workspace_id, created_at desc);

alter table public.search_suggestion_clicks enable row level security;
grant select on public.search_suggestion_clicks to authenticated;
grant all on public.search_suggestion_clicks to service_role;
-- Members read their workspace's clicks; the AI backend records them (track_suggestion_click).
create policy search_suggestion_clicks_read on public.search_suggestion_clicks for select to authenticated
  using (public.is_workspace_member(workspace_id));

create table public.search_terms (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  term text not null,
  product_count integer not null default 0,
  primary key (workspace_id, term)
);
create index search_terms_trgm_idx on public.search_terms using gin (term extensions.gin_trgm_ops);

alter table public.search_terms enable row level security;
grant select on public.search_terms to authenticated;
grant all on public.search_terms to service_role;
-- Members read their workspace's vocabulary (it is made of their product names); only the
-- products trigger writes it.
create policy search_terms_read on public.search_terms for select to authenticated
  using (public.is_workspace_member(workspace_id));

create function public.search_terms_sync() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    update public.search_terms t set product_count = t.product_count - 1
     where t.workspace_id = old.workspace_id and t.term in (select public.search_words(old.name));
    delete from public.search_terms t
     where t.workspace_id = old.workspace_id and t.term in (select public.search_words(old.name))
       and t.product_count <= 0;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into public.search_terms as t (workspace_id, term, product_count)
    select new.workspace_id, w, 1 from public.search_words(new.name) w
    on conflict (workspace_id, term) do update set product_count = t.product_count + 1;
  end if;
  return null;
end $$;
revoke execute on function public.search_terms_sync() from public, anon, authenticated;
create trigger products_search_terms after insert or delete or update of name, workspace_id
  on public.products for each row execute function public.search_terms_sync();

insert into public.search_terms (workspace_id, term, product_count)
select p.workspace_id, w, count(*) from public.products p, public.search_words(p.name) w
 group by 1, 2;

-- Products: starts-with suggestions in name order (contains-suggestions use the trigram GIN
-- index of the products migration).
create index products_name_prefix_idx on public.products (workspace_id, lower(name) text_pattern_ops);

create table public.search_synonyms (
  id uuid primary key default gen_random_uuid(),
  -- Null: a global entry every workspace uses.
  workspace_id uuid references public.workspaces (id) on delete cascade,
  -- Normalised as search_normalize does (lower case, single spaces), spelled out so that the
  -- check needs no function grant.
  term text not null check (term = lower(regexp_replace(btrim(term), '\s+', ' ', 'g')) and length(term) between 1 and 100),
  synonyms text[] not null default '{}',
  related_terms text[] not null default '{}',
  created_at timestamptz not null default now()
);
create unique index search_synonyms_term_key on public.search_synonyms
  (coalesce(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid), term);
create index search_synonyms_synonyms_idx on public.search_synonyms using gin (synonyms);

alter table public.search_synonyms enable row level security;
grant select on public.search_synonyms to authenticated;
grant insert (workspace_id, term, synonyms, related_terms), update (synonyms, related_terms), delete
  on public.search_synonyms to authenticated;
grant all on public.search_synonyms to service_role;
-- Everyone signed in reads the global entries; members read their workspace's own.
create policy search_synonyms_read on public.search_synonyms for select to authenticated
  using (workspace_id is null or public.is_workspace_member(workspace_id));
-- Owners and admins manage their workspace's own entries (global ones are the platform's).
create policy search_synonyms_insert on public.search_synonyms for insert to authenticated
  with check (workspace_id is not null and public.is_workspace_admin(workspace_id));
create policy search_synonyms_update on public.search_synonyms for update to authenticated
  using (workspace_id is not null and public.is_workspace_admin(workspace_id))
  with check (workspace_id is not null and public.is_workspace_admin(workspace_id));
create policy search_synonyms_delete on public.search_synonyms for delete to authenticated
  using (workspace_id is not null and public.is_workspace_admin(workspace_id));

insert into public.search_synonyms (term, synonyms, related_terms) values
  ('tile', '{tiles,ceramic tile}', '{grout,tile adhesive,tile spacers,tile trim}'),
  ('porcelain', '{porcelain stoneware,gres}', '{tile,grout}'),
  ('parquet', '{hardwood flooring,wood flooring,engineered wood}', '{underlay,skirting,floor varnish}'),
  ('laminate', '{laminate flooring}', '{underlay,skirting,expansion strip}'),
  ('vinyl', '{lvt,luxury vinyl tile,vinyl flooring}', '{underlay,floor adhesive}'),
  ('linoleum', '{lino}', '{floor adhesive}'),
  ('plasterboard', '{drywall,gypsum board,sheetrock,wallboard}', '{joint compound,drywall screws,metal stud}'),
  ('plaster', '{gypsum plaster,render}', '{plaster beads,trowel}'),
  ('cement', '{portland cement}', '{sand,aggregate,mortar}'),
  ('concrete', '{ready mix concrete}', '{rebar,formwork,concrete mixer}'),
  ('mortar', '{masonry mortar}', '{brick,block,wall ties}'),
  ('grout', '{tile grout,joint filler}', '{tile,grout float}'),
  ('adhesive', '{glue,bonding agent}', '{primer,trowel}'),
  ('insulation', '{thermal insulation}', '{vapour barrier,insulation board,mineral wool}'),
  ('mineral wool', '{rock wool,stone wool,rockwool}', '{insulation,vapour barrier}'),
  ('glass wool', '{fiberglass insulation,fibreglass}', '{insulation,vapour barrier}'),
  ('polystyrene', '{eps,styrofoam,expanded polystyrene}', '{insulation board,xps}'),
  ('osb', '{oriented strand board}', '{plywood,timber}'),
  ('plywood', '{ply}', '{osb,timber}'),
  ('mdf', '{medium density fibreboard,fiberboard}', '{chipboard,skirting}'),
  ('chipboard', '{particle board,particleboard}', '{mdf,flooring}'),
  ('brick', '{bricks,clay brick}', '{mortar,wall ties,lintel}'),
  ('block', '{concrete block,cinder block,breeze block}', '{mortar,lintel}'),
  ('aerated concrete', '{aac,gas concrete,autoclaved aerated concrete}', '{thin bed mortar,block}'),
  ('roof tile', '{roofing tile,roof tiles}', '{battens,roofing membrane,ridge tile}'),
  ('shingle', '{roofing shingle,asphalt shingle}', '{roofing felt,roofing nails}'),
  ('membrane', '{waterproofing membrane,damp proof membrane,dpm}', '{sealant,primer}'),
  ('sealant', '{caulk,silicone,mastic}', '{sealant gun,masking tape}'),
  ('paint', '{coating,emulsion}', '{primer,roller,brush}'),
  ('primer', '{undercoat,sealer}', '{paint}'),
  ('screed', '{floor screed,levelling compound}', '{underfloor heating,primer}'),
  ('rebar', '{reinforcing bar,reinforcement bar}', '{concrete,tie wire,mesh}'),
  ('wallpaper', '{wall covering,wallcovering}', '{wallpaper paste,lining paper}'),
  ('marble', '{marble stone}', '{natural stone,tile}'),
  ('granite', '{granite stone}', '{natural stone,worktop}'),
  ('quartz', '{engineered stone,quartz composite}', '{worktop,countertop}'),
  ('worktop', '{countertop,benchtop}', '{quartz,granite,sink}'),
  ('faucet', '{tap,mixer tap}', '{sink,basin}'),
  ('sink', '{basin,washbasin}', '{faucet,trap}'),
  ('skirting', '{baseboard,skirting board}', '{flooring,mdf}'),
  ('gutter', '{guttering,eavestrough,rain gutter}', '{downpipe,fascia}'),
  ('timber', '{lumber,wood}', '{decking,plywood,osb}'),
  ('decking', '{deck boards,decking boards}', '{joists,decking screws}'),
  ('paver', '{paving stone,paving slab,pavers}', '{sand,gravel,edging}'),
  ('gravel', '{aggregate,crushed stone}', '{sand,paver}'),
  ('window', '{windows,glazing}', '{window sill,sealant}'),
  ('door', '{doors,door leaf}', '{door frame,hinges,handles}');

-- Step 3 of search_autocomplete for one workspace: names containing `p_pat` (a LIKE pattern,
-- already escaped) that do not start with it: the trigram GIN index of products.name finds the
-- candidates, the heap scan keeps the workspace's and stops at the limit. Sequential scans are off
-- here: the planner underrates the trigram index against them.
create function public.search_autocomplete_contains(p_workspace uuid, p_pat text, p_limit integer)
returns jsonb
language sql stable security definer set search_path = ''
set enable_seqscan = off set plan_cache_mode = force_custom_plan as $$
  select coalesce(jsonb_agg(jsonb_build_object('text', m.name, 'type', 'product', 'product_id', m.id,
           'category', m.category, 'workspace_id', m.workspace_id)), '[]'::jsonb)
    from (
      select p.id, p.name, p.category, p.workspace_id
        from public.products p
       where p.name ilike '%' || p_pat || '%'
         -- Compared as text on purpose: not a workspace index scan with ILIKE on every row.
         and p.workspace_id::text = p_workspace::text
         and p.status = 'active' and lower(p.name) not like p_pat || '%'
       limit p_limit
    ) m
$$;

-- Autocomplete, built to stay within a few milliseconds on a 10,000-product catalog
-- (bench/autocomplete.ts). Every step runs per workspace of the caller (a lateral join over
-- p_workspaces), so each index scan is one workspace's range and stops at the limit:
-- 1. queries: search_query_stats rows (searched in the last 90 days) starting with the prefix,
--    most searched first, up to half the limit (no aggregation of the log at read time);
-- 2. product names starting with the prefix, in name order (products_name_prefix_idx returns
--    them in that order);
-- 3. only when 1 and 2 leave room and the prefix has three characters or more: names containing
--    it, in name order among the first found (search_autocomplete_contains: trigram GIN).
create function public.search_autocomplete(p_workspaces uuid[], p_prefix text, p_limit integer default 10)
returns jsonb
language plpgsql stable security definer set search_path = ''
-- Ordered btree scans that stop at the limit, never a bitmap of every match sorted afterwards;
-- plans made for each call's prefix (a LIKE prefix becomes an index range only when known).
set enable_bitmapscan = off set plan_cache_mode = force_custom_plan as $$
declare
  q text := public.search_normalize(p_prefix);
  pat text;
  v_queries jsonb;
  v_starts jsonb;
  v_contains jsonb := '[]'::jsonb;
  room integer;
begin
  if q = '' or p_limit < 1 then
    return '[]'::jsonb;
  end if;
  pat := replace(replace(replace(q, '\', '\\'), '%', '\%'), '_', '\_');
  room := greatest(1, p_limit / 2);
  select coalesce(jsonb_agg(jsonb_build_object('text', s.normalized_query, 'type', 'query', 'count', s.searches)
           order by s.searches desc, s.last_searched_at desc), '[]'::jsonb)
    into v_queries
    from (
      select st.normalized_query, st.searches, st.last_searched_at
        from unnest(p_workspaces) w
        cross join lateral (
          select x.normalized_query, x.searches, x.last_searched_at
            from public.search_query_stats x
           where x.workspace_id = w and x.normalized_query like pat || '%'
             and x.last_searched_at > now() - interval '90 days'
           order by x.searches desc, x.last_searched_at desc
           limit room
        ) st
       order by st.searches desc, st.last_searched_at desc
       limit room
    ) s;
  room := p_limit - jsonb_array_length(v_queries);
  select coalesce(jsonb_agg(x.v order by x.lname), '[]'::jsonb) into v_starts
    from (
      select jsonb_build_object('text', m.name, 'type', 'product', 'product_id', m.id,
               'category', m.category, 'workspace_id', m.workspace_id) as v, m.lname
        from unnest(p_workspaces) w
        cross join lateral (
          select p.id, p.name, p.category, p.workspace_id, lower(p.name) as lname
            from public.products p
           where p.workspace_id = w and lower(p.name) like pat || '%' and p.status = 'active'
           -- The index's own (byte-wise) order, so the scan stops at the limit without a sort.
           order by lower(p.name) using operator(pg_catalog.~<~)
           limit room
        ) m
       order by m.lname
       limit room
    ) x;
  room := room - jsonb_array_length(v_starts);
  if room > 0 and length(q) >= 3 then
    select coalesce(jsonb_agg(x.v order by x.v->>'text'), '[]'::jsonb) into v_contains
      from (
        select c.v
          from unnest(p_workspaces) w
          cross join lateral jsonb_array_elements(public.search_autocomplete_contains(w, pat, room)) c(v)
         order by c.v->>'text'
         limit room
      ) x;
  end if;
  return v_queries || v_starts || v_contains;
end $$;

create function public.search_typo_correction(p_workspaces uuid[], p_query text) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  q text := public.search_normalize(p_query);
  w text;
  best record;
  corrected text[] := '{}';
  corrections jsonb := '[]'::jsonb;
begin
  foreach w in array coalesce(nullif(string_to_array(q, ' '), '{""}'), '{}') loop
    if length(w) < 3 or w !~ '[[:alpha:]]'
       or exists (select 1 from public.search_terms t where t.workspace_id = any (p_workspaces) and t.term = w)
       or exists (select 1 from public.search_synonyms s
                   where (s.workspace_id is null or s.workspace_id = any (p_workspaces))
                     and (s.term = w or w = any (s.synonyms))) then
      corrected := corrected || w;
      continue;
    end if;
    select v.term, v.sim into best from (
      select t.term, extensions.similarity(t.term, w) as sim, sum(t.product_count) as freq
        from public.search_terms t
       where t.workspace_id = any (p_workspaces) and t.term operator(extensions.%) w
       group by t.term
      union all
      select s.term, extensions.similarity(s.term, w), 0
        from public.search_synonyms s
       where (s.workspace_id is null or s.workspace_id = any (p_workspaces))
         and s.term not like '% %' and s.term operator(extensions.%) w
    ) v
    order by v.sim desc, v.freq desc, v.term
    limit 1;
    if best.term is not null and best.sim >= 0.3 then
      corrected := corrected || best.term::text;
      corrections := corrections || jsonb_build_object('original', w, 'suggestion', best.term,
        'similarity', round(best.sim::numeric, 3));
    else
      corrected := corrected || w;
    end if;
    best := null;
  end loop;
  return jsonb_build_object(
    'original_query', p_query,
    'corrected_query', array_to_string(corrected, ' '),
    'has_corrections', jsonb_array_length(corrections) > 0,
    'corrections', corrections);
end $$;

create function public.search_query_expansion(p_workspaces uuid[], p_query text) returns jsonb
language sql stable security definer set search_path = '' as $$
  with q as (select public.search_normalize(p_query) as q),
  words as (select w, i from q, unnest(string_to_array(q.q, ' ')) with ordinality as u(w, i) where w <> ''),
  -- The whole query, every word and every pair of neighbouring words.
  phrases as (
    select q.q as phrase from q where q.q <> ''
    union select w from words
    union select a.w || ' ' || b.w from words a join words b on b.i = a.i + 1
  ),
  hits as (
    select ph.phrase, s.term, s.synonyms, s.related_terms, s.workspace_id
      from phrases ph
      join public.search_synonyms s
        on (s.workspace_id is null or s.workspace_id = any (p_workspaces))
       and (s.term = ph.phrase or ph.phrase = any (s.synonyms))
  ),
  syn as (
    select h.phrase, array_agg(distinct x) filter (where x <> h.phrase) as list
      from hits h, unnest(array[h.term] || h.synonyms) x
     group by h.phrase
  ),
  rel as (
    select array_agg(distinct x) as list from hits h, unnest(h.related_terms) x
  )
  select jsonb_build_object(
    'original_query', p_query,
    'expanded_terms', (
      select coalesce(jsonb_agg(t order by t), '[]'::jsonb)
        from (select w as t from words union select phrase from hits union select unnest(list) from syn) all_terms),
    'synonyms', coalesce((select jsonb_object_agg(phrase, to_jsonb(list)) from syn where list is not null), '{}'::jsonb),
    'related_terms', coalesce((select to_jsonb(list) from rel where list is not null), '[]'::jsonb),
    'expanded_query', (
      select string_agg(case when t like '% %' then '"' || t || '"' else t end, ' OR '
                        order by t = (select q from q) desc, t)
        from (select (select q from q) as t union select unnest(list) from syn) e
       where t <> '')
  )
$$;

create function public.search_trending(p_workspaces uuid[], p_days integer, p_limit integer) returns jsonb
language sql stable security definer set search_path = '' as $$
  with cur as (
    select normalized_query as q, count(*) as n, count(distinct user_id) as users, max(created_at) as last
      from public.search_queries
     where workspace_id = any (p_workspaces) and created_at >= now() - make_interval(days => p_days)
     group by 1
  ),
  prev as (
    select normalized_query as q, count(*) as n
      from public.search_queries
     where workspace_id = any (p_workspaces)
       and created_at >= now() - make_interval(days => 2 * p_days)
       and created_at < now() - make_interval(days => p_days)
     group by 1
  )
  select coalesce(jsonb_agg(jsonb_build_object('query', t.q, 'count', t.n, 'unique_users', t.users,
           'previous_count', t.p, 'growth_percent', t.growth, 'last_searched_at', t.last)
           order by t.n desc, t.growth desc nulls first, t.q), '[]'::jsonb)
    from (
      select cur.q, cur.n, cur.users, cur.last, coalesce(prev.n, 0) as p,
             case when coalesce(prev.n, 0) = 0 then null
                  else round((cur.n - prev.n)::numeric / prev.n * 100, 1) end as growth
        from cur left join prev using (q)
       order by cur.n desc, growth desc nulls first, cur.q
       limit p_limit
    ) t
$$;

create function public.search_analytics_summary(p_workspaces uuid[], p_days integer) returns jsonb
language sql stable security definer set search_path = '' as $$
  with s as (
    select * from public.search_queries
     where workspace_id = any (p_workspaces) and created_at >= now() - make_interval(days => p_days)
  ),
  c as (
    select * from public.search_suggestion_clicks
     where workspace_id = any (p_workspaces) and created_at >= now() - make_interval(days => p_days)
  )
  select jsonb_build_object(
    'days', p_days,
    'total_searches', (select count(*) from s),
    'unique_queries', (select count(distinct normalized_query) from s),
    'unique_users', (select count(distinct user_id) from s),
    'zero_result_searches', (select count(*) from s where results_count = 0),
    'average_results', (select round(avg(results_count)::numeric, 2) from s),
    'suggestion_clicks', (select count(*) from c),
    'click_through_rate', (select case when count(*) = 0 then 0
                                       else round((select count(*) from c)::numeric / count(*), 4) end from s),
    'top_queries', (select coalesce(jsonb_agg(jsonb_build_object('query', q, 'count', n) order by n desc, q), '[]'::jsonb)
                      from (select normalized_query q, count(*) n from s group by 1 order by 2 desc, 1 limit 10) t),
    'zero_result_queries', (select coalesce(jsonb_agg(jsonb_build_object('query', q, 'count', n) order by n desc, q), '[]'::jsonb)
                      from (select normalized_query q, count(*) n from s where results_count = 0
                             group by 1 order by 2 desc, 1 limit 10) t),
    'clicks_by_type', (select coalesce(jsonb_object_agg(suggestion_type, n), '{}'::jsonb)
                      from (select suggestion_type, count(*) n from c group by 1) t),
    'searches_per_day', (select coalesce(jsonb_agg(jsonb_build_object('date', d, 'count', n) order by d), '[]'::jsonb)
                      from (select (created_at at time zone 'UTC')::date d, count(*) n from s group by 1) t)
  )
$$;

create function public.search_recommendations(p_workspaces uuid[], p_user uuid, p_limit integer) returns jsonb
language sql stable security definer set search_path = '' as $$
  with mine as (
    select normalized_query as q, max(created_at) as last
      from public.search_queries
     where workspace_id = any (p_workspaces) and user_id = p_user
     group by 1 order by 2 desc limit p_limit
  ),
  popular as (
    select normalized_query as q, count(*) as n
      from public.search_queries
     where workspace_id = any (p_workspaces) and created_at >= now() - interval '30 days'
       and normalized_query not in (select q from mine)
     group by 1 order by 2 desc, 1 limit p_limit
  ),
  clicked as (
    select p.id, p.name, count(*) as n
      from public.search_suggestion_clicks c
      join public.products p on p.id = c.product_id and p.workspace_id = c.workspace_id
     where c.workspace_id = any (p_workspaces) and c.created_at >= now() - interval '30 days'
     group by p.id, p.name order by 3 desc, 2 limit p_limit
  )
  select jsonb_build_object(
    'recent', (select coalesce(jsonb_agg(jsonb_build_object('text', q, 'type', 'recent', 'last_searched_at', last)
                 order by last desc), '[]'::jsonb) from mine),
    'popular', (select coalesce(jsonb_agg(jsonb_build_object('text', q, 'type', 'popular', 'count', n)
                 order by n desc, q), '[]'::jsonb) from popular),
    'products', (select coalesce(jsonb_agg(jsonb_build_object('text', name, 'type', 'product', 'product_id', id,
                 'clicks', n) order by n desc, name), '[]'::jsonb) from clicked)
  )
$$;

revoke execute on function public.search_normalize(text), public.search_words(text) from public, anon, authenticated;
grant execute on function public.search_normalize(text), public.search_words(text) to service_role;
revoke execute on function public.search_autocomplete(uuid[], text, integer),
  public.search_autocomplete_contains(uuid, text, integer),
  public.search_typo_correction(uuid[], text), public.search_query_expansion(uuid[], text),
  public.search_trending(uuid[], integer, integer), public.search_analytics_summary(uuid[], integer),
  public.search_recommendations(uuid[], uuid, integer)
  from public, anon, authenticated;
grant execute on function public.search_autocomplete(uuid[], text, integer),
  public.search_autocomplete_contains(uuid, text, integer),
  public.search_typo_correction(uuid[], text), public.search_query_expansion(uuid[], text),
  public.search_trending(uuid[], integer, integer), public.search_analytics_summary(uuid[], integer),
  public.search_recommendations(uuid[], uuid, integer)
  to service_role;
