-- ai-gateway billing: the credit price of every billable action class, in one table, and the
-- two atomic operations the gateway performs with the service role: bill an action (debit +
-- ledger row + ai_usage_logs row, one transaction) and refund it (refund + usage log marked).
--
-- Which action uses which cost key is the gateway's action map
-- (packages/shared/billing/actions.ts); a test checks that every key it names exists here.

create table public.gateway_action_costs (
  cost_key text primary key check (cost_key ~ '^[a-z][a-z0-9_]*$'),
  credits numeric(14, 4) not null check (credits > 0),
  description text not null,
  updated_at timestamptz not null default now()
);
comment on table public.gateway_action_costs is
  'Credits per billable ai-gateway action class; `default` prices billable actions the spec gives no figure for.';

-- The spec's figures (Limits). `default` (1 credit) is our choice for billable actions without
-- a figure: RAG query/chat, AI services, direct LLM calls.
insert into public.gateway_action_costs (cost_key, credits, description) values
  ('rag_text_search', 0.5, 'RAG / knowledge-base text search'),
  ('visual_search', 1, 'Visual (image) search'),
  ('image_analysis', 1, 'Image analysis, per image'),
  ('clip_embedding', 0.25, 'CLIP image or text embedding'),
  ('document_processing', 2, 'Document upload or processing (KB document write, PDF, RAG upload)'),
  ('default', 1, 'Any other billable action (RAG query/chat, AI services, direct LLM)');

create trigger gateway_action_costs_touch before update on public.gateway_action_costs
  for each row execute function public.touch_updated_at();

alter table public.gateway_action_costs enable row level security;
grant select on public.gateway_action_costs to authenticated;
grant update (credits, description) on public.gateway_action_costs to authenticated;
grant all on public.gateway_action_costs to service_role;

-- Prices are not secret: every signed-in user may read them.
create policy gateway_action_costs_read on public.gateway_action_costs for select to authenticated
  using (true);
-- Only platform admins change a price (new keys come with migrations).
create policy gateway_action_costs_admin_update on public.gateway_action_costs for update to authenticated
  using (public.has_platform_role(array['admin']))
  with check (public.has_platform_role(array['admin']));

-- Debits the price of `p_quantity` units of `p_cost_key` for `p_action` and writes the usage log,
-- atomically. A short balance raises PT402 (HTTP 402) and writes nothing. p_workspace_id is
-- recorded only when the user belongs to that workspace (it comes from a request body).
-- Returns {transaction_id, balance, credits, usage_log_id}.
create function public.bill_gateway_action(
  p_user_id uuid, p_action text, p_cost_key text, p_quantity integer default 1,
  p_workspace_id uuid default null, p_reference_id text default null, p_metadata jsonb default '{}'::jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_unit numeric;
  v_credits numeric;
  v_debit jsonb;
  v_log uuid;
  v_ws uuid;
begin
  if p_quantity is null or p_quantity < 1 then
    raise exception 'quantity must be at least 1, got %', p_quantity using errcode = '22023';
  end if;
  select c.credits into v_unit from public.gateway_action_costs c where c.cost_key = p_cost_key;
  if not found then
    raise exception 'no price for cost key %', p_cost_key using errcode = '22023';
  end if;
  v_credits := v_unit * p_quantity;
  v_debit := public.debit_credits(
    p_user_id, v_credits, p_action, p_reference_id,
    coalesce(p_metadata, '{}'::jsonb) || jsonb_build_object('gateway', 'ai-gateway', 'cost_key', p_cost_key,
                                                           'quantity', p_quantity, 'unit_credits', v_unit));
  select m.workspace_id into v_ws from public.workspace_members m
   where m.workspace_id = p_workspace_id and m.user_id = p_user_id;
  insert into public.ai_usage_logs (user_id, workspace_id, action, model, credits_debited, credit_transaction_id, metadata)
  values (p_user_id, v_ws, p_action, 'ai-backend', v_credits, (v_debit ->> 'transaction_id')::uuid,
          jsonb_build_object('gateway', 'ai-gateway', 'cost_key', p_cost_key, 'quantity', p_quantity,
                             'reference_id', p_reference_id))
  returning id into v_log;
  return v_debit || jsonb_build_object('credits', v_credits, 'usage_log_id', v_log);
end $$;

-- Refunds a gateway debit once (refund_credits raises PT409 on a second try) and marks its usage
-- log. Returns {transaction_id, balance}.
create function public.refund_gateway_action(p_transaction_id uuid, p_reason text)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_refund jsonb;
begin
  v_refund := public.refund_credits(p_transaction_id, p_reason);
  update public.ai_usage_logs
     set metadata = metadata || jsonb_build_object('refunded', true, 'refund_reason', p_reason,
                                                   'refund_transaction_id', v_refund ->> 'transaction_id')
   where credit_transaction_id = p_transaction_id;
  return v_refund;
end $$;

-- Money moves are the system's: only the service role (the gateway, after authenticating the
-- caller) may bill or refund.
revoke execute on function public.bill_gateway_action(uuid, text, text, integer, uuid, text, jsonb),
  public.refund_gateway_action(uuid, text) from public, anon, authenticated;
grant execute on function public.bill_gateway_action(uuid, text, text, integer, uuid, text, jsonb),
  public.refund_gateway_action(uuid, text) to service_role;
