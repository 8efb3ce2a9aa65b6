/**
 * The REST conformance fixture: its own tables (prefixed rt_, created in the test's in-memory
 * platform, never in supabase/migrations) covering one-to-many, many-to-one, one-to-one,
 * many-to-many, a self reference, an ambiguous pair of foreign keys, a view, functions of every
 * return shape, and RLS policies for two workspaces with members and admins. Equivalents of the
 * spec's quote_items and product_prices carry the two direct-table requests the spec names.
 */
import type { Platform } from "../../stack/platform.ts";
import { reloadSchemaCache } from "../../stack/rest/part.ts";

export const FIXTURE_SQL = `
create table public.rt_clients (
  id serial primary key,
  name text not null,
  tier text
);
create table public.rt_projects (
  id serial primary key,
  client_id int references public.rt_clients (id),
  name text not null,
  budget numeric(12, 2),
  tags text[] not null default '{}',
  meta jsonb not null default '{}',
  status text not null default 'draft',
  search tsvector generated always as (to_tsvector('english', name)) stored
);
create table public.rt_tasks (
  id serial primary key,
  project_id int not null references public.rt_projects (id) on delete cascade,
  title text not null,
  done boolean not null default false,
  priority int
);
create table public.rt_people (
  id serial primary key,
  name text not null,
  manager_id int references public.rt_people (id)
);
create table public.rt_person_profiles (
  person_id int primary key references public.rt_people (id),
  bio text
);
create table public.rt_project_members (
  project_id int references public.rt_projects (id),
  person_id int references public.rt_people (id),
  primary key (project_id, person_id)
);
create table public.rt_messages (
  id serial primary key,
  sender_id int references public.rt_people (id),
  receiver_id int references public.rt_people (id),
  body text
);
create table public.rt_slots (
  id serial primary key,
  during int4range
);
create table public."rt weird ""names""" (
  "the id" serial primary key,
  "a,b(c)" text
);
-- Write targets (read tests never count these).
create table public.rt_items (
  id serial primary key,
  name text not null,
  qty int not null default 1,
  amount numeric,
  note text,
  client_id int references public.rt_clients (id),
  code text unique,
  created_at timestamptz not null default now()
);
create table public.rt_kv (
  key text primary key,
  value text,
  hits int not null default 0
);
create view public.rt_items_view as select id, name, qty from public.rt_items;
-- Insert-only for anon: return=minimal works, return=representation needs SELECT.
create table public.rt_inbox (
  id serial primary key,
  msg text not null
);
create view public.rt_project_summaries as
  select id, client_id, name as title, budget from public.rt_projects;

grant select on public.rt_clients, public.rt_projects, public.rt_tasks, public.rt_people,
  public.rt_person_profiles, public.rt_project_members, public.rt_messages, public.rt_slots,
  public."rt weird ""names""", public.rt_project_summaries to anon, authenticated;
grant all on public.rt_clients, public.rt_projects, public.rt_tasks, public.rt_people,
  public.rt_person_profiles, public.rt_project_members, public.rt_messages, public.rt_slots,
  public."rt weird ""names""", public.rt_project_summaries to service_role;
grant insert, update, delete on public.rt_clients, public.rt_projects, public.rt_tasks, public.rt_slots
  to authenticated;
grant insert on public.rt_tasks to anon;
grant select, insert, update, delete on public.rt_items, public.rt_kv, public.rt_items_view
  to anon, authenticated, service_role;
grant insert on public.rt_inbox to anon;
grant all on public.rt_inbox to service_role;

-- ---- functions ----
create function public.rt_add(a int, b int default 1) returns int
  language sql immutable as $$ select a + b $$;
create function public.rt_projects_over(min numeric) returns setof public.rt_projects
  language sql stable as $$ select * from public.rt_projects where budget > min order by id $$;
create function public.rt_noop() returns void language sql as $$ select $$;
create function public.rt_fail(msg text) returns void language plpgsql as $$
begin
  raise exception '%', msg using detail = 'fail detail', hint = 'fail hint';
end $$;
create function public.rt_payment_required() returns void language plpgsql as $$
begin
  raise sqlstate 'PT402' using message = 'Payment Required';
end $$;
create function public.rt_custom_error() returns void language plpgsql as $$
begin
  raise sqlstate 'PGRST' using
    message = '{"code":"123","message":"Custom message","details":"Custom details","hint":"Custom hint"}',
    detail = '{"status":418,"headers":{"X-Powered-By":"Nerd"}}';
end $$;
create function public.rt_add_task(project int, title text) returns public.rt_tasks
  language sql volatile as $$
  insert into public.rt_tasks (project_id, title) values (project, title) returning *
$$;
create function public.rt_echo(jsonb) returns jsonb language sql immutable as $$ select $1 $$;
create function public.rt_doubles(n int) returns table (x int, doubled int)
  language sql immutable as $$ select g, g * 2 from generate_series(1, n) g $$;
create function public.rt_names(variadic names text[]) returns text
  language sql immutable as $$ select array_to_string(names, '+') $$;
create function public.rt_context() returns jsonb language sql stable as $$
  select jsonb_build_object(
    'role', current_role,
    'sub', auth.uid(),
    'claims_role', current_setting('request.jwt.claims', true)::jsonb ->> 'role',
    'method', current_setting('request.method', true),
    'path', current_setting('request.path', true),
    'x_test', current_setting('request.headers', true)::jsonb ->> 'x-test',
    'cookie', current_setting('request.cookies', true)::jsonb ->> 'flavor',
    'read_only', current_setting('transaction_read_only'),
    'search_path', current_setting('search_path'),
    'timezone', current_setting('timezone')
  )
$$;
create function public.rt_teapot() returns jsonb language plpgsql as $$
begin
  perform set_config('response.status', '418', true);
  perform set_config('response.headers', '[{"X-Brewed":"yes"}]', true);
  return '{"tea": true}';
end $$;
-- Computed relationships: the recursive ones PostgREST needs functions for.
create function public.rt_manager(public.rt_people) returns setof public.rt_people rows 1
  language sql stable as $$ select * from public.rt_people where id = $1.manager_id $$;
create function public.rt_reports(public.rt_people) returns setof public.rt_people
  language sql stable as $$ select * from public.rt_people where manager_id = $1.id order by id $$;
create function public.rt_overloaded(a int) returns int language sql immutable as $$ select a $$;
create function public.rt_overloaded(a text) returns text language sql immutable as $$ select a $$;

-- ---- tenancy and RLS ----
create table public.rt_workspaces (
  id uuid primary key default gen_random_uuid(),
  name text not null
);
create table public.rt_members (
  workspace_id uuid not null references public.rt_workspaces (id) on delete cascade,
  user_id uuid not null,
  role text not null check (role in ('admin', 'member')),
  primary key (workspace_id, user_id)
);
create function public.rt_is_member(ws uuid) returns boolean
  language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.rt_members m where m.workspace_id = ws and m.user_id = auth.uid())
$$;
create function public.rt_is_admin(ws uuid) returns boolean
  language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.rt_members m where m.workspace_id = ws and m.user_id = auth.uid() and m.role = 'admin'
  )
$$;

-- The spec's quote_items (pricing audit fields), here in its own fixture table.
create table public.rt_quote_items (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.rt_workspaces (id),
  name text not null,
  quantity int not null default 1,
  unit_price numeric(12, 2),
  discounted_price numeric(12, 2),
  price_source text,
  price_lookup_call_id uuid,
  notes text
);
-- The spec's product_prices: admin-only, unique on (workspace_id, product_id). The spec's upsert
-- sends no on_conflict, and PostgREST then resolves conflicts on the primary key: so that pair is
-- the primary key, and id is a unique surrogate.
create table public.rt_product_prices (
  id uuid not null unique default gen_random_uuid(),
  workspace_id uuid not null references public.rt_workspaces (id),
  product_id uuid not null,
  list_price numeric(12, 2),
  discount_price numeric(12, 2),
  discount_percent numeric(5, 2),
  currency text not null default 'EUR',
  unit text,
  source_kb_doc_ids uuid[] not null default '{}',
  source_snippet text,
  price_lookup_call_id uuid,
  confirmed_by uuid default auth.uid(),
  notes text,
  primary key (workspace_id, product_id)
);
alter table public.rt_quote_items enable row level security;
alter table public.rt_product_prices enable row level security;
alter table public.rt_workspaces enable row level security;
grant select, insert, update, delete on public.rt_quote_items, public.rt_product_prices to authenticated;
grant select on public.rt_workspaces to authenticated;
grant all on public.rt_quote_items, public.rt_product_prices, public.rt_workspaces, public.rt_members
  to service_role;
-- Members see their workspaces.
create policy rt_workspaces_read on public.rt_workspaces for select to authenticated
  using (public.rt_is_member(id));
-- Members read, add and edit their workspace's quote items; only admins delete them.
create policy rt_quote_items_read on public.rt_quote_items for select to authenticated
  using (public.rt_is_member(workspace_id));
create policy rt_quote_items_insert on public.rt_quote_items for insert to authenticated
  with check (public.rt_is_member(workspace_id));
create policy rt_quote_items_update on public.rt_quote_items for update to authenticated
  using (public.rt_is_member(workspace_id)) with check (public.rt_is_member(workspace_id));
create policy rt_quote_items_delete on public.rt_quote_items for delete to authenticated
  using (public.rt_is_admin(workspace_id));
-- Prices: workspace admins only, for everything.
create policy rt_product_prices_admin on public.rt_product_prices for all to authenticated
  using (public.rt_is_admin(workspace_id)) with check (public.rt_is_admin(workspace_id));

-- graphql_public is an exposed schema too (Accept-Profile / Content-Profile).
create schema if not exists graphql_public;
grant usage on schema graphql_public to anon, authenticated, service_role;
create table graphql_public.rt_notes (id serial primary key, body text not null);
grant select, insert on graphql_public.rt_notes to anon, authenticated;
grant usage on sequence graphql_public.rt_notes_id_seq to anon, authenticated;
-- A schema that is not exposed.
create schema if not exists rt_private;
create table rt_private.rt_secrets (id int primary key);
`;

