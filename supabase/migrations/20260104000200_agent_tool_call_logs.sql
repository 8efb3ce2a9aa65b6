-- agent_tool_call_logs: the audit row of every tool call agent-chat runs against a workspace.
-- Every AI-mode price lookup writes one (tool_name price_lookup); quick pick writes none. Its id
-- is the audit id a commit carries (quote_items.price_lookup_call_id, kb:ai:<id>,
-- product_prices.price_lookup_call_id).
--
-- Rows are written only through log_agent_tool_call (SECURITY DEFINER), which takes the user
-- from the JWT and checks the caller's role in the workspace, so a row can neither be forged for
-- another user or workspace nor edited afterwards. Owners and admins of the workspace read them.

create table public.agent_tool_call_logs (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid references auth.users (id) on delete set null,
  conversation_id uuid references public.agent_chat_conversations (id) on delete set null,
  agent_id text,
  tool_name text not null check (tool_name ~ '^[a-z][a-z0-9_]*$'),
  -- The arguments as the model sent them (price_lookup: product_name, sku, manufacturer ...).
  tool_args jsonb not null default '{}'::jsonb,
  -- price_lookup: {match_count, hints, timing_ms {...}, proposal}.
  result_summary jsonb not null default '{}'::jsonb,
  zero_result boolean not null default false,
  duration_ms integer check (duration_ms >= 0),
  created_at timestamptz not null default now(),
  -- Target of the composite foreign keys that keep a commit in the log's own workspace.
  unique (id, workspace_id)
);
create index agent_tool_call_logs_workspace_idx on public.agent_tool_call_logs (workspace_id, tool_name, created_at desc);

-- Writes one log row for the calling user and returns its id. price_lookup needs the owner or
-- admin role in the workspace (the pricing gate), any other tool membership.
create function public.log_agent_tool_call(
  p_workspace_id uuid, p_tool_name text, p_tool_args jsonb, p_result_summary jsonb, p_zero_result boolean,
  p_duration_ms integer default null, p_conversation_id uuid default null, p_agent_id text default null
) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  v_user uuid := auth.uid();
  v_id uuid;
begin
  if v_user is null then
    raise exception 'a signed-in user is required' using errcode = '42501';
  end if;
  if p_tool_name = 'price_lookup' then
    if not public.is_workspace_admin(p_workspace_id) then
      raise exception 'price_lookup needs the owner or admin role in the workspace' using errcode = '42501';
    end if;
  elsif not public.is_workspace_member(p_workspace_id) then
    raise exception 'not a member of workspace %', p_workspace_id using errcode = '42501';
  end if;
  -- A conversation id is kept only when it is the caller's own.
  if p_conversation_id is not null and not exists (
    select 1 from public.agent_chat_conversations c where c.id = p_conversation_id and c.user_id = v_user
  ) then
    p_conversation_id := null;
  end if;
  insert into public.agent_tool_call_logs (workspace_id, user_id, conversation_id, agent_id, tool_name, tool_args,
                                           result_summary, zero_result, duration_ms)
  values (p_workspace_id, v_user, p_conversation_id, p_agent_id, p_tool_name, coalesce(p_tool_args, '{}'::jsonb),
          coalesce(p_result_summary, '{}'::jsonb), coalesce(p_zero_result, false), p_duration_ms)
  returning id into v_id;
  return v_id;
end $$;
revoke execute on function public.log_agent_tool_call(uuid, text, jsonb, jsonb, boolean, integer, uuid, text)
  from public, anon;
grant execute on function public.log_agent_tool_call(uuid, text, jsonb, jsonb, boolean, integer, uuid, text)
  to authenticated;

-- ---- row-level security ----

alter table public.agent_tool_call_logs enable row level security;

-- Read-only for clients: rows come from log_agent_tool_call and are never edited.
grant select on public.agent_tool_call_logs to authenticated;
grant all on public.agent_tool_call_logs to service_role;

-- Owners and admins of the workspace read its audit trail (the spec's audit reads).
create policy agent_tool_call_logs_admin_read on public.agent_tool_call_logs for select to authenticated
  using (public.is_workspace_admin(workspace_id));
