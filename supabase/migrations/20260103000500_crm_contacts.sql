-- CRM contacts and the relationships between them (spec "CRM").
--
-- CRM data is platform-level (not workspace-scoped) and gated by the platform role:
--   admin, manager: every CRM row;
--   factory: only the rows they created (a manufacturer's own business contacts, as the roles
--            table describes the factory role), so two manufacturers never see each other's CRM;
--   everyone else: nothing.
-- created_by is set from auth.uid() and is not writable by clients, so a factory user cannot
-- hand a row to someone else or claim another's.

-- True when the caller may see and change a CRM row created by `owner`.
create function public.crm_row_visible(owner uuid) returns boolean
language sql stable set search_path = '' as $$
  select public.has_platform_role(array['admin', 'manager'])
    or (owner = (select auth.uid()) and public.has_platform_role(array['factory']))
$$;
revoke execute on function public.crm_row_visible(uuid) from public;
grant execute on function public.crm_row_visible(uuid) to authenticated, service_role;

create table public.crm_contacts (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(trim(name)) between 1 and 500),
  email text,
  phone text,
  company text,
  notes text,
  -- The platform user this contact is (link-user / bulk-link); at most one contact per user.
  user_id uuid unique references auth.users (id) on delete set null,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index crm_contacts_created_idx on public.crm_contacts (created_at desc, id desc);
create index crm_contacts_email_idx on public.crm_contacts (lower(email)) where email is not null;
create index crm_contacts_created_by_idx on public.crm_contacts (created_by);

-- A directed relationship between two contacts ("reports_to", "referred_by", "colleague" ...).
create table public.crm_contact_relationships (
  id uuid primary key default gen_random_uuid(),
  contact_id uuid not null references public.crm_contacts (id) on delete cascade,
  related_contact_id uuid not null references public.crm_contacts (id) on delete cascade,
  relationship_type text not null check (length(trim(relationship_type)) between 1 and 100),
  notes text,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  check (contact_id <> related_contact_id),
  unique (contact_id, related_contact_id, relationship_type)
);
create index crm_contact_relationships_related_idx on public.crm_contact_relationships (related_contact_id);

create trigger crm_contacts_touch before update on public.crm_contacts
  for each row execute function public.touch_updated_at();

-- ---- row-level security ----

alter table public.crm_contacts enable row level security;
alter table public.crm_contact_relationships enable row level security;

grant select, delete on public.crm_contacts to authenticated;
grant insert (name, email, phone, company, notes, user_id) on public.crm_contacts to authenticated;
grant update (name, email, phone, company, notes, user_id) on public.crm_contacts to authenticated;
grant all on public.crm_contacts to service_role;
grant select, delete on public.crm_contact_relationships to authenticated;
grant insert (contact_id, related_contact_id, relationship_type, notes) on public.crm_contact_relationships
  to authenticated;
grant update (relationship_type, notes) on public.crm_contact_relationships to authenticated;
grant all on public.crm_contact_relationships to service_role;

-- Admins and managers read every contact; factory users read the contacts they created.
create policy crm_contacts_read on public.crm_contacts for select to authenticated
  using (public.crm_row_visible(created_by));
-- Admins, managers and factory users create contacts, always in their own name.
create policy crm_contacts_create on public.crm_contacts for insert to authenticated
  with check (
    public.has_platform_role(array['admin', 'manager', 'factory']) and created_by = (select auth.uid())
  );
-- Whoever may read a contact may edit it (including linking it to a platform user) ...
create policy crm_contacts_edit on public.crm_contacts for update to authenticated
  using (public.crm_row_visible(created_by))
  with check (public.crm_row_visible(created_by));
-- ... and delete it, with its relationships (cascade).
create policy crm_contacts_delete on public.crm_contacts for delete to authenticated
  using (public.crm_row_visible(created_by));

-- A relationship is visible when its contact is; both ends must be visible to create one, so a
-- factory user cannot point at another manufacturer's contact.
create policy crm_contact_relationships_read on public.crm_contact_relationships for select to authenticated
  using (exists (select 1 from public.crm_contacts c where c.id = contact_id));
create policy crm_contact_relationships_create on public.crm_contact_relationships for insert to authenticated
  with check (
    created_by = (select auth.uid())
    and exists (select 1 from public.crm_contacts c where c.id = contact_id)
    and exists (select 1 from public.crm_contacts c where c.id = related_contact_id)
  );
-- Whoever sees the contact edits and removes its relationships.
create policy crm_contact_relationships_edit on public.crm_contact_relationships for update to authenticated
  using (exists (select 1 from public.crm_contacts c where c.id = contact_id))
  with check (exists (select 1 from public.crm_contacts c where c.id = contact_id));
create policy crm_contact_relationships_delete on public.crm_contact_relationships for delete to authenticated
  using (exists (select 1 from public.crm_contacts c where c.id = contact_id));
