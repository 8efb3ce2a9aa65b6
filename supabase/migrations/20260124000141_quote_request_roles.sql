-- Who may move a quote request to which status: one rule, in one place, for every path
-- (quotes-api PATCH /quote-requests/{id} and PATCH /rest/v1/quote_requests alike).
--
-- A request is a member asking the workspace for (a revision of) a quote; the workspace's owners
-- and admins handle it. Nobody decides on their own request, whatever their role.
--
--   new status | the requester (own request) | owner/admin of the workspace (not the requester)
--   -----------+-----------------------------+--------------------------------------------------
--   pending    | yes (re-submit)             | yes (re-open)
--   updated    | yes (the request changed)   | no
--   approved   | no                          | yes
--   rejected   | no                          | yes
--
-- notes are the requester's words: only the requester edits them. Anyone else sees no request
-- (404). Reads and writes agree: the read and update policies name the same people (the
-- requester and the workspace's owners and admins), and this rule narrows only what each of them
-- may change. The service role and direct database sessions are the system and pass.

-- True when the caller may set a request of p_requester in p_workspace_id to p_status. STABLE
-- SECURITY INVOKER: it asks only auth.uid() and is_workspace_admin() (itself SECURITY DEFINER).
create function public.may_set_quote_request_status(p_workspace_id uuid, p_requester uuid, p_status text)
returns boolean
language sql stable set search_path = '' as $$
  select case
    when p_requester = (select auth.uid()) then p_status in ('pending', 'updated')
    when public.is_workspace_admin(p_workspace_id) then p_status in ('pending', 'approved', 'rejected')
    else false
  end
$$;
revoke execute on function public.may_set_quote_request_status(uuid, uuid, text) from public;
grant execute on function public.may_set_quote_request_status(uuid, uuid, text) to authenticated, service_role;

-- The rule on every update by a signed-in user (42501: PostgREST's 403). Only changes are
-- checked, so a requester may still edit the notes of a request an admin approved.
create function public.quote_requests_guard_roles() returns trigger
language plpgsql set search_path = '' as $$
begin
  if coalesce(auth.role(), '') <> 'authenticated' then
    return new;
  end if;
  if new.status is distinct from old.status
     and not public.may_set_quote_request_status(old.workspace_id, old.user_id, new.status) then
    raise exception '%', case
        when old.user_id = auth.uid()
          then format('the requester cannot set their own quote request to %s (only pending or updated)', new.status)
        else format('only the requester sets a quote request to %s', new.status)
      end
      using errcode = '42501';
  end if;
  if new.notes is distinct from old.notes and old.user_id is distinct from auth.uid() then
    raise exception 'only the requester edits the notes of a quote request' using errcode = '42501';
  end if;
  return new;
end $$;

create trigger quote_requests_roles before update on public.quote_requests
  for each row execute function public.quote_requests_guard_roles();
