-- Credits: a balance per user that can never go negative, an append-only ledger, and AI usage
-- logs. Balances change only through the SECURITY DEFINER functions below, each one statement
-- group in one transaction that writes its ledger row, and only the service role may call them.

create table public.user_credits (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references auth.users (id) on delete cascade,
  balance numeric(14, 4) not null default 0 check (balance >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table public.credit_transactions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  -- Signed: debits are negative, refunds and grants positive.
  amount numeric(14, 4) not null check (amount <> 0),
  balance_after numeric(14, 4) not null check (balance_after >= 0),
  kind text not null check (kind in ('debit', 'refund', 'grant', 'purchase', 'adjustment')),
  action text not null,
  reference_id text,
  -- A refund names the debit it returns; one refund per debit.
  refund_of uuid unique references public.credit_transactions (id),
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index credit_transactions_user_created_idx on public.credit_transactions (user_id, created_at desc);

create table public.ai_usage_logs (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete set null,
  workspace_id uuid references public.workspaces (id) on delete set null,
  action text not null,
  model text,
  input_tokens integer not null default 0 check (input_tokens >= 0),
  output_tokens integer not null default 0 check (output_tokens >= 0),
  raw_cost_usd numeric(14, 6) not null default 0,
  billed_cost_usd numeric(14, 6) not null default 0,
  credits_debited numeric(14, 4) not null default 0,
  credit_transaction_id uuid references public.credit_transactions (id) on delete set null,
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index ai_usage_logs_user_created_idx on public.ai_usage_logs (user_id, created_at desc);

create trigger user_credits_touch before update on public.user_credits
  for each row execute function public.touch_updated_at();

-- Every new auth user starts with an empty balance.
create function public.handle_new_user_credits() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.user_credits (user_id) values (new.id) on conflict (user_id) do nothing;
  return new;
end $$;
revoke execute on function public.handle_new_user_credits() from public, anon, authenticated;

create trigger on_auth_user_created_credits
  after insert on auth.users
  for each row execute function public.handle_new_user_credits();

-- Debits `amount` credits atomically. Raises SQLSTATE PT402 (PostgREST answers HTTP 402) when
-- the balance is short, so nothing is written. Returns {transaction_id, balance}.
create function public.debit_credits(
  p_user_id uuid, p_amount numeric, p_action text,
  p_reference_id text default null, p_metadata jsonb default '{}'::jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_balance numeric;
  v_tx uuid;
begin
  if p_amount is null or p_amount <= 0 then
    raise exception 'debit amount must be positive, got %', p_amount using errcode = '22023';
  end if;
  if p_action is null or length(p_action) = 0 then
    raise exception 'debit action is required' using errcode = '22023';
  end if;
  -- One conditional update: concurrent debits serialise on the row lock and the check re-runs.
  update public.user_credits set balance = balance - p_amount
   where user_id = p_user_id and balance >= p_amount
  returning balance into v_balance;
  if not found then
    if not exists (select 1 from public.user_credits where user_id = p_user_id) then
      raise exception 'no credit account for user %', p_user_id using errcode = 'PT404';
    end if;
    raise exception 'insufficient credits: % required', p_amount
      using errcode = 'PT402', hint = 'Buy credits or upgrade the subscription.';
  end if;
  insert into public.credit_transactions (user_id, amount, balance_after, kind, action, reference_id, metadata)
  values (p_user_id, -p_amount, v_balance, 'debit', p_action, p_reference_id, coalesce(p_metadata, '{}'::jsonb))
  returning id into v_tx;
  return jsonb_build_object('transaction_id', v_tx, 'balance', v_balance);
end $$;

-- Returns a debit in full, once. Returns {transaction_id, balance}; a second refund of the same
-- debit raises SQLSTATE PT409.
create function public.refund_credits(p_debit_id uuid, p_reason text default 'refund')
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_debit public.credit_transactions;
  v_balance numeric;
  v_tx uuid;
begin
  select * into v_debit from public.credit_transactions where id = p_debit_id for update;
  if not found or v_debit.kind <> 'debit' then
    raise exception 'debit % not found', p_debit_id using errcode = 'PT404';
  end if;
  if exists (select 1 from public.credit_transactions where refund_of = p_debit_id) then
    raise exception 'debit % was already refunded', p_debit_id using errcode = 'PT409';
  end if;
  update public.user_credits set balance = balance - v_debit.amount
   where user_id = v_debit.user_id returning balance into v_balance;
  insert into public.credit_transactions (user_id, amount, balance_after, kind, action, reference_id, refund_of, metadata)
  values (v_debit.user_id, -v_debit.amount, v_balance, 'refund', coalesce(p_reason, 'refund'),
          v_debit.reference_id, p_debit_id, jsonb_build_object('reason', p_reason))
  returning id into v_tx;
  return jsonb_build_object('transaction_id', v_tx, 'balance', v_balance);
end $$;

-- Adds credits (purchase, grant, adjustment). Returns {transaction_id, balance}.
create function public.grant_credits(
  p_user_id uuid, p_amount numeric, p_kind text default 'grant', p_action text default 'grant',
  p_reference_id text default null, p_metadata jsonb default '{}'::jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_balance numeric;
  v_tx uuid;
begin
  if p_amount is null or p_amount <= 0 then
    raise exception 'grant amount must be positive, got %', p_amount using errcode = '22023';
  end if;
  if p_kind not in ('grant', 'purchase', 'adjustment') then
    raise exception 'invalid credit kind %', p_kind using errcode = '22023';
  end if;
  insert into public.user_credits (user_id, balance) values (p_user_id, p_amount)
  on conflict (user_id) do update set balance = public.user_credits.balance + excluded.balance
  returning balance into v_balance;
  insert into public.credit_transactions (user_id, amount, balance_after, kind, action, reference_id, metadata)
  values (p_user_id, p_amount, v_balance, p_kind, p_action, p_reference_id, coalesce(p_metadata, '{}'::jsonb))
  returning id into v_tx;
  return jsonb_build_object('transaction_id', v_tx, 'balance', v_balance);
end $$;

-- Money moves are the system's business: only the service role (edge functions acting for the
-- platform, after they have authorised the caller) may call them.
revoke execute on function public.debit_credits(uuid, numeric, text, text, jsonb),
  public.refund_credits(uuid, text),
  public.grant_credits(uuid, numeric, text, text, text, jsonb) from public, anon, authenticated;
grant execute on function public.debit_credits(uuid, numeric, text, text, jsonb),
  public.refund_credits(uuid, text),
  public.grant_credits(uuid, numeric, text, text, text, jsonb) to service_role;

-- ---- row-level security ----

alter table public.user_credits enable row level security;
alter table public.credit_transactions enable row level security;
alter table public.ai_usage_logs enable row level security;

grant select on public.user_credits, public.credit_transactions, public.ai_usage_logs to authenticated;
grant all on public.user_credits, public.credit_transactions, public.ai_usage_logs to service_role;

-- Users read their own balance, ledger and usage; platform admins read everyone's. There are no
-- write policies: balances move only through the functions above.
create policy user_credits_read on public.user_credits for select to authenticated
  using (user_id = (select auth.uid()) or public.has_platform_role(array['admin']));
create policy credit_transactions_read on public.credit_transactions for select to authenticated
  using (user_id = (select auth.uid()) or public.has_platform_role(array['admin']));
create policy ai_usage_logs_read on public.ai_usage_logs for select to authenticated
  using (user_id = (select auth.uid()) or public.has_platform_role(array['admin']));
