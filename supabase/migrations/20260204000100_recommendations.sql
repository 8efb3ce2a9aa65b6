-- Recommendations (spec "Recommendations"): material interactions, the weighted preference
-- matrix they add up to, and a per-user recommendation cache with a TTL.
--
-- Interaction weights (the only place they are written down; the API reports each row's weight):
--
-- | interaction_type | weight                                   |
-- | ---------------- | ---------------------------------------- |
-- | view             | 1                                        |
-- | click            | 2                                        |
-- | save             | 3                                        |
-- | share            | 3                                        |
-- | add_to_quote     | 4                                        |
-- | purchase         | 5                                        |
-- | rate             | 2 x (stars - 3), at least 0 (5 stars: 4) |
--
-- A user's preference for a material is the sum of the weights of their interactions with it,
-- capped at 10 (packages/shared/recommendations/cf.ts PREFERENCE_MAX): repeated views cannot
-- outweigh a purchase forever. Collaborative filtering reads only material_preferences.

-- ---- raw interactions (append-only) ----

create table public.material_interactions (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  material_id uuid not null references public.products (id) on delete cascade,
  interaction_type text not null
    check (interaction_type in ('view', 'click', 'save', 'purchase', 'rate', 'add_to_quote', 'share')),
  -- For rate: the stars (1 to 5); for the other types a free count (quantity, seconds ...), >= 0.
  interaction_value double precision not null default 1
    check (interaction_value >= 0 and interaction_value < 1e9),
  -- The weights of the table at the top of this file.
  weight double precision generated always as (case interaction_type
    when 'view' then 1
    when 'click' then 2
    when 'save' then 3
    when 'share' then 3
    when 'add_to_quote' then 4
    when 'purchase' then 5
    when 'rate' then greatest(0, 2 * (interaction_value - 3))
  end) stored,
  session_id text check (length(session_id) <= 200),
  metadata jsonb not null default '{}'::jsonb check (jsonb_typeof(metadata) = 'object'),
  created_at timestamptz not null default now(),
  constraint material_interactions_rate_stars
    check (interaction_type <> 'rate' or interaction_value between 1 and 5)
);
create index material_interactions_workspace_time_idx
  on public.material_interactions (workspace_id, created_at desc);
create index material_interactions_user_idx
  on public.material_interactions (user_id, workspace_id, created_at desc);
create index material_interactions_material_idx on public.material_interactions (material_id);

-- A material must belong to the interaction's workspace (products.id alone is not enough:
-- tenancy would leak through another workspace's material id).
create function public.material_interactions_check_material() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not exists (
    select 1 from public.products p where p.id = new.material_id and p.workspace_id = new.workspace_id
  ) then
    raise exception 'material % is not in workspace %', new.material_id, new.workspace_id
      using errcode = '23503';
  end if;
  return new;
end $$;
revoke execute on function public.material_interactions_check_material() from public, anon, authenticated;

create trigger material_interactions_material_in_workspace
  before insert on public.material_interactions
  for each row execute function public.material_interactions_check_material();

-- ---- the weighted preference matrix (one row per workspace, user, material) ----

create table public.material_preferences (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  material_id uuid not null references public.products (id) on delete cascade,
  weight_sum double precision not null,
  preference double precision generated always as (least(10, weight_sum)) stored,
  purchased boolean not null default false,
  interactions integer not null,
  last_interaction_at timestamptz not null,
  primary key (workspace_id, user_id, material_id)
);
create index material_preferences_material_idx
  on public.material_preferences (workspace_id, material_id, user_id) include (preference);

-- Per-user and per-material statistics of the matrix, kept in step by the trigger below, so a
-- neighbourhood query never re-aggregates whole rows or columns: |r_u|, and for a material its
-- norm |r_i|, its preference mass sum_u r_ui and the number of users with r_ui > 0.
create table public.recommendation_user_norms (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  norm double precision not null,
  primary key (workspace_id, user_id)
);
create table public.recommendation_material_stats (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  material_id uuid not null references public.products (id) on delete cascade,
  norm double precision not null,
  mass double precision not null,
  users integer not null,
  primary key (workspace_id, material_id)
);

-- The item model: each material's top-k neighbour materials [material_id, dot, norm, support],
-- shared by every user's item_item list and by similar-materials. Computed on demand, kept for
-- an hour; a new interaction with the material drops its own list at once.
create table public.material_neighbours (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  material_id uuid not null references public.products (id) on delete cascade,
  k integer not null,
  neighbours jsonb not null,
  computed_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (workspace_id, material_id)
);

-- ---- the cache ----

create table public.recommendation_cache (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind in ('for_user', 'similar')),
  -- similar: the material the list is about; for_user: null.
  material_id uuid references public.products (id) on delete cascade,
  -- kind, algorithm and parameters: one row per distinct request.
  cache_key text not null check (length(cache_key) <= 300),
  results jsonb not null check (jsonb_typeof(results) = 'array'),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  unique (workspace_id, user_id, cache_key)
);
create index recommendation_cache_material_idx on public.recommendation_cache (workspace_id, material_id);
create index recommendation_cache_user_idx on public.recommendation_cache (user_id, workspace_id);

