-- A quote line's audit link (price_lookup_call_id) always means what it says: "this line's price
-- is the committed answer of that AI-mode price lookup". So the link exists exactly when
-- price_source is kb:ai:<log_id>, and it is that log id (the commit rate of price_lookup_stats
-- counts linked lookups as committed).
--
-- - A line re-priced to any other source (manual, catalog, kb:quick:, product_price:, none)
--   loses the link in the same statement, unless the write sets a link itself.
-- - A kb:ai:<log_id> source with no link gets the link from the source, so the foreign key
--   checks the lookup is on record in the line's workspace (409 otherwise); the check of
--   migration 20260104000500 already refuses a link that names another lookup.
-- - A write that links a line whose source is not kb:ai: (e.g. {price_source: manual,
--   price_lookup_call_id: X}) is refused: check violation, PostgREST's 400.

-- Lines already written the old way lose a link their source no longer backs; kb:ai lines
-- without a link get it when the lookup is on record in their workspace.
update public.quote_items
   set price_lookup_call_id = null
 where price_lookup_call_id is not null
   and (price_source is null or lower(price_source) not like 'kb:ai:%');
update public.quote_items q
   set price_lookup_call_id = l.id
  from public.agent_tool_call_logs l
 where q.price_lookup_call_id is null
   and lower(q.price_source) like 'kb:ai:%'
   and l.id::text = lower(substr(q.price_source, 7))
   and l.workspace_id = q.workspace_id;

create function public.quote_items_lookup_link() returns trigger
language plpgsql set search_path = '' as $$
begin
  if lower(coalesce(new.price_source, '')) like 'kb:ai:%' then
    new.price_lookup_call_id := coalesce(new.price_lookup_call_id, lower(substr(new.price_source, 7))::uuid);
  elsif tg_op = 'UPDATE' and new.price_lookup_call_id is not distinct from old.price_lookup_call_id then
    -- The source moved away from the lookup and the write said nothing of the link: clear it.
    new.price_lookup_call_id := null;
  end if;
  return new;
end $$;

-- Fires before quote_items_2_pricing_guard (triggers fire in name order), so the guard judges
-- the link the row will really have.
create trigger quote_items_1_lookup_link before insert or update on public.quote_items
  for each row execute function public.quote_items_lookup_link();

alter table public.quote_items
  add constraint quote_items_lookup_link_needs_kb_ai_source check (
    price_lookup_call_id is null or lower(coalesce(price_source, '')) like 'kb:ai:%'
  );
