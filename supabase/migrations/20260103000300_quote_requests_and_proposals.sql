-- Quote requests and proposals (spec "Quote request and proposal").
--
-- A quote request is a workspace member asking for (a revision of) a quote: quote_id,
-- workspace_id, notes, status pending | updated | approved | rejected, owned by user_id. The
-- composite foreign key (quote_id, workspace_id) makes "the quote belongs to that workspace" a
-- database fact, whatever a client sends.
--
-- A proposal is the workspace's answer to a request (written by its owners or admins through
-- /rest/v1): an optional message, amount and validity. The requester accepts or rejects it;
-- status pending | accepted | rejected, with responded_at set when it leaves pending. Status
-- moves are direct (the spec shows no transition order).

create table public.quote_requests (
  id uuid primary key default gen_random_uuid(),
  quote_id uuid not null,
  workspace_id uuid not null,
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  notes text,
  status text not null default 'pending' check (status in ('pending', 'updated', 'approved', 'rejected')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (id, workspace_id),
  foreign key (quote_id, workspace_id) references public.quotes (id, workspace_id) on delete cascade
);
create index quote_requests_user_created_idx on public.quote_requests (user_id, created_at desc, id desc);
create index quote_requests_workspace_idx on public.quote_requests (workspace_id, created_at desc);
create index quote_requests_quote_idx on public.quote_requests (quote_id);

create table public.proposals (
  id uuid primary key default gen_random_uuid(),
  quote_request_id uuid not null,
  workspace_id uuid not null,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  message text,
  -- Money as in quotes: numeric, 2 decimals for an amount shown to people.
  amount numeric(16, 2) check (amount >= 0),
  currency text not null default 'EUR' check (currency ~ '^[A-Z]{3}$'),
  valid_until date,
  status text not null default 'pending' check (status in ('pending', 'accepted', 'rejected')),
  responded_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (quote_request_id, workspace_id)
    references public.quote_requests (id, workspace_id) on delete cascade
);
create index proposals_request_idx on public.proposals (quote_request_id, created_at desc);

create trigger quote_requests_touch before update on public.quote_requests
  for each row execute function public.touch_updated_at();
create trigger proposals_touch before update on public.proposals
  for each row execute function public.touch_updated_at();

-- responded_at records when the requester answered; back to pending clears it.
create function public.proposals_track_response() returns trigger
language plpgsql set search_path = '' as $$
begin
  if new.status is distinct from old.status then
    new.responded_at := case when new.status = 'pending' then null else now() end;
  end if;
  return new;
end $$;

create trigger proposals_response before update on public.proposals
  for each row execute function public.proposals_track_response();

-- True when the caller owns the quote request. SECURITY DEFINER so that the proposals policy
-- does not depend on the caller's view of quote_requests.
create function public.owns_quote_request(p_request_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.quote_requests r where r.id = p_request_id and r.user_id = auth.uid()
  )
$$;
revoke execute on function public.owns_quote_request(uuid) from public;
grant execute on function public.owns_quote_request(uuid) to authenticated, service_role;

-- ---- row-level security ----

alter table public.quote_requests enable row level security;
alter table public.proposals enable row level security;

grant select on public.quote_requests to authenticated;
grant insert (quote_id, workspace_id, notes) on public.quote_requests to authenticated;
grant update (status, notes) on public.quote_requests to authenticated;
grant all on public.quote_requests to service_role;

grant select, delete on public.proposals to authenticated;
grant insert (quote_request_id, workspace_id, message, amount, currency, valid_until) on public.proposals
  to authenticated;
-- The requester's answer is the only change a client makes to a proposal.
grant update (status) on public.proposals to authenticated;
grant all on public.proposals to service_role;

-- Requesters read their own requests; the workspace's owners and admins read all of its requests
-- (they answer them).
create policy quote_requests_read on public.quote_requests for select to authenticated
  using (user_id = (select auth.uid()) or public.is_workspace_admin(workspace_id));
-- Any member of the workspace may request a quote of that workspace, in their own name.
create policy quote_requests_create on public.quote_requests for insert to authenticated
  with check (user_id = (select auth.uid()) and public.is_workspace_member(workspace_id));
-- The requester and the workspace's owners and admins move the status.
create policy quote_requests_update on public.quote_requests for update to authenticated
  using (user_id = (select auth.uid()) or public.is_workspace_admin(workspace_id))
  with check (user_id = (select auth.uid()) or public.is_workspace_admin(workspace_id));
-- No delete policy: requests go away with their quote (cascade) or through the service role.

-- The requester reads the proposals made on their request; the workspace's owners and admins read
-- every proposal of the workspace.
create policy proposals_read on public.proposals for select to authenticated
  using (public.owns_quote_request(quote_request_id) or public.is_workspace_admin(workspace_id));
-- Owners and admins of the workspace make proposals, in their own name.
create policy proposals_create on public.proposals for insert to authenticated
  with check (public.is_workspace_admin(workspace_id) and created_by = (select auth.uid()));
-- Only the requester answers (accepts or rejects) a proposal.
create policy proposals_answer on public.proposals for update to authenticated
  using (public.owns_quote_request(quote_request_id))
  with check (public.owns_quote_request(quote_request_id));
-- Owners and admins withdraw proposals.
create policy proposals_delete on public.proposals for delete to authenticated
  using (public.is_workspace_admin(workspace_id));