-- New interactions fold into the matrix and invalidate the caches they affect, in the same
-- statement (bulk loads included): every cached list of the interacting user in that
-- workspace, and every cached similar-materials list of the material. Other users' lists that
-- used this user as a neighbour age out with the TTL.
create function public.material_interactions_apply() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.material_preferences as p
    (workspace_id, user_id, material_id, weight_sum, purchased, interactions, last_interaction_at)
  select n.workspace_id, n.user_id, n.material_id, sum(n.weight), bool_or(n.interaction_type = 'purchase'),
         count(*), max(n.created_at)
    from new_rows n
   group by n.workspace_id, n.user_id, n.material_id
  on conflict (workspace_id, user_id, material_id) do update set
    weight_sum = p.weight_sum + excluded.weight_sum,
    purchased = p.purchased or excluded.purchased,
    interactions = p.interactions + excluded.interactions,
    last_interaction_at = greatest(p.last_interaction_at, excluded.last_interaction_at);

  insert into public.recommendation_user_norms as u (workspace_id, user_id, norm)
  select p.workspace_id, p.user_id, sqrt(sum(p.preference * p.preference))
    from public.material_preferences p
    join (select distinct n.workspace_id, n.user_id from new_rows n) a
      on a.workspace_id = p.workspace_id and a.user_id = p.user_id
   group by p.workspace_id, p.user_id
  on conflict (workspace_id, user_id) do update set norm = excluded.norm;

  insert into public.recommendation_material_stats as m (workspace_id, material_id, norm, mass, users)
  select p.workspace_id, p.material_id, sqrt(sum(p.preference * p.preference)), sum(p.preference),
         count(*) filter (where p.preference > 0)
    from public.material_preferences p
    join (select distinct n.workspace_id, n.material_id from new_rows n) a
      on a.workspace_id = p.workspace_id and a.material_id = p.material_id
   group by p.workspace_id, p.material_id
  on conflict (workspace_id, material_id) do update
    set norm = excluded.norm, mass = excluded.mass, users = excluded.users;

  delete from public.material_neighbours m
   using (select distinct n.workspace_id, n.material_id from new_rows n) a
   where m.workspace_id = a.workspace_id and m.material_id = a.material_id;

  delete from public.recommendation_cache c
   using (select distinct n.workspace_id, n.user_id, n.material_id from new_rows n) n
   where c.workspace_id = n.workspace_id
     and (c.user_id = n.user_id or c.material_id = n.material_id);
  return null;
end $$;
revoke execute on function public.material_interactions_apply() from public, anon, authenticated;

