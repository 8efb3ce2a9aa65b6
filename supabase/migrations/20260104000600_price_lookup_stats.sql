-- Observability of the pricing workflow (spec "Pricing commit and audit"), per workspace, over
-- the last p_days days (30 by default):
--
--   lookups            price_lookup rows of agent_tool_call_logs in the window
--   committed          of those, the ones whose id appears as price_lookup_call_id in
--                      quote_items or product_prices (each lookup counted once)
--   commit_rate        committed / lookups, rounded to 4 decimals; null without lookups
--   zero_result_count  of those lookups, the ones that matched no price entry at all
--
-- SECURITY INVOKER, refused (42501) unless the caller is owner or admin of the workspace: the
-- numbers are computed from rows RLS already lets an admin read. Called as
-- POST /rest/v1/rpc/price_lookup_stats {p_workspace_id}.
create function public.price_lookup_stats(p_workspace_id uuid, p_days integer default 30)
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
declare
  v_since timestamptz;
begin
  if coalesce(auth.role(), '') <> 'service_role' and not public.is_workspace_admin(p_workspace_id) then
    raise exception 'pricing statistics need the owner or admin role in the workspace' using errcode = '42501';
  end if;
  if p_days is null or p_days < 1 or p_days > 366 then
    raise exception 'p_days must be between 1 and 366, got %', p_days using errcode = '22023';
  end if;
  v_since := now() - make_interval(days => p_days);
  return (
    with lookups as (
      select l.id, l.zero_result
        from public.agent_tool_call_logs l
       where l.workspace_id = p_workspace_id and l.tool_name = 'price_lookup' and l.created_at >= v_since
    ),
    committed as (
      select q.price_lookup_call_id as id from public.quote_items q
       where q.workspace_id = p_workspace_id and q.price_lookup_call_id in (select id from lookups)
      union
      select pp.price_lookup_call_id from public.product_prices pp
       where pp.workspace_id = p_workspace_id and pp.price_lookup_call_id in (select id from lookups)
    )
    select jsonb_build_object(
      'workspace_id', p_workspace_id,
      'days', p_days,
      'since', v_since,
      'lookups', (select count(*) from lookups),
      'committed', (select count(*) from committed),
      'commit_rate', case when (select count(*) from lookups) = 0 then null
                          else round((select count(*) from committed)::numeric / (select count(*) from lookups), 4) end,
      'zero_result_count', (select count(*) from lookups where zero_result)
    )
  );
end $$;
revoke execute on function public.price_lookup_stats(uuid, integer) from public, anon;
grant execute on function public.price_lookup_stats(uuid, integer) to authenticated, service_role;
