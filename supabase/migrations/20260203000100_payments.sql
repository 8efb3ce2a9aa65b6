-- Payments and billing: the catalog of subscription plans and credit packages, the checkout
-- sessions we opened with the payment provider (Stripe), the subscriptions it reports, and the
-- provider events already processed. The payment customer id lives on user_profiles
-- (payment_customer_id, unique). Every state change driven by a webhook is one SECURITY DEFINER
-- function below: the event id is recorded in the same transaction as its effect, so a replayed
-- or concurrently redelivered event changes nothing the second time.

create table public.subscription_plans (
  id uuid primary key default gen_random_uuid(),
  name text not null unique,
  description text,
  -- The tier a live subscription to this plan gives its user (user_profiles.subscription_tier).
  tier text not null unique check (tier in ('starter', 'pro', 'enterprise')),
  -- Per billing interval, in EUR.
  price numeric(10, 2) not null check (price > 0),
  currency text not null default 'eur' check (currency = 'eur'),
  billing_interval text not null default 'month' check (billing_interval in ('month', 'year')),
  -- The provider's recurring price (Stripe `price_...`): what payments-checkout takes as priceId.
  provider_price_id text not null unique,
  is_active boolean not null default true,
  created_at timestamptz not null default now()
);
comment on table public.subscription_plans is 'Subscription catalog: plan, tier, EUR price and the provider price id.';

create table public.credit_packages (
  id uuid primary key default gen_random_uuid(),
  name text not null unique,
  credits numeric(14, 4) not null check (credits > 0),
  -- In EUR.
  price numeric(10, 2) not null check (price > 0),
  currency text not null default 'eur' check (currency = 'eur'),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  unique (credits, price)
);
comment on table public.credit_packages is 'Credit catalog: what a credit purchase may buy and for how much.';

-- Every checkout session we created: what the user is buying, priced from the catalog on the
-- server. The webhook grants from this row, never from the event's metadata.
create table public.payment_checkouts (
  id uuid primary key default gen_random_uuid(),
  provider_session_id text not null unique,
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind in ('credit_purchase', 'subscription')),
  package_id uuid references public.credit_packages (id),
  plan_id uuid references public.subscription_plans (id),
  credits numeric(14, 4) check (credits > 0),
  amount_cents integer not null check (amount_cents > 0),
  currency text not null default 'eur',
  status text not null default 'open' check (status in ('open', 'complete', 'expired')),
  -- The ledger row that granted the credits (credit purchases).
  credit_transaction_id uuid references public.credit_transactions (id),
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  check ((kind = 'credit_purchase') = (credits is not null)),
  check (kind <> 'subscription' or plan_id is not null)
);
create index payment_checkouts_user_idx on public.payment_checkouts (user_id, created_at desc);

create table public.subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  plan_id uuid references public.subscription_plans (id),
  provider_subscription_id text not null unique,
  provider_customer_id text not null,
  status text not null check (status in (
    'incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'
  )),
  current_period_start timestamptz,
  current_period_end timestamptz,
  cancel_at_period_end boolean not null default false,
  canceled_at timestamptz,
  -- `created` of the newest event applied: an older event arriving late changes nothing.
  last_event_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index subscriptions_user_idx on public.subscriptions (user_id, created_at desc);
create trigger subscriptions_touch before update on public.subscriptions
  for each row execute function public.touch_updated_at();

-- Provider events already handled, by their id (evt_...): the idempotency record of the webhook.
create table public.payment_events (
  id text primary key,
  type text not null,
  outcome jsonb not null default '{}'::jsonb,
  received_at timestamptz not null default now()
);

-- ---- catalog seed ----

insert into public.subscription_plans (name, description, tier, price, provider_price_id) values
  ('Starter', 'For small teams: the catalog, quotes and a monthly credit allowance.', 'starter', 19.00, 'price_starter_monthly'),
  ('Pro', 'For growing teams: everything in Starter plus AI agents and price monitoring.', 'pro', 49.00, 'price_pro_monthly'),
  ('Enterprise', 'For large organisations: every feature, higher limits and priority support.', 'enterprise', 199.00, 'price_enterprise_monthly');

insert into public.credit_packages (name, credits, price) values
  ('100 credits', 100, 10.00),
  ('500 credits', 500, 45.00),
  ('1000 credits', 1000, 80.00);