create trigger material_interactions_fold
  after insert on public.material_interactions
  referencing new table as new_rows
  for each statement execute function public.material_interactions_apply();

-- ---- row-level security ----

alter table public.material_interactions enable row level security;
alter table public.material_preferences enable row level security;
alter table public.recommendation_cache enable row level security;
-- The statistics and the item model are read and written only by the service-role functions
-- below: RLS on, no policy for anon or authenticated, no grant either.
alter table public.recommendation_user_norms enable row level security;
alter table public.recommendation_material_stats enable row level security;
alter table public.material_neighbours enable row level security;
revoke all on public.recommendation_user_norms, public.recommendation_material_stats,
  public.material_neighbours from anon, authenticated;
grant all on public.recommendation_user_norms, public.recommendation_material_stats,
  public.material_neighbours to service_role;

grant select on public.material_interactions to authenticated;
grant insert (workspace_id, user_id, material_id, interaction_type, interaction_value, session_id, metadata)
  on public.material_interactions to authenticated;
grant all on public.material_interactions to service_role;
grant select on public.material_preferences to authenticated;
grant all on public.material_preferences to service_role;
grant select, delete on public.recommendation_cache to authenticated;
grant all on public.recommendation_cache to service_role;

-- Users read their own interactions in workspaces they (still) belong to.
create policy material_interactions_read_own on public.material_interactions for select to authenticated
  using (user_id = (select auth.uid()) and public.is_workspace_member(workspace_id));
-- Workspace owners and admins read every interaction of their workspace (analytics).
create policy material_interactions_read_admin on public.material_interactions for select to authenticated
  using (public.is_workspace_admin(workspace_id));
-- Users record interactions only as themselves, only in workspaces they belong to (the
-- material's workspace is checked by the trigger). No update or delete: the log is append-only.
create policy material_interactions_insert_own on public.material_interactions for insert to authenticated
  with check (user_id = (select auth.uid()) and public.is_workspace_member(workspace_id));

-- Users read their own preference rows; nobody reads another user's (similarities are computed
-- by the service-only functions below, after the edge function authorised the caller).
create policy material_preferences_read_own on public.material_preferences for select to authenticated
  using (user_id = (select auth.uid()) and public.is_workspace_member(workspace_id));

-- Users read their own cached lists; the edge function writes them with the service role.
create policy recommendation_cache_read_own on public.recommendation_cache for select to authenticated
  using (user_id = (select auth.uid()));
-- Users clear their own cached lists (DELETE /cache), never another user's.
create policy recommendation_cache_delete_own on public.recommendation_cache for delete to authenticated
  using (user_id = (select auth.uid()));

