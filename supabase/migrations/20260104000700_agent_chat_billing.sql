-- agent-chat billing: a flat charge per request by agent (the spec gives agent-chat a 402 but no
-- figure), debited before the model runs and refunded in full when the request fails.
--
--   main, interior-designer   1 credit   (vendor-sonnet-4-5 class model)
--   demo                      0.5 credit (vendor-haiku-4-5, the cheaper model)
--
-- Aliases (search, insights, seo) are billed as the agent they resolve to (main). Two atomic
-- functions, service role only: bill (debit + ledger row + ai_usage_logs row) and settle (token
-- usage onto the usage log, and the refund when the turn failed).

create table public.agent_chat_costs (
  agent_id text primary key check (agent_id ~ '^[a-z][a-z0-9-]*$'),
  credits numeric(14, 4) not null check (credits > 0),
  updated_at timestamptz not null default now()
);
comment on table public.agent_chat_costs is 'Credits debited per agent-chat request, by canonical agent id.';

insert into public.agent_chat_costs (agent_id, credits) values
  ('main', 1),
  ('interior-designer', 1),
  ('demo', 0.5);

create trigger agent_chat_costs_touch before update on public.agent_chat_costs
  for each row execute function public.touch_updated_at();

alter table public.agent_chat_costs enable row level security;
grant select on public.agent_chat_costs to authenticated;
grant update (credits) on public.agent_chat_costs to authenticated;
grant all on public.agent_chat_costs to service_role;

-- Prices are not secret; only platform admins change one.
create policy agent_chat_costs_read on public.agent_chat_costs for select to authenticated using (true);
create policy agent_chat_costs_admin_update on public.agent_chat_costs for update to authenticated
  using (public.has_platform_role(array['admin']))
  with check (public.has_platform_role(array['admin']));

-- Debits the agent's price and opens the turn's usage log. A short balance raises PT402 (HTTP
-- 402) and writes nothing. p_workspace_id is recorded only when the user belongs to it.
-- Returns {transaction_id, balance, credits, usage_log_id}.
create function public.bill_agent_chat(
  p_user_id uuid, p_agent_id text, p_model text, p_workspace_id uuid default null, p_reference_id text default null
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_credits numeric;
  v_debit jsonb;
  v_ws uuid;
  v_log uuid;
begin
  select c.credits into v_credits from public.agent_chat_costs c where c.agent_id = p_agent_id;
  if not found then
    raise exception 'no price for agent %', p_agent_id using errcode = '22023';
  end if;
  v_debit := public.debit_credits(p_user_id, v_credits, 'agent_chat', p_reference_id,
                                  jsonb_build_object('agent_id', p_agent_id, 'model', p_model));
  select m.workspace_id into v_ws from public.workspace_members m
   where m.workspace_id = p_workspace_id and m.user_id = p_user_id;
  insert into public.ai_usage_logs (user_id, workspace_id, action, model, credits_debited, credit_transaction_id, metadata)
  values (p_user_id, v_ws, 'agent_chat', p_model, v_credits, (v_debit ->> 'transaction_id')::uuid,
          jsonb_build_object('agent_id', p_agent_id, 'reference_id', p_reference_id))
  returning id into v_log;
  return v_debit || jsonb_build_object('credits', v_credits, 'usage_log_id', v_log);
end $$;

-- Closes a turn: records its token usage and, with p_refund_reason, refunds its debit (once;
-- refund_credits raises PT409 on a second try). Returns {usage_log_id, refunded, balance?}.
create function public.settle_agent_chat(
  p_usage_log_id uuid, p_input_tokens integer, p_output_tokens integer, p_refund_reason text default null
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_log public.ai_usage_logs;
  v_refund jsonb;
begin
  select * into v_log from public.ai_usage_logs where id = p_usage_log_id and action = 'agent_chat' for update;
  if not found then
    raise exception 'agent_chat usage log % not found', p_usage_log_id using errcode = 'PT404';
  end if;
  if p_refund_reason is not null then
    v_refund := public.refund_credits(v_log.credit_transaction_id, p_refund_reason);
  end if;
  update public.ai_usage_logs
     set input_tokens = greatest(coalesce(p_input_tokens, 0), 0),
         output_tokens = greatest(coalesce(p_output_tokens, 0), 0),
         metadata = metadata || case when v_refund is null then '{}'::jsonb
                                     else jsonb_build_object('refunded', true, 'refund_reason', p_refund_reason,
                                                             'refund_transaction_id', v_refund ->> 'transaction_id')
                                end
   where id = p_usage_log_id;
  return jsonb_build_object('usage_log_id', p_usage_log_id, 'refunded', v_refund is not null,
                            'balance', v_refund -> 'balance');
end $$;

revoke execute on function public.bill_agent_chat(uuid, text, text, uuid, text),
  public.settle_agent_chat(uuid, integer, integer, text) from public, anon, authenticated;
grant execute on function public.bill_agent_chat(uuid, text, text, uuid, text),
  public.settle_agent_chat(uuid, integer, integer, text) to service_role;