-- ---- webhook functions (service role only) ----

-- checkout.session.completed / checkout.session.async_payment_succeeded: completes the checkout
-- we recorded and, for a paid credit purchase, grants its credits through grant_credits, once.
-- The amount the provider charged must be the amount we asked for (else nothing is granted and
-- the outcome says amount_mismatch). Returns {duplicate} when the
-- event was handled before, else {status, credits_granted, balance}.
create function public.complete_payment_checkout(
  p_event_id text, p_event_type text, p_session_id text, p_payment_status text,
  p_amount_total integer, p_currency text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_checkout public.payment_checkouts;
  v_grant jsonb;
  v_outcome jsonb;
begin
  insert into public.payment_events (id, type) values (p_event_id, p_event_type)
  on conflict (id) do nothing;
  if not found then
    return jsonb_build_object('duplicate', true);
  end if;
  select * into v_checkout from public.payment_checkouts
   where provider_session_id = p_session_id for update;
  if not found then
    v_outcome := jsonb_build_object('status', 'unknown_session');
  elsif v_checkout.status = 'complete' then
    v_outcome := jsonb_build_object('status', 'already_complete');
  elsif p_payment_status not in ('paid', 'no_payment_required') then
    v_outcome := jsonb_build_object('status', 'awaiting_payment');
  elsif p_amount_total is distinct from v_checkout.amount_cents or lower(p_currency) <> v_checkout.currency then
    -- Recorded, not raised: a redelivery would fail the same way forever. Nothing is granted.
    v_outcome := jsonb_build_object('status', 'amount_mismatch', 'amount_total', p_amount_total,
      'currency', p_currency, 'expected_cents', v_checkout.amount_cents);
  else
    if v_checkout.kind = 'credit_purchase' then
      v_grant := public.grant_credits(v_checkout.user_id, v_checkout.credits, 'purchase', 'credit_purchase',
        p_session_id, jsonb_build_object('package_id', v_checkout.package_id, 'event_id', p_event_id,
          'amount_cents', v_checkout.amount_cents, 'currency', v_checkout.currency));
    end if;
    update public.payment_checkouts
       set status = 'complete', completed_at = now(),
           credit_transaction_id = (v_grant ->> 'transaction_id')::uuid
     where id = v_checkout.id;
    v_outcome := jsonb_build_object('status', 'complete', 'kind', v_checkout.kind,
      'credits_granted', coalesce(v_checkout.credits, 0), 'balance', v_grant -> 'balance');
  end if;
  update public.payment_events set outcome = v_outcome where id = p_event_id;
  return v_outcome;
end $$;

-- checkout.session.expired: an open checkout we recorded will never be paid. Returns
-- {duplicate} when the event was handled before, else {status}.
create function public.expire_payment_checkout(p_event_id text, p_event_type text, p_session_id text)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_outcome jsonb;
begin
  insert into public.payment_events (id, type) values (p_event_id, p_event_type)
  on conflict (id) do nothing;
  if not found then
    return jsonb_build_object('duplicate', true);
  end if;
  update public.payment_checkouts set status = 'expired'
   where provider_session_id = p_session_id and status = 'open';
  v_outcome := jsonb_build_object('status', case when found then 'expired' else 'unchanged' end);
  update public.payment_events set outcome = v_outcome where id = p_event_id;
  return v_outcome;
end $$;

-- customer.subscription.created|updated|deleted (and paused/resumed): upserts the subscription
-- of the user owning the customer and sets their tier: the plan's tier while the subscription is
-- live (trialing, active, past_due), free otherwise. Events older than the last applied one are
-- recorded and ignored.
create function public.apply_subscription_event(
  p_event_id text, p_event_type text, p_event_created timestamptz, p_subscription_id text,
  p_customer_id text, p_status text, p_price_id text, p_period_start timestamptz,
  p_period_end timestamptz, p_cancel_at_period_end boolean, p_canceled_at timestamptz
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_user uuid;
  v_plan public.subscription_plans;
  v_existing public.subscriptions;
  v_tier text;
  v_outcome jsonb;
begin
  insert into public.payment_events (id, type) values (p_event_id, p_event_type)
  on conflict (id) do nothing;
  if not found then
    return jsonb_build_object('duplicate', true);
  end if;
  select user_id into v_user from public.user_profiles where payment_customer_id = p_customer_id;
  select * into v_plan from public.subscription_plans where provider_price_id = p_price_id;
  if v_user is null then
    v_outcome := jsonb_build_object('status', 'unknown_customer');
  else
    select * into v_existing from public.subscriptions
     where provider_subscription_id = p_subscription_id for update;
    if found and v_existing.last_event_at > p_event_created then
      v_outcome := jsonb_build_object('status', 'stale');
    else
      insert into public.subscriptions (user_id, plan_id, provider_subscription_id, provider_customer_id, status,
        current_period_start, current_period_end, cancel_at_period_end, canceled_at, last_event_at)
      values (v_user, v_plan.id, p_subscription_id, p_customer_id, p_status, p_period_start, p_period_end,
        coalesce(p_cancel_at_period_end, false), p_canceled_at, p_event_created)
      on conflict (provider_subscription_id) do update set
        plan_id = coalesce(excluded.plan_id, public.subscriptions.plan_id), status = excluded.status,
        current_period_start = excluded.current_period_start, current_period_end = excluded.current_period_end,
        cancel_at_period_end = excluded.cancel_at_period_end, canceled_at = excluded.canceled_at,
        last_event_at = excluded.last_event_at;
      v_tier := case when p_status in ('trialing', 'active', 'past_due') and v_plan.tier is not null
        then v_plan.tier else 'free' end;
      -- A user has one live subscription at a time; ending an old one must not demote a newer one.
      if v_tier <> 'free' or not exists (
        select 1 from public.subscriptions
         where user_id = v_user and provider_subscription_id <> p_subscription_id
           and status in ('trialing', 'active', 'past_due')
      ) then
        update public.user_profiles set subscription_tier = v_tier where user_id = v_user;
      end if;
      v_outcome := jsonb_build_object('status', p_status, 'tier', v_tier, 'user_id', v_user);
    end if;
  end if;
  update public.payment_events set outcome = v_outcome where id = p_event_id;
  return v_outcome;
end $$;

revoke execute on function
  public.complete_payment_checkout(text, text, text, text, integer, text),
  public.expire_payment_checkout(text, text, text),
  public.apply_subscription_event(text, text, timestamptz, text, text, text, text, timestamptz, timestamptz,
    boolean, timestamptz)
  from public, anon, authenticated;
grant execute on function
  public.complete_payment_checkout(text, text, text, text, integer, text),
  public.expire_payment_checkout(text, text, text),
  public.apply_subscription_event(text, text, timestamptz, text, text, text, text, timestamptz, timestamptz,
    boolean, timestamptz)
  to service_role;

-- ---- row-level security ----

alter table public.subscription_plans enable row level security;
alter table public.credit_packages enable row level security;
alter table public.payment_checkouts enable row level security;
alter table public.subscriptions enable row level security;
alter table public.payment_events enable row level security;

grant select on public.subscription_plans, public.credit_packages, public.payment_checkouts,
  public.subscriptions, public.payment_events to authenticated;
grant all on public.subscription_plans, public.credit_packages, public.payment_checkouts,
  public.subscriptions, public.payment_events to service_role;

-- The catalog is what every signed-in user may buy: active plans and packages are readable by
-- all of them; platform admins also see retired ones. Only the service role writes the catalog.
create policy subscription_plans_read on public.subscription_plans for select to authenticated
  using (is_active or public.has_platform_role(array['admin']));
create policy credit_packages_read on public.credit_packages for select to authenticated
  using (is_active or public.has_platform_role(array['admin']));
-- A user reads their own checkouts; platform admins read everyone's. Written by the service role only.
create policy payment_checkouts_read on public.payment_checkouts for select to authenticated
  using (user_id = (select auth.uid()) or public.has_platform_role(array['admin']));
-- A user reads their own subscriptions; platform admins read everyone's. Written only by the
-- webhook's apply_subscription_event.
create policy subscriptions_read on public.subscriptions for select to authenticated
  using (user_id = (select auth.uid()) or public.has_platform_role(array['admin']));
-- payment_events has no policy for any client role, so signed-in users read it empty: it is the
-- webhook's idempotency record, read and written by the service role only.