-- ---- neighbourhood retrieval (service role only) ----
-- These return the sufficient statistics of a neighbourhood: sparse dot products and norms over
-- material_preferences (rows with preference > 0), the candidates ranked by dot / norm (which
-- orders them by cosine, the query's own norm being constant), ties by id. The cosine, the
-- scores and the confidence are computed in packages/shared/recommendations/cf.ts.

-- User-user: the user's row, their top-k neighbours {user_id, dot, norm} and those neighbours'
-- rows [user_id, material_id, preference] (archived materials left out).
create function public.recommendation_user_neighbourhood(p_workspace uuid, p_user uuid, p_k integer)
returns jsonb
language sql stable security definer set search_path = '' as $$
  with mine as (
    select p.material_id, p.preference as r, p.purchased
      from public.material_preferences p
     where p.workspace_id = p_workspace and p.user_id = p_user and p.preference > 0
  ), cand as (
    select o.user_id, sum(o.preference * m.r) as dot
      from mine m
      join public.material_preferences o
        on o.workspace_id = p_workspace and o.material_id = m.material_id
     where o.user_id <> p_user and o.preference > 0
     group by o.user_id
  ), normed as (
    select c.user_id, c.dot, n.norm
      from cand c
      join public.recommendation_user_norms n on n.workspace_id = p_workspace and n.user_id = c.user_id
  ), top as (
    select * from normed order by dot / norm desc, user_id limit greatest(p_k, 0)
  )
  select jsonb_build_object(
    'mine', coalesce((select jsonb_agg(jsonb_build_array(m.material_id, m.r, m.purchased)) from mine m), '[]'),
    'neighbours', coalesce((select jsonb_agg(jsonb_build_array(t.user_id, t.dot, t.norm)) from top t), '[]'),
    'rows', coalesce((
      select jsonb_agg(jsonb_build_array(q.user_id, q.material_id, q.preference))
        from top t
        join public.material_preferences q on q.workspace_id = p_workspace and q.user_id = t.user_id
        join public.products pr on pr.id = q.material_id and pr.status <> 'archived'
       where q.preference > 0
    ), '[]')
  )
$$;

-- Item-item: for each source material, its norm and preference mass, and its top-k neighbour
-- materials [source, material_id, dot, norm, support] where support is the source's preference
-- mass from users who also chose the neighbour (archived materials left out as neighbours).
-- Lists missing from the item model (or older than an hour) are computed and stored first.
create function public.recommendation_item_neighbourhood(p_workspace uuid, p_sources uuid[], p_k integer)
returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  missing uuid[];
begin
  select coalesce(array_agg(s.m), '{}') into missing
    from (select distinct unnest(p_sources) as m) s
   where not exists (
     select 1 from public.material_neighbours n
      where n.workspace_id = p_workspace and n.material_id = s.m and n.k >= p_k and n.expires_at > now()
   );
  if cardinality(missing) > 0 then
    insert into public.material_neighbours as n (workspace_id, material_id, k, neighbours, computed_at, expires_at)
    with src as (
      select p.material_id as src, p.user_id, p.preference as r
        from public.material_preferences p
       where p.workspace_id = p_workspace and p.material_id = any (missing) and p.preference > 0
    ), pairs as (
      select s.src, o.material_id, sum(s.r * o.preference) as dot, sum(s.r) as support
        from src s
        join public.material_preferences o on o.workspace_id = p_workspace and o.user_id = s.user_id
       where o.material_id <> s.src and o.preference > 0
       group by s.src, o.material_id
    ), ranked as (
      select pr.src, pr.material_id, pr.dot, st.norm, pr.support,
             row_number() over (partition by pr.src order by pr.dot / st.norm desc, pr.material_id) as rk
        from pairs pr
        join public.recommendation_material_stats st
          on st.workspace_id = p_workspace and st.material_id = pr.material_id
        join public.products p on p.id = pr.material_id and p.status <> 'archived'
    )
    select p_workspace, m.id, greatest(p_k, 0),
           coalesce(jsonb_agg(jsonb_build_array(r.material_id, r.dot, r.norm, r.support) order by r.rk)
             filter (where r.material_id is not null), '[]'),
           now(), now() + interval '1 hour'
      from public.products m
      left join ranked r on r.src = m.id and r.rk <= p_k
     where m.id = any (missing) and m.workspace_id = p_workspace
     group by m.id
    on conflict (workspace_id, material_id) do update
      set k = excluded.k, neighbours = excluded.neighbours, computed_at = excluded.computed_at,
          expires_at = excluded.expires_at;
  end if;
  return jsonb_build_object(
    'sources', coalesce((
      select jsonb_agg(jsonb_build_array(st.material_id, st.norm, st.mass))
        from public.recommendation_material_stats st
       where st.workspace_id = p_workspace and st.material_id = any (p_sources) and st.norm > 0
    ), '[]'),
    'neighbours', coalesce((
      select jsonb_agg(jsonb_build_array(n.material_id, e.x -> 0, e.x -> 1, e.x -> 2, e.x -> 3))
        from public.material_neighbours n
        cross join lateral jsonb_array_elements(n.neighbours) with ordinality as e(x, i)
       where n.workspace_id = p_workspace and n.material_id = any (p_sources) and e.i <= p_k
    ), '[]')
  );
end $$;

-- Workspace popularity (the cold-start fallback): materials by preference mass, without the
-- excluded ones (ranked as cf.ts ranks them: mass, then users, then id), with the largest mass
-- and the number of users with any preference.
create function public.recommendation_popular(p_workspace uuid, p_exclude uuid[], p_limit integer)
returns jsonb
language sql stable security definer set search_path = '' as $$
  with mass as (
    select st.material_id, st.mass, st.users
      from public.recommendation_material_stats st
      join public.products p on p.id = st.material_id and p.status <> 'archived'
     where st.workspace_id = p_workspace and st.mass > 0
  )
  select jsonb_build_object(
    'max_mass', coalesce((select max(m.mass) from mass m), 0),
    'users', (select count(*) from public.recommendation_user_norms u
               where u.workspace_id = p_workspace and u.norm > 0),
    'items', coalesce((
      select jsonb_agg(jsonb_build_array(t.material_id, t.mass, t.users))
        from (select * from mass m where m.material_id <> all (coalesce(p_exclude, '{}'))
               order by m.mass desc, m.users desc, m.material_id limit greatest(p_limit, 0)) t
    ), '[]')
  )
$$;

revoke execute on function public.recommendation_user_neighbourhood(uuid, uuid, integer),
  public.recommendation_item_neighbourhood(uuid, uuid[], integer),
  public.recommendation_popular(uuid, uuid[], integer) from public, anon, authenticated;
grant execute on function public.recommendation_user_neighbourhood(uuid, uuid, integer),
  public.recommendation_item_neighbourhood(uuid, uuid[], integer),
  public.recommendation_popular(uuid, uuid[], integer) to service_role;

-- ---- analytics (service role only: the edge function lets owners and admins call it) ----

-- Interactions of the last p_days days: totals, by type, per day, top materials.
create function public.recommendation_analytics(p_workspace uuid, p_days integer)
returns jsonb
language sql stable security definer set search_path = '' as $$
  with w as (
    select i.* from public.material_interactions i
     where i.workspace_id = p_workspace and i.created_at >= now() - make_interval(days => p_days)
  )
  select jsonb_build_object(
    'workspace_id', p_workspace,
    'days', p_days,
    'since', now() - make_interval(days => p_days),
    'total_interactions', (select count(*) from w),
    'unique_users', (select count(distinct user_id) from w),
    'unique_materials', (select count(distinct material_id) from w),
    'total_weight', (select coalesce(sum(weight), 0) from w),
    'by_type', (
      select jsonb_object_agg(t.kind, coalesce(c.n, 0))
        from unnest(array['view', 'click', 'save', 'purchase', 'rate', 'add_to_quote', 'share']) t(kind)
        left join (select interaction_type, count(*) as n from w group by interaction_type) c
          on c.interaction_type = t.kind
    ),
    'daily', coalesce((
      select jsonb_agg(jsonb_build_object('date', d.day, 'interactions', d.n) order by d.day)
        from (select (created_at at time zone 'utc')::date as day, count(*) as n from w group by 1) d
    ), '[]'),
    'top_materials', coalesce((
      select jsonb_agg(jsonb_build_object('material_id', t.material_id, 'name', t.name,
               'interactions', t.n, 'weight', t.weight, 'users', t.users) order by t.weight desc, t.material_id)
        from (select w.material_id, p.name, count(*) as n, sum(w.weight) as weight,
                     count(distinct w.user_id) as users
                from w join public.products p on p.id = w.material_id
               group by w.material_id, p.name
               order by sum(w.weight) desc, w.material_id limit 10) t
    ), '[]')
  )
$$;
revoke execute on function public.recommendation_analytics(uuid, integer) from public, anon, authenticated;
grant execute on function public.recommendation_analytics(uuid, integer) to service_role;