export const SEED_SQL = `
insert into public.rt_clients (id, name, tier) values
  (1, 'Acme', 'gold'), (2, 'Globex', 'silver'), (3, 'Initech', null);
select setval('public.rt_clients_id_seq', 3);
insert into public.rt_projects (id, client_id, name, budget, tags, meta, status) values
  (1, 1, 'Rocket sled', 1000.50, '{fast,red}', '{"owner": {"name": "Wile"}, "size": 3}', 'active'),
  (2, 1, 'Giant magnet', 250.00, '{metal}', '{"owner": {"name": "Wile"}, "size": 1}', 'draft'),
  (3, 2, 'Doomsday device', 99999.99, '{big,red}', '{"owner": {"name": "Hank"}, "size": 9}', 'active'),
  (4, null, 'Orphan idea', null, '{}', '{}', 'draft'),
  (5, 3, 'TPS reports, v2 (final)', 10.00, '{paper}', '{"owner": {"name": "Bill"}}', 'done');
select setval('public.rt_projects_id_seq', 5);
insert into public.rt_tasks (id, project_id, title, done, priority) values
  (1, 1, 'Buy rockets', true, 1), (2, 1, 'Paint red', false, 2), (3, 1, 'Test run', false, null),
  (4, 2, 'Find magnet', false, 1), (5, 3, 'Evil plan', true, 5);
select setval('public.rt_tasks_id_seq', 5);
insert into public.rt_people (id, name, manager_id) values
  (1, 'Ada', null), (2, 'Brian', 1), (3, 'Cleo', 1), (4, 'Dmitri', 2);
select setval('public.rt_people_id_seq', 4);
insert into public.rt_person_profiles values (1, 'Boss'), (2, 'Engineer');
insert into public.rt_project_members values (1, 1), (1, 2), (2, 2), (3, 3);
insert into public.rt_messages (sender_id, receiver_id, body) values (1, 2, 'hi Brian'), (2, 1, 'hi Ada');
insert into public.rt_slots (during) values ('[1,5)'), ('[10,20)');
insert into public."rt weird ""names""" ("a,b(c)") values ('x'), ('y');
insert into graphql_public.rt_notes (body) values ('in graphql_public');
`;

/** Creates the fixture schema and data as the superuser, then reloads the REST schema cache. */
export async function setupFixture(p: Platform): Promise<void> {
  await p.db.exec(FIXTURE_SQL);
  await p.db.exec(SEED_SQL);
  await reloadSchemaCache(p.db);
}

let ready: Promise<void> | null = null;
/** setupFixture once per test module (each module has its own platform). */
export function fixture(p: Platform): Promise<void> {
  ready ??= setupFixture(p);
  return ready;
}
