-- product_prices.confirmed_at: when the price was confirmed (issue 31, "the frontend contract").
--
-- The origin frontend commits a price with the spec's POST /rest/v1/product_prices (Prefer
-- resolution=merge-duplicates) and sends confirmed_at with confirmed_by; the column did not
-- exist, so PostgREST refused the whole commit (PGRST204). confirmed_by without confirmed_at is
-- half an audit trail anyway.
--
-- Rules, kept by product_prices_guard (redefined here) like confirmed_by's:
-- - A write by a user (auth.uid() set; only owners and admins may write, by RLS) stamps
--   confirmed_by := the writer and confirmed_at := now(), on insert and on every update: the
--   row's prices are what that user confirmed at that moment. Whatever a client sends for either
--   column is overwritten, so the audit trail cannot be backdated.
-- - A write without a user (service role, SQL): an insert keeps a given confirmed_at (imports)
--   or takes now() (the column default); an update that writes a different confirmed_by without
--   a new confirmed_at gets now(); any other update keeps confirmed_at as given.
-- Existing rows are backfilled with updated_at: every user write has stamped confirmed_by, so
-- the last write is the last confirmation (triggers off for the backfill, so updated_at stays).
--
-- RLS and grants: unchanged policies (owners and admins of the workspace read and write, members
-- and outsiders nothing); authenticated gets insert/update on the new column only so that a
-- client may send it (its value is replaced by the trigger).

alter table public.product_prices add column confirmed_at timestamptz;

alter table public.product_prices disable trigger product_prices_touch;
alter table public.product_prices disable trigger product_prices_guard;
update public.product_prices set confirmed_at = updated_at;
alter table public.product_prices enable trigger product_prices_touch;
alter table public.product_prices enable trigger product_prices_guard;

alter table public.product_prices alter column confirmed_at set default now();
alter table public.product_prices alter column confirmed_at set not null;

comment on column public.product_prices.confirmed_at is
  'When confirmed_by confirmed this price: stamped now() on every write by a user (trigger product_prices_guard).';

grant insert (confirmed_at), update (confirmed_at) on public.product_prices to authenticated;

-- The confirmer and the time are the writer's, and the cited documents are the workspace's.
-- SECURITY DEFINER: the check must see the Pricing documents whatever the caller may read (only
-- owners and admins write here anyway).
create or replace function public.product_prices_guard() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_missing uuid;
begin
  if auth.uid() is not null then
    new.confirmed_by := auth.uid();
    new.confirmed_at := pg_catalog.now();
  elsif tg_op = 'INSERT' then
    new.confirmed_at := coalesce(new.confirmed_at, pg_catalog.now());
  elsif new.confirmed_by is distinct from old.confirmed_by
        and new.confirmed_at is not distinct from old.confirmed_at then
    new.confirmed_at := pg_catalog.now();
  end if;
  select s.id into v_missing
    from unnest(new.source_kb_doc_ids) as s (id)
   where not exists (select 1 from public.kb_docs d where d.id = s.id and d.workspace_id = new.workspace_id)
   limit 1;
  if v_missing is not null then
    raise exception 'source_kb_doc_ids: % is not a document of the workspace', v_missing using errcode = '23503';
  end if;
  return new;
end $$;
revoke execute on function public.product_prices_guard() from public, anon, authenticated;
