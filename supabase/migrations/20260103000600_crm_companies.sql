-- CRM companies and their contacts (spec "CRM"). Same visibility as contacts
-- (20260103000500_crm_contacts.sql): admins and managers see every company, factory users the
-- companies they created.

create table public.crm_companies (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(trim(name)) between 1 and 500),
  website text,
  industry text,
  employee_count integer check (employee_count >= 0),
  -- A yearly figure in the company's reporting currency; 2 decimals like every amount.
  annual_revenue numeric(18, 2) check (annual_revenue >= 0),
  email text,
  phone text,
  address text,
  city text,
  state text,
  postal_code text,
  country text,
  linkedin text,
  twitter text,
  facebook text,
  description text,
  notes text,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index crm_companies_created_idx on public.crm_companies (created_at desc, id desc);
create index crm_companies_created_by_idx on public.crm_companies (created_by);
create index crm_companies_name_trgm_idx on public.crm_companies using gin (name extensions.gin_trgm_ops);

-- A contact's role at a company; one link per (company, contact), at most one primary contact.
create table public.crm_company_contacts (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references public.crm_companies (id) on delete cascade,
  contact_id uuid not null references public.crm_contacts (id) on delete cascade,
  role text,
  is_primary boolean not null default false,
  notes text,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  unique (company_id, contact_id)
);
create index crm_company_contacts_contact_idx on public.crm_company_contacts (contact_id);
create unique index crm_company_contacts_one_primary on public.crm_company_contacts (company_id)
  where is_primary;

create trigger crm_companies_touch before update on public.crm_companies
  for each row execute function public.touch_updated_at();

-- Making a contact primary demotes the company's previous primary contact in the same statement,
-- rather than failing on the one-primary index. SECURITY INVOKER: it only touches links the
-- caller may edit, which are those of a company they can see.
create function public.crm_company_contacts_single_primary() returns trigger
language plpgsql set search_path = '' as $$
begin
  if new.is_primary then
    update public.crm_company_contacts
       set is_primary = false
     where company_id = new.company_id and is_primary and id <> new.id;
  end if;
  return new;
end $$;

create trigger crm_company_contacts_primary before insert or update of is_primary
  on public.crm_company_contacts
  for each row execute function public.crm_company_contacts_single_primary();

-- ---- row-level security ----

alter table public.crm_companies enable row level security;
alter table public.crm_company_contacts enable row level security;

grant select, delete on public.crm_companies to authenticated;
grant insert (name, website, industry, employee_count, annual_revenue, email, phone, address, city, state,
  postal_code, country, linkedin, twitter, facebook, description, notes) on public.crm_companies to authenticated;
grant update (name, website, industry, employee_count, annual_revenue, email, phone, address, city, state,
  postal_code, country, linkedin, twitter, facebook, description, notes) on public.crm_companies to authenticated;
grant all on public.crm_companies to service_role;
grant select, delete on public.crm_company_contacts to authenticated;
grant insert (company_id, contact_id, role, is_primary, notes) on public.crm_company_contacts to authenticated;
grant update (role, is_primary, notes) on public.crm_company_contacts to authenticated;
grant all on public.crm_company_contacts to service_role;

-- Admins and managers read every company; factory users read the companies they created.
create policy crm_companies_read on public.crm_companies for select to authenticated
  using (public.crm_row_visible(created_by));
-- Admins, managers and factory users create companies, always in their own name.
create policy crm_companies_create on public.crm_companies for insert to authenticated
  with check (
    public.has_platform_role(array['admin', 'manager', 'factory']) and created_by = (select auth.uid())
  );
-- Whoever may read a company may edit and delete it (its contact links go with it).
create policy crm_companies_edit on public.crm_companies for update to authenticated
  using (public.crm_row_visible(created_by))
  with check (public.crm_row_visible(created_by));
create policy crm_companies_delete on public.crm_companies for delete to authenticated
  using (public.crm_row_visible(created_by));

-- A link is visible when its company is. Creating one needs both the company and the contact to
-- be visible, so a factory user links only their own contacts to their own companies.
create policy crm_company_contacts_read on public.crm_company_contacts for select to authenticated
  using (exists (select 1 from public.crm_companies co where co.id = company_id));
create policy crm_company_contacts_create on public.crm_company_contacts for insert to authenticated
  with check (
    created_by = (select auth.uid())
    and exists (select 1 from public.crm_companies co where co.id = company_id)
    and exists (select 1 from public.crm_contacts c where c.id = contact_id)
  );
-- Whoever sees the company edits and detaches its contacts.
create policy crm_company_contacts_edit on public.crm_company_contacts for update to authenticated
  using (exists (select 1 from public.crm_companies co where co.id = company_id))
  with check (exists (select 1 from public.crm_companies co where co.id = company_id));
create policy crm_company_contacts_delete on public.crm_company_contacts for delete to authenticated
  using (exists (select 1 from public.crm_companies co where co.id = company_id));
