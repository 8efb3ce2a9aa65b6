-- flow-webhook replay protection (issue 31). A signed delivery used to carry an HMAC of its body
-- alone, so one captured delivery re-ran the flow (its SMS, e-mails, http_request calls, quotes)
-- as often as anyone resent it. Deliveries to flows that require a signature are now signed with
-- a timestamp (X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">,
-- packages/shared/webhook_signature.ts), refused outside 5 minutes of now, and each accepted one
-- is recorded here for as long as its timestamp could still pass: a second copy inside the window
-- finds its row and starts nothing.
--
-- The delivery id is the SHA-256 of "<t>.<v1>": the v1 commits to t and the body under the
-- flow's secret, so only the secret's holder can make a new id, and a resent copy has the old one.
-- The claim is one INSERT ... ON CONFLICT DO NOTHING on the primary key, so two copies arriving
-- at once start one run. Rows older than p_keep_seconds (twice the tolerance, so a clock skew
-- between the function and the database below the tolerance never frees an id early) are
-- deleted by the claim that inserts a row (index on signed_at; a handful of rows per call).
--
-- Who may do what: RLS on, no policy and no grant to anon or authenticated; only the service role
-- (flow-webhook, through flow_webhook_claim_delivery) reads or writes the table.

create table public.flow_webhook_deliveries (
  flow_id uuid not null references public.flows (id) on delete cascade,
  delivery_id text not null,
  signed_at timestamptz not null,
  received_at timestamptz not null default now(),
  primary key (flow_id, delivery_id)
);
create index flow_webhook_deliveries_signed_idx on public.flow_webhook_deliveries (signed_at);

alter table public.flow_webhook_deliveries enable row level security;
grant all on public.flow_webhook_deliveries to service_role;
-- No policy: delivery ids are system data; clients neither read nor write them.

-- Records one delivery of a flow; true when it is the first copy (run the flow), false when the
-- id is already recorded (a replay: run nothing).
create function public.flow_webhook_claim_delivery(
  p_flow_id uuid,
  p_delivery_id text,
  p_signed_at timestamptz,
  p_keep_seconds integer
)
returns boolean
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if p_keep_seconds < 1 then
    raise exception 'p_keep_seconds must be positive' using errcode = '22023';
  end if;
  insert into public.flow_webhook_deliveries (flow_id, delivery_id, signed_at)
  values (p_flow_id, p_delivery_id, p_signed_at)
  on conflict (flow_id, delivery_id) do nothing;
  if not found then
    return false;
  end if;
  delete from public.flow_webhook_deliveries
   where signed_at < now() - make_interval(secs => p_keep_seconds);
  return true;
end
$$;
revoke execute on function public.flow_webhook_claim_delivery(uuid, text, timestamptz, integer)
  from public, anon, authenticated;
grant execute on function public.flow_webhook_claim_delivery(uuid, text, timestamptz, integer) to service_role;
