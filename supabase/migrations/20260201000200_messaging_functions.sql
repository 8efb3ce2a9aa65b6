-- Messaging status moves and analytics (spec "States and transitions": message status; spec
-- "Messaging" analytics action).

-- The order a message's status only moves forward in: queued < sent < delivered | failed < read.
-- Twilio's accepted/queued/sending count as queued, undelivered as failed.
create function public.messaging_status_rank(status text) returns integer
language sql immutable set search_path = '' as $$
  select case status
    when 'queued' then 0 when 'accepted' then 0 when 'sending' then 0 when 'scheduled' then 0
    when 'sent' then 1
    when 'delivered' then 2 when 'failed' then 2 when 'undelivered' then 2
    when 'read' then 3
    else -1
  end
$$;
-- Functions in public are executable by anon and authenticated by default (Supabase's default
-- privileges): each grant below is the whole list.
revoke execute on function public.messaging_status_rank(text) from public, anon, authenticated;
grant execute on function public.messaging_status_rank(text) to service_role;

-- Applies one delivery callback to the log of `sid` in one statement: the status moves only
-- forward (a repeated or late callback changes nothing), the timestamp of the state reached is
-- set once, a price is recorded whenever the provider reports one. Returns the log's status
-- afterwards, or null when no log has that provider message id. Service role only (the webhook,
-- after it verified the provider's signature).
create function public.messaging_apply_status(
  sid text,
  provider_status text,
  at timestamptz,
  err_code text default null,
  err_message text default null,
  price numeric default null,
  price_unit text default null
) returns text
language sql volatile set search_path = '' as $$
  with target as (
    select case provider_status
      when 'undelivered' then 'failed'
      when 'accepted' then 'queued' when 'sending' then 'queued' when 'scheduled' then 'queued'
      else provider_status
    end as status
  )
  update public.messaging_logs l set
    -- failed is final: a message the provider gave up on is never read afterwards.
    status = case when l.status <> 'failed'
      and public.messaging_status_rank(t.status) > public.messaging_status_rank(l.status)
      then t.status else l.status end,
    sent_at = case when t.status in ('sent', 'delivered', 'read') and l.status <> 'failed' then coalesce(l.sent_at, at) else l.sent_at end,
    delivered_at = case when t.status in ('delivered', 'read') and l.status <> 'failed'
      then coalesce(l.delivered_at, at) else l.delivered_at end,
    read_at = case when t.status = 'read' and l.status <> 'failed' then coalesce(l.read_at, at) else l.read_at end,
    failed_at = case when t.status = 'failed' and public.messaging_status_rank(l.status) < 2
      then at else l.failed_at end,
    error_code = case when t.status = 'failed' and public.messaging_status_rank(l.status) < 2
      then err_code else l.error_code end,
    error_message = case when t.status = 'failed' and public.messaging_status_rank(l.status) < 2
      then err_message else l.error_message end,
    cost = coalesce(abs(price), l.cost),
    currency = case when price is not null then coalesce(price_unit, l.currency) else l.currency end
  from target t
  where l.provider_message_id = sid and public.messaging_status_rank(t.status) >= 0
  returning l.status
$$;
revoke execute on function public.messaging_apply_status(text, text, timestamptz, text, text, numeric, text)
  from public, anon, authenticated;
grant execute on function public.messaging_apply_status(text, text, timestamptz, text, text, numeric, text)
  to service_role;

-- Delivery analytics of a workspace between two instants (end exclusive), optionally for one
-- channel type. Runs as the caller, so RLS limits it to workspaces the caller belongs to.
-- totalSent counts every attempt (every log row); delivered counts delivered and read; rates
-- are percentages of totalSent rounded to two decimals (0 when nothing was sent).
create function public.messaging_analytics(ws uuid, start_at timestamptz, end_at timestamptz, only_type text)
returns jsonb
language sql stable set search_path = '' as $$
  with logs as (
    select l.* from public.messaging_logs l
     where l.workspace_id = ws and l.created_at >= start_at and l.created_at < end_at
       and (only_type is null or l.channel_type = only_type)
  ), totals as (
    select count(*) as sent,
           count(*) filter (where status in ('delivered', 'read')) as delivered,
           count(*) filter (where status = 'read') as read,
           count(*) filter (where status = 'failed') as failed,
           coalesce(sum(cost), 0) as cost
      from logs
  ), daily as (
    select to_char(date_trunc('day', created_at at time zone 'UTC'), 'YYYY-MM-DD') as date, channel_type,
           count(*) as total_sent,
           count(*) filter (where status in ('delivered', 'read')) as total_delivered,
           count(*) filter (where status = 'read') as total_read,
           count(*) filter (where status = 'failed') as total_failed,
           coalesce(sum(cost), 0) as total_cost
      from logs group by 1, 2
  )
  select jsonb_build_object(
    'totalSent', t.sent,
    'totalDelivered', t.delivered,
    'totalRead', t.read,
    'totalFailed', t.failed,
    'totalCost', t.cost,
    'deliveryRate', case when t.sent = 0 then 0 else round(100.0 * t.delivered / t.sent, 2) end,
    'readRate', case when t.sent = 0 then 0 else round(100.0 * t.read / t.sent, 2) end,
    'failureRate', case when t.sent = 0 then 0 else round(100.0 * t.failed / t.sent, 2) end,
    'dailyData', coalesce((select jsonb_agg(to_jsonb(d) order by d.date, d.channel_type) from daily d), '[]'),
    'total', t.sent,
    'byStatus', coalesce((select jsonb_object_agg(s.status, s.n) from
      (select status, count(*) as n from logs group by status) s), '{}'),
    'byChannel', coalesce((select jsonb_object_agg(s.channel_type, s.n) from
      (select channel_type, count(*) as n from logs group by channel_type) s), '{}')
  ) from totals t
$$;
revoke execute on function public.messaging_analytics(uuid, timestamptz, timestamptz, text) from public, anon;
grant execute on function public.messaging_analytics(uuid, timestamptz, timestamptz, text)
  to authenticated, service_role;
