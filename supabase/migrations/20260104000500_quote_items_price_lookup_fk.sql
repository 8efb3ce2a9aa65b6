-- The audit join of a committed quote line: quote_items.price_lookup_call_id =
-- agent_tool_call_logs.id (the quotes migration left the column without a key, as the log table
-- arrives with agent-chat).
--
-- The key is composite with the line's workspace, so a line can only cite a lookup made in its
-- own workspace; no action on delete, so an audit row a committed line points to cannot be
-- removed alone (a workspace's deletion removes both in one statement).
alter table public.quote_items
  add constraint quote_items_price_lookup_call_fk
  foreign key (price_lookup_call_id, workspace_id) references public.agent_tool_call_logs (id, workspace_id);

-- price_source kb:ai:<log_id> and price_lookup_call_id name the same lookup, so the two audit
-- paths (by source text and by key) can never disagree.
alter table public.quote_items
  add constraint quote_items_kb_ai_source_matches_call check (
    price_source is null
    or lower(price_source) not like 'kb:ai:%'
    or price_lookup_call_id::text = lower(substr(price_source, 7))
  );
