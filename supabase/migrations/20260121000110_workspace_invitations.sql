-- Workspace membership by invitation that the invitee accepts.
--
-- Before: an owner inserted any user id into workspace_members (as viewer, or as owner, who then
-- cannot leave) without that user's consent, and a made-up id answered a foreign-key error that
-- told whether the user exists. Now:
--   - owners and admins invite (invite_to_workspace) by e-mail or user id; the answer is the same
--     whether or not such a user exists (no user-existence oracle: the invitation stores what the
--     inviter typed, with no foreign key to auth.users);
--   - only the invitee turns an invitation into a membership (accept_workspace_invitation) or
--     refuses it (decline_workspace_invitation); owners and admins may withdraw a pending one;
--   - nobody inserts into workspace_members directly except the workspace creator's own owner
--     row (which the on_workspace_created trigger already writes), and nobody is made owner by an
--     insert or a role change: ownership stays with the creator.

create table public.workspace_invitations (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  invited_by uuid references auth.users (id) on delete set null,
  -- Exactly one of the two, as the inviter gave it; never checked against auth.users.
  invitee_email text check (invitee_email is null or invitee_email = lower(invitee_email)),
  invitee_user_id uuid,
  role text not null default 'member' check (role in ('admin', 'member', 'viewer')),
  status text not null default 'pending' check (status in ('pending', 'accepted', 'declined')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default now() + interval '7 days',
  responded_at timestamptz,
  check ((invitee_email is null) <> (invitee_user_id is null))
);
comment on table public.workspace_invitations is
  'Pending and answered invitations to a workspace; membership starts only when the invitee accepts.';
create index workspace_invitations_workspace_idx on public.workspace_invitations (workspace_id, created_at desc);
create index workspace_invitations_email_idx on public.workspace_invitations (invitee_email) where invitee_email is not null;
create index workspace_invitations_user_idx on public.workspace_invitations (invitee_user_id) where invitee_user_id is not null;
-- One pending invitation per invitee and workspace (inviting again updates its role).
create unique index workspace_invitations_pending_email_key on public.workspace_invitations (workspace_id, invitee_email)
  where status = 'pending' and invitee_email is not null;
create unique index workspace_invitations_pending_user_key on public.workspace_invitations (workspace_id, invitee_user_id)
  where status = 'pending' and invitee_user_id is not null;

-- True when an invitation to (p_email, p_user_id) is addressed to the caller: by user id, or by
-- the caller's confirmed e-mail address.
create function public.is_invitee(p_email text, p_user_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  -- coalesce: never null (a null here would read as "not refused" in `if not ...`).
  select coalesce(auth.uid() is not null and (
    coalesce(p_user_id = auth.uid(), false)
    or (p_email is not null and exists (
      select 1 from auth.users u
       where u.id = auth.uid() and lower(u.email) = p_email and u.email_confirmed_at is not null
    ))
  ), false)
$$;
revoke execute on function public.is_invitee(text, uuid) from public, anon;
grant execute on function public.is_invitee(text, uuid) to authenticated, service_role;

-- ---- RPCs: the only way invitations are written ----

-- Invites `p_invitee` (an e-mail address or a user id) with `p_role` (admin, member, viewer).
-- Owners invite any of the three; admins invite members and viewers. Returns the invitation
-- {id, workspace_id, role, status, expires_at}: the same shape whether or not the invitee exists.
create function public.invite_to_workspace(p_workspace_id uuid, p_invitee text, p_role text default 'member')
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_invitee text := lower(trim(coalesce(p_invitee, '')));
  v_user uuid;
  v_email text;
  v_row public.workspace_invitations;
begin
  if auth.uid() is null then
    raise exception 'inviting requires a signed-in user' using errcode = '42501';
  end if;
  if not public.is_workspace_member(p_workspace_id) then
    raise exception 'workspace not found' using errcode = 'PT404';
  end if;
  if p_role is null or p_role not in ('admin', 'member', 'viewer') then
    raise exception 'role must be one of admin, member, viewer (ownership is not transferable); got %',
      coalesce(p_role, 'null') using errcode = '22023';
  end if;
  if not (public.has_workspace_role(p_workspace_id, array['owner'])
          or (public.has_workspace_role(p_workspace_id, array['admin']) and p_role in ('member', 'viewer'))) then
    raise exception 'inviting as % requires the owner role in the workspace (admins invite members and viewers)', p_role
      using errcode = '42501';
  end if;
  if v_invitee ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    v_user := v_invitee::uuid;
  elsif length(v_invitee) <= 320 and v_invitee ~ '^[^[:space:][:cntrl:]@]+@[^[:space:][:cntrl:]@]+\.[^[:space:][:cntrl:]@]+$' then
    v_email := v_invitee;
  else
    raise exception 'invitee must be an e-mail address or a user id' using errcode = '22023';
  end if;
  if v_user = auth.uid() then
    raise exception 'you are already a member of this workspace' using errcode = '22023';
  end if;

  -- Inviting the same person again refreshes the pending invitation (role, inviter, expiry).
  select * into v_row from public.workspace_invitations i
   where i.workspace_id = p_workspace_id and i.status = 'pending'
     and (i.invitee_user_id = v_user or i.invitee_email = v_email)
   for update;
  if found then
    update public.workspace_invitations i
       set role = p_role, invited_by = auth.uid(), expires_at = now() + interval '7 days'
     where i.id = v_row.id
    returning * into v_row;
  else
    insert into public.workspace_invitations (workspace_id, invited_by, invitee_email, invitee_user_id, role)
    values (p_workspace_id, auth.uid(), v_email, v_user, p_role)
    returning * into v_row;
  end if;
  return jsonb_build_object('id', v_row.id, 'workspace_id', v_row.workspace_id, 'role', v_row.role,
    'status', v_row.status, 'expires_at', v_row.expires_at);
end $$;

-- The invitee accepts: they become a member with the invited role, unless they already belong to
-- the workspace (an existing role, the owner's included, is never changed by an invitation).
-- Anyone else, or an invitation that is answered or expired: 404.
create function public.accept_workspace_invitation(p_invitation_id uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_inv public.workspace_invitations;
  v_role text;
begin
  select * into v_inv from public.workspace_invitations i where i.id = p_invitation_id for update;
  if not found or not public.is_invitee(v_inv.invitee_email, v_inv.invitee_user_id) or v_inv.status <> 'pending' or v_inv.expires_at <= now() then
    raise exception 'invitation not found' using errcode = 'PT404';
  end if;
  insert into public.workspace_members (workspace_id, user_id, role)
  values (v_inv.workspace_id, auth.uid(), v_inv.role)
  on conflict (workspace_id, user_id) do nothing;
  update public.workspace_invitations set status = 'accepted', responded_at = now() where id = v_inv.id;
  select m.role into v_role from public.workspace_members m
   where m.workspace_id = v_inv.workspace_id and m.user_id = auth.uid();
  return jsonb_build_object('workspace_id', v_inv.workspace_id, 'role', v_role);
end $$;

-- The invitee declines; the invitation stays as a record that they said no.
create function public.decline_workspace_invitation(p_invitation_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  v_inv public.workspace_invitations;
begin
  select * into v_inv from public.workspace_invitations i where i.id = p_invitation_id for update;
  if not found or not public.is_invitee(v_inv.invitee_email, v_inv.invitee_user_id) or v_inv.status <> 'pending' then
    raise exception 'invitation not found' using errcode = 'PT404';
  end if;
  update public.workspace_invitations set status = 'declined', responded_at = now() where id = v_inv.id;
end $$;

revoke execute on function public.invite_to_workspace(uuid, text, text), public.accept_workspace_invitation(uuid),
  public.decline_workspace_invitation(uuid) from public, anon;
grant execute on function public.invite_to_workspace(uuid, text, text), public.accept_workspace_invitation(uuid),
  public.decline_workspace_invitation(uuid) to authenticated, service_role;

-- ---- row-level security ----

alter table public.workspace_invitations enable row level security;
grant select, delete on public.workspace_invitations to authenticated;
grant all on public.workspace_invitations to service_role;

-- Owners and admins see their workspace's invitations; an invitee sees the ones addressed to them.
create policy invitations_read on public.workspace_invitations for select to authenticated
  using (public.is_workspace_admin(workspace_id) or public.is_invitee(invitee_email, invitee_user_id));
comment on policy invitations_read on public.workspace_invitations is
  'Workspace owners and admins, and the invitee, read an invitation.';
-- Owners and admins withdraw pending invitations (admins only those for members and viewers).
create policy invitations_withdraw on public.workspace_invitations for delete to authenticated
  using (
    status = 'pending' and (
      public.has_workspace_role(workspace_id, array['owner'])
      or (public.has_workspace_role(workspace_id, array['admin']) and role in ('member', 'viewer'))
    )
  );
comment on policy invitations_withdraw on public.workspace_invitations is
  'Owners (and admins, for member and viewer invitations) withdraw a pending invitation.';

-- ---- workspace_members: no membership without consent, no ownership by insert or role change ----

drop policy members_add on public.workspace_members;
-- Only the workspace creator's own owner row (the trigger writes it; this keeps a replayed insert
-- of that same row to a conflict, never a way in). Members join through accept_workspace_invitation.
create policy members_add on public.workspace_members for insert to authenticated
  with check (
    user_id = (select auth.uid())
    and role = 'owner'
    and exists (select 1 from public.workspaces w where w.id = workspace_id and w.owner_id = (select auth.uid()))
  );
comment on policy members_add on public.workspace_members is
  'Direct inserts: only the workspace creator''s own owner row; everyone else joins by accepting an invitation.';

alter policy members_change on public.workspace_members
  using (
    user_id <> (select auth.uid()) and role <> 'owner' and (
      public.has_workspace_role(workspace_id, array['owner'])
      or (public.has_workspace_role(workspace_id, array['admin']) and role in ('member', 'viewer')))
  )
  with check (
    role <> 'owner' and (
      public.has_workspace_role(workspace_id, array['owner'])
      or (public.has_workspace_role(workspace_id, array['admin']) and role in ('member', 'viewer')))
  );
comment on policy members_change on public.workspace_members is
  'Owners change roles among admin, member and viewer (admins among member and viewer); nobody their own, nobody to or from owner.';
