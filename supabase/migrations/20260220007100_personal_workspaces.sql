-- Personal workspaces (issue 31). Before: a new user belonged to no workspace and nothing in the
-- API said how to get one, so every workspace-scoped call failed until someone created one for
-- them. Now every user owns exactly one personal workspace:
--   - created by a trigger on auth.users in the same transaction as the user (sign-up, the admin
--     users API, SQL inserts alike): if it cannot be created, the user is not created either;
--   - for users who existed before this migration, created below (backfill);
--   - marked `workspaces.is_personal` (at most one per owner: a unique partial index); only the
--     system sets the mark (authenticated may neither insert nor update the column);
--   - named "Personal" (no address or other personal data in a name that invitees see; the
--     owner may rename it), with the same owner member row as any workspace (on_workspace_created);
--   - deleted only with its owner's account: a user cannot delete it (it would leave them with
--     none), and, like every owner, cannot leave it (members_remove).
-- Credits are per user (user_credits), not per workspace, so a personal workspace needs nothing
-- else to be usable: it is a workspace like one created through /rest/v1/workspaces.
-- It is never a silent default: a function with an optional workspace still picks the caller's
-- only workspace, and asks a caller who belongs to several to name one (docs/workspaces.md).

alter table public.workspaces add column is_personal boolean not null default false;
comment on column public.workspaces.is_personal is
  'The owner''s personal workspace, created with their account; at most one per owner.';

create unique index workspaces_one_personal_per_owner on public.workspaces (owner_id) where is_personal;

-- The grants of 20260101000200_workspaces.sql name their columns, so authenticated can neither
-- insert nor update is_personal: nobody makes a second personal workspace or unmarks theirs.

-- Every new auth user gets their personal workspace (and, through on_workspace_created, its
-- owner member row). No `on conflict`: a user row is new, and a failure must fail the sign-up.
create function public.handle_new_user_workspace() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.workspaces (name, owner_id, is_personal) values ('Personal', new.id, true);
  return new;
end $$;
revoke execute on function public.handle_new_user_workspace() from public, anon, authenticated;

create trigger on_auth_user_created_workspace
  after insert on auth.users
  for each row execute function public.handle_new_user_workspace();

-- A personal workspace lives as long as its owner's account.
create function public.guard_personal_workspace_delete() returns trigger
language plpgsql set search_path = '' as $$
begin
  if old.is_personal then
    raise exception 'a personal workspace is deleted only with its owner''s account'
      using errcode = '42501', hint = 'Delete the workspaces you created instead; the personal one stays.';
  end if;
  return old;
end $$;

create trigger workspaces_guard_personal_delete before delete on public.workspaces
  for each row execute function public.guard_personal_workspace_delete();

-- Deleting a user (admin API, SQL) takes their personal workspace with them; workspaces.owner_id
-- is `on delete restrict`, so without this no user could ever be deleted. The workspace is
-- unmarked first so that the guard above lets this delete through (users cannot unmark: grants).
-- Other workspaces the user owns still block the delete, as before.
create function public.handle_deleted_user_workspace() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_ws uuid;
begin
  update public.workspaces set is_personal = false
   where owner_id = old.id and is_personal
  returning id into v_ws;
  if v_ws is not null then
    delete from public.workspaces where id = v_ws;
  end if;
  return old;
end $$;
revoke execute on function public.handle_deleted_user_workspace() from public, anon, authenticated;

create trigger on_auth_user_deleted_workspace
  before delete on auth.users
  for each row execute function public.handle_deleted_user_workspace();

-- Backfill: every existing user (soft-deleted ones aside) gets their personal workspace now.
insert into public.workspaces (name, owner_id, is_personal)
select 'Personal', u.id, true
  from auth.users u
 where u.deleted_at is null
   and not exists (select 1 from public.workspaces w where w.owner_id = u.id and w.is_personal)
 order by u.created_at, u.id;
