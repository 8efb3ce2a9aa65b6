-- Workspaces (tenants) and their members.
-- Workspace roles (workspace_members.role: owner, admin, member, viewer) gate workspace data;
-- pricing needs owner or admin in the target workspace. Tenancy always comes from these rows
-- and auth.uid(), never from an id a client sends.

create table public.workspaces (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(trim(name)) > 0),
  slug text unique,
  owner_id uuid not null default auth.uid() references auth.users (id) on delete restrict,
  settings jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table public.workspace_members (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null default 'member' check (role in ('owner', 'admin', 'member', 'viewer')),
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index workspace_members_user_id_idx on public.workspace_members (user_id);

create trigger workspaces_touch before update on public.workspaces
  for each row execute function public.touch_updated_at();

-- The creator of a workspace becomes its owner, in the same transaction.
create function public.handle_new_workspace() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.workspace_members (workspace_id, user_id, role)
  values (new.id, new.owner_id, 'owner')
  on conflict (workspace_id, user_id) do update set role = 'owner';
  return new;
end $$;
revoke execute on function public.handle_new_workspace() from public, anon, authenticated;

create trigger on_workspace_created after insert on public.workspaces
  for each row execute function public.handle_new_workspace();

-- ---- access helpers ----

-- True when the caller belongs to the workspace.
create function public.is_workspace_member(ws uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.workspace_members m where m.workspace_id = ws and m.user_id = auth.uid()
  )
$$;

-- True when the caller's role in the workspace is one of `roles`.
create function public.has_workspace_role(ws uuid, roles text[]) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.workspace_members m
     where m.workspace_id = ws and m.user_id = auth.uid() and m.role = any (roles)
  )
$$;

-- True when the caller is owner or admin of the workspace (the pricing gate).
create function public.is_workspace_admin(ws uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select public.has_workspace_role(ws, array['owner', 'admin'])
$$;

revoke execute on function public.is_workspace_member(uuid), public.has_workspace_role(uuid, text[]),
  public.is_workspace_admin(uuid) from public;
grant execute on function public.is_workspace_member(uuid), public.has_workspace_role(uuid, text[]),
  public.is_workspace_admin(uuid) to anon, authenticated, service_role;

-- Everything a function needs to authorise the caller, in one round trip:
-- {user_id, platform_role {id, name, level} | null, status, subscription_tier,
--  workspaces: [{workspace_id, role}]}.
create function public.get_my_access() returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object(
    'user_id', auth.uid(),
    'platform_role', (
      select jsonb_build_object('id', r.id, 'name', r.name, 'level', r.level)
        from public.user_profiles p join public.roles r on r.id = p.role_id
       where p.user_id = auth.uid()
    ),
    'status', (select p.status from public.user_profiles p where p.user_id = auth.uid()),
    'subscription_tier', (select p.subscription_tier from public.user_profiles p where p.user_id = auth.uid()),
    'workspaces', coalesce((
      select jsonb_agg(jsonb_build_object('workspace_id', m.workspace_id, 'role', m.role) order by m.created_at)
        from public.workspace_members m where m.user_id = auth.uid()
    ), '[]'::jsonb)
  )
$$;
revoke execute on function public.get_my_access() from public, anon;
grant execute on function public.get_my_access() to authenticated, service_role;

-- ---- row-level security ----

alter table public.workspaces enable row level security;
alter table public.workspace_members enable row level security;

-- Column privileges: members can never rewrite id, owner_id or timestamps, whatever a policy says.
grant select, delete on public.workspaces to authenticated;
grant insert (name, slug, owner_id, settings) on public.workspaces to authenticated;
grant update (name, slug, settings) on public.workspaces to authenticated;
grant all on public.workspaces to service_role;
grant select, insert, delete on public.workspace_members to authenticated;
grant update (role) on public.workspace_members to authenticated;
grant all on public.workspace_members to service_role;

-- Members see their workspaces.
create policy workspaces_read on public.workspaces for select to authenticated
  using (public.is_workspace_member(id) or owner_id = (select auth.uid()));
-- Any signed-in user may create a workspace they own (the trigger makes them its owner member).
create policy workspaces_create on public.workspaces for insert to authenticated
  with check (owner_id = (select auth.uid()));
-- Owners and admins rename or reconfigure it (owner_id is not updatable: see the grants).
create policy workspaces_update on public.workspaces for update to authenticated
  using (public.is_workspace_admin(id))
  with check (public.is_workspace_admin(id));
-- Only the owner deletes it.
create policy workspaces_delete on public.workspaces for delete to authenticated
  using (public.has_workspace_role(id, array['owner']));

-- Members see who else belongs to their workspaces.
create policy members_read on public.workspace_members for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Owners add anyone with any role; admins add members and viewers (not owners or admins).
create policy members_add on public.workspace_members for insert to authenticated
  with check (
    public.has_workspace_role(workspace_id, array['owner'])
    or (public.has_workspace_role(workspace_id, array['admin']) and role in ('member', 'viewer'))
  );
-- Same rule for changing a role; nobody changes their own role.
create policy members_change on public.workspace_members for update to authenticated
  using (
    user_id <> (select auth.uid()) and (
      public.has_workspace_role(workspace_id, array['owner'])
      or (public.has_workspace_role(workspace_id, array['admin']) and role in ('member', 'viewer')))
  )
  with check (
    public.has_workspace_role(workspace_id, array['owner'])
    or (public.has_workspace_role(workspace_id, array['admin']) and role in ('member', 'viewer'))
  );
-- Owners remove anyone but themselves; admins remove members and viewers; anyone may leave,
-- except the owner, who would orphan the workspace.
create policy members_remove on public.workspace_members for delete to authenticated
  using (
    (user_id = (select auth.uid()) and role <> 'owner')
    or (public.has_workspace_role(workspace_id, array['owner']) and user_id <> (select auth.uid()))
    or (public.has_workspace_role(workspace_id, array['admin']) and role in ('member', 'viewer'))
  );
