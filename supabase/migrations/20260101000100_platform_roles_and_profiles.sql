-- Platform roles and user profiles.
-- A platform role (roles.name: admin, manager, factory, user) gates CRM and platform
-- administration. It lives here, in tables only the service role and platform admins can write,
-- never in user_metadata, which every user can edit through /auth/v1/user.

create table public.roles (
  id uuid primary key default gen_random_uuid(),
  name text not null unique,
  level integer not null check (level >= 0),
  description text,
  created_at timestamptz not null default now()
);
comment on table public.roles is 'Platform roles; higher level means more authority.';

insert into public.roles (name, level, description) values
  ('admin', 100, 'Platform administrator: CRM users, billing, every workspace''s administration'),
  ('manager', 70, 'Manages CRM contacts and companies'),
  ('factory', 50, 'Manufacturer account: CRM contacts and companies of its own business'),
  ('user', 10, 'Default role of every new account');

create table public.user_profiles (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references auth.users (id) on delete cascade,
  role_id uuid references public.roles (id),
  subscription_tier text not null default 'free'
    check (subscription_tier in ('free', 'starter', 'pro', 'enterprise')),
  status text not null default 'active' check (status in ('active', 'suspended')),
  payment_customer_id text unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.user_profiles is 'One row per auth user: platform role, subscription tier, status, payment customer id.';
create index user_profiles_role_id_idx on public.user_profiles (role_id);

-- Every new auth user gets a profile with the default `user` role.
create function public.handle_new_user_profile() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.user_profiles (user_id, role_id)
  values (new.id, (select id from public.roles where name = 'user'))
  on conflict (user_id) do nothing;
  return new;
end $$;
revoke execute on function public.handle_new_user_profile() from public, anon, authenticated;

create trigger on_auth_user_created_profile
  after insert on auth.users
  for each row execute function public.handle_new_user_profile();

create function public.touch_updated_at() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.updated_at := now();
  return new;
end $$;

create trigger user_profiles_touch before update on public.user_profiles
  for each row execute function public.touch_updated_at();

-- ---- access helpers (SECURITY DEFINER so policies can call them without recursion) ----

-- The caller's platform role name, or null when the profile is missing or suspended.
create function public.current_platform_role() returns text
language sql stable security definer set search_path = '' as $$
  select r.name
    from public.user_profiles p join public.roles r on r.id = p.role_id
   where p.user_id = auth.uid() and p.status = 'active'
$$;

-- True when the caller's active platform role is one of `role_names`.
create function public.has_platform_role(role_names text[]) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.current_platform_role() = any (role_names), false)
$$;

revoke execute on function public.current_platform_role(), public.has_platform_role(text[]) from public;
grant execute on function public.current_platform_role(), public.has_platform_role(text[])
  to anon, authenticated, service_role;

-- ---- row-level security ----

alter table public.roles enable row level security;
alter table public.user_profiles enable row level security;

grant select on public.roles to anon, authenticated;
grant all on public.roles to service_role;
grant select on public.user_profiles to authenticated;
grant update (role_id, subscription_tier, status) on public.user_profiles to authenticated;
grant all on public.user_profiles to service_role;

-- Role names and levels are not secret: every signed-in user may read them.
create policy roles_read on public.roles for select to authenticated using (true);

-- A user reads their own profile; platform admins read every profile.
create policy user_profiles_read on public.user_profiles for select to authenticated
  using (user_id = (select auth.uid()) or public.has_platform_role(array['admin']));

-- Only platform admins change profiles (role, tier, status); users cannot promote themselves.
create policy user_profiles_admin_update on public.user_profiles for update to authenticated
  using (public.has_platform_role(array['admin']))
  with check (public.has_platform_role(array['admin']));
