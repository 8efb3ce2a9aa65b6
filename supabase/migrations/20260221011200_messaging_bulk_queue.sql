-- messaging-api send-bulk on a queue (issue 35). send-bulk paced its sends inside the request:
-- 10,000 recipients on a channel whose max_send_rate is 600/min kept one request open for over
-- 16 minutes, which hosted cuts at 150 s (504) or 400 s, part of the bulk sent, the rest never,
-- the answer lost.
--
-- Now send-bulk records the bulk and every recipient (opted-out and invalid ones already
-- settled), puts one message on the pgmq queue `messaging_bulk` and answers. The worker
-- (function messaging-bulk-worker: fired by the pg_cron job below every minute, and kicked
-- through pg_net right after a send-bulk) reads a bulk's message with a visibility timeout (its
-- lease), sends for at most ~50 s, then lets the message go again (vt 0) or archives it when no
-- recipient is left.
--
-- Exactly once per recipient: messaging_bulk_claim takes the channel's next send slot and marks
-- the recipient `sending` (with the lease: the message's read_ct) in one transaction BEFORE the
-- provider is called; messaging_bulk_record stores the provider's sid (or the failure) after.
-- A claim made under an older lease than the current read is left over by a worker that died:
-- the worker asks the provider whether that message went out (adopts its sid) or puts the
-- recipient back to `queued`, never sending blind. A worker whose lease was taken over is
-- refused its next claim (`fenced`).
--
-- Pacing and quota are enforced in the claim, under a lock on the channel row, so concurrent
-- workers share them: a send takes a slot at least 60/max_send_rate seconds after the channel's
-- previous one and only while the last 60 s hold fewer than max_send_rate attempts (so no
-- sliding 60-second window holds more), and only while today's (UTC) attempts are below
-- daily_quota; past it the bulk's remaining recipients fail with the quota message, as
-- send-bulk always answered. Times come from the caller (p_now: the messaging clock).
--
-- Who may do what: members of the workspace read its bulks and their recipients (the
-- send-bulk-status action reads them as the caller); only the service path writes them, through
-- the functions below, which only service_role may execute.

create table public.messaging_bulks (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid references auth.users (id) on delete set null,
  channel_id uuid references public.messaging_channels (id) on delete set null,
  channel_type text not null check (channel_type in ('sms', 'whatsapp')),
  template_id uuid references public.messaging_templates (id) on delete set null,
  message_type text not null
    check (message_type in ('transactional', 'marketing', 'otp', 'notification')),
  content_sid text,
  media_url text[],
  tags jsonb not null default '{}'::jsonb,
  total integer not null check (total >= 1),
  -- queued: waiting for the worker; sending: the worker has started; completed: none left.
  status text not null default 'queued' check (status in ('queued', 'sending', 'completed')),
  created_at timestamptz not null default now(),
  completed_at timestamptz
);
create index messaging_bulks_workspace_idx on public.messaging_bulks (workspace_id, created_at desc);
create index messaging_bulks_user_idx on public.messaging_bulks (user_id);
create index messaging_bulks_channel_idx on public.messaging_bulks (channel_id);
create index messaging_bulks_template_idx on public.messaging_bulks (template_id);

create table public.messaging_bulk_recipients (
  id bigint generated always as identity primary key,
  bulk_id uuid not null references public.messaging_bulks (id) on delete cascade,
  position integer not null,
  to_number text not null,
  variables jsonb not null default '{}'::jsonb,
  content text,
  content_variables jsonb,
  -- queued -> sending (claimed, slot taken, provider called) -> sent | failed;
  -- opted_out and failed (bad number, missing variable) are settled when the bulk is recorded.
  status text not null check (status in ('queued', 'sending', 'sent', 'failed', 'opted_out')),
  lease integer,
  log_id uuid references public.messaging_logs (id) on delete set null,
  provider_message_id text,
  error text,
  claimed_at timestamptz,
  finished_at timestamptz,
  unique (bulk_id, position)
);
create index messaging_bulk_recipients_queued_idx on public.messaging_bulk_recipients (bulk_id, position)
  where status in ('queued', 'sending');
create index messaging_bulk_recipients_log_idx on public.messaging_bulk_recipients (log_id);

alter table public.messaging_bulks enable row level security;
alter table public.messaging_bulk_recipients enable row level security;
grant select on public.messaging_bulks, public.messaging_bulk_recipients to authenticated;
grant all on public.messaging_bulks, public.messaging_bulk_recipients to service_role;

-- Members of the workspace read its bulks; only the service path writes them.
create policy messaging_bulks_read on public.messaging_bulks for select to authenticated
  using (public.is_workspace_member(workspace_id));
-- Members of the bulk's workspace read its recipients and their outcome; only the service path
-- writes them.
create policy messaging_bulk_recipients_read on public.messaging_bulk_recipients for select to authenticated
  using (exists (select 1 from public.messaging_bulks b
                  where b.id = bulk_id and public.is_workspace_member(b.workspace_id)));

select pgmq.create('messaging_bulk');

-- Records a bulk and its recipients and enqueues it, atomically: a bulk is on the queue exactly
-- when it was recorded. p_bulk: the messaging_bulks columns; p_recipients: [{position,
-- to_number, variables, content, content_variables, status, error}]. Returns the queue msg_id.
create function public.messaging_bulk_enqueue(p_bulk jsonb, p_recipients jsonb) returns bigint
language plpgsql set search_path = '' as $$
declare
  b public.messaging_bulks;
begin
  b := jsonb_populate_record(null::public.messaging_bulks, p_bulk);
  insert into public.messaging_bulks (id, workspace_id, user_id, channel_id, channel_type, template_id,
    message_type, content_sid, media_url, tags, total, status)
  values (coalesce(b.id, gen_random_uuid()), b.workspace_id, b.user_id, b.channel_id, b.channel_type,
    b.template_id, b.message_type, b.content_sid, b.media_url, coalesce(b.tags, '{}'::jsonb),
    jsonb_array_length(p_recipients), 'queued')
  returning * into b;
  insert into public.messaging_bulk_recipients (bulk_id, position, to_number, variables, content,
    content_variables, status, error, finished_at)
  select b.id, r.position, r.to_number, coalesce(r.variables, '{}'::jsonb), r.content, r.content_variables,
         r.status, r.error, case when r.status in ('failed', 'opted_out') then now() end
    from jsonb_to_recordset(p_recipients) as r(position integer, to_number text, variables jsonb,
         content text, content_variables jsonb, status text, error text);
  return (select pgmq.send('messaging_bulk', jsonb_build_object('bulk_id', b.id)));
end
$$;

-- The next bulk to work on, leased for p_vt seconds (its read_ct is the lease), or nothing.
create function public.messaging_bulk_read(p_vt integer)
returns table (msg_id bigint, read_ct integer, bulk_id uuid)
language sql set search_path = '' as $$
  select r.msg_id, r.read_ct, (r.message ->> 'bulk_id')::uuid from pgmq.read('messaging_bulk', p_vt, 1) r
$$;

-- Lets the bulk's message go: visible again after p_delay seconds (0: the next worker's).
create function public.messaging_bulk_release(p_msg_id bigint, p_delay integer) returns void
language sql set search_path = '' as $$
  select from pgmq.set_vt('messaging_bulk', p_msg_id, p_delay)
$$;

-- Takes up to p_max of the bulk's queued recipients, each with its own send slot (the time it
-- may go out: p_now or later, within p_horizon_ms), logged as a `queued` attempt at that time.
-- Returns {state: claimed, claims: [{id, to, content, content_variables, log_id, at}], channel}
-- or {state: wait, retry_at} (the next slot is past the horizon), {state: empty}, {state:
-- quota} (the day's quota is used up: the rest failed) or {state: fenced} (a newer read of the
-- message owns the bulk: this worker stops).
create function public.messaging_bulk_claim(
  p_msg_id bigint, p_lease integer, p_bulk_id uuid, p_now timestamptz, p_max integer, p_horizon_ms integer
) returns jsonb
language plpgsql set search_path = '' as $$
declare
  b public.messaging_bulks;
  ch public.messaging_channels;
  r public.messaging_bulk_recipients;
  spacing interval;
  in_window integer;
  today integer;
  slot timestamptz;
  window_slot timestamptz;
  last_at timestamptz;
  v_log_id uuid;
  claims jsonb := '[]'::jsonb;
begin
  if not exists (select 1 from pgmq.q_messaging_bulk q where q.msg_id = p_msg_id and q.read_ct = p_lease) then
    return jsonb_build_object('state', 'fenced');
  end if;
  select * into b from public.messaging_bulks where id = p_bulk_id;
  select * into ch from public.messaging_channels where id = b.channel_id for update;
  if ch.id is null or not ch.is_active then
    update public.messaging_bulk_recipients
       set status = 'failed', error = 'The channel is no longer active', finished_at = p_now
     where bulk_id = p_bulk_id and status = 'queued';
    return jsonb_build_object('state', 'quota');
  end if;
  update public.messaging_bulks set status = 'sending' where id = p_bulk_id and status = 'queued';
  spacing := make_interval(secs => 60.0 / ch.max_send_rate);
  for r in
    select * from public.messaging_bulk_recipients
     where bulk_id = p_bulk_id and status = 'queued' order by position limit p_max
       for update skip locked
  loop
    select count(*) into today from public.messaging_logs
     where channel_id = ch.id
       and created_at >= (date_trunc('day', p_now at time zone 'UTC') at time zone 'UTC');
    if today >= ch.daily_quota then
      update public.messaging_bulk_recipients
         set status = 'failed', finished_at = p_now,
             error = format('Daily quota of %s messages reached for %s channel %s', ch.daily_quota,
                            ch.channel_type, ch.sender_id)
       where bulk_id = p_bulk_id and status = 'queued';
      exit;
    end if;
    -- The slot: spaced after the channel's latest attempt, and outside a full 60 s window.
    select max(created_at) into last_at from public.messaging_logs where channel_id = ch.id;
    slot := greatest(p_now, coalesce(last_at + spacing, p_now));
    select l.created_at + interval '60 seconds' into window_slot from public.messaging_logs l
     where l.channel_id = ch.id and l.created_at > slot - interval '60 seconds'
     order by l.created_at desc offset ch.max_send_rate - 1 limit 1;
    slot := greatest(slot, window_slot);
    if slot > p_now + make_interval(secs => p_horizon_ms / 1000.0) then
      if jsonb_array_length(claims) = 0 then
        return jsonb_build_object('state', 'wait', 'retry_at', slot);
      end if;
      exit;
    end if;
    insert into public.messaging_logs (workspace_id, user_id, channel_type, template_id, channel_id,
      from_number, to_number, content, message_type, bulk_id, status, variables, tags, created_at)
    values (b.workspace_id, b.user_id, b.channel_type, b.template_id, ch.id, ch.sender_id, r.to_number,
      r.content, b.message_type, b.id, 'queued', r.variables, b.tags, slot)
    returning id into v_log_id;
    update public.messaging_bulk_recipients
       set status = 'sending', lease = p_lease, log_id = v_log_id, claimed_at = slot
     where id = r.id;
    claims := claims || jsonb_build_object('id', r.id, 'to', r.to_number, 'content', r.content,
      'content_variables', r.content_variables, 'log_id', v_log_id, 'at', slot);
  end loop;
  if jsonb_array_length(claims) = 0 then
    return jsonb_build_object('state', case when exists (
      select 1 from public.messaging_bulk_recipients where bulk_id = p_bulk_id and status = 'queued'
    ) then 'wait' else 'empty' end, 'retry_at', p_now);
  end if;
  return jsonb_build_object('state', 'claimed', 'claims', claims,
    'channel', jsonb_build_object('channel_type', ch.channel_type, 'sender_id', ch.sender_id,
      'config', ch.config));
end
$$;

-- A claimed recipient's outcome, with its log row, in one transaction. p_outcome.status:
--   sent: {sid, segment_count, cost, currency, at}; failed: {error_code, error_message, at};
--   queued: the provider never got it (a dead worker's claim): the attempt's log row goes and
--   the recipient waits for a new claim.
-- Only a recipient still `sending` changes (a late answer after another outcome is ignored).
create function public.messaging_bulk_record(p_recipient_id bigint, p_outcome jsonb) returns boolean
language plpgsql set search_path = '' as $$
declare
  r public.messaging_bulk_recipients;
  v_at timestamptz := (p_outcome ->> 'at')::timestamptz;
begin
  select * into r from public.messaging_bulk_recipients where id = p_recipient_id and status = 'sending'
    for update;
  if r.id is null then
    return false;
  end if;
  case p_outcome ->> 'status'
    when 'sent' then
      update public.messaging_logs
         set status = 'sent', provider_message_id = p_outcome ->> 'sid', sent_at = v_at,
             segment_count = (p_outcome ->> 'segment_count')::integer,
             cost = (p_outcome ->> 'cost')::numeric, currency = p_outcome ->> 'currency'
       where id = r.log_id and status = 'queued';
      update public.messaging_bulk_recipients
         set status = 'sent', provider_message_id = p_outcome ->> 'sid', finished_at = v_at, error = null
       where id = r.id;
    when 'failed' then
      update public.messaging_logs
         set status = 'failed', failed_at = v_at, error_code = p_outcome ->> 'error_code',
             error_message = p_outcome ->> 'error_message'
       where id = r.log_id;
      update public.messaging_bulk_recipients
         set status = 'failed', error = p_outcome ->> 'error_message', finished_at = v_at
       where id = r.id;
    when 'queued' then
      update public.messaging_bulk_recipients
         set status = 'queued', lease = null, log_id = null, claimed_at = null
       where id = r.id;
      delete from public.messaging_logs where id = r.log_id and status = 'queued';
    else
      raise exception 'messaging_bulk_record: unknown status %', p_outcome ->> 'status' using errcode = '22023';
  end case;
  return true;
end
$$;

-- Ends the bulk when none of its recipients is queued or sending: archives its message and marks
-- it completed. False (nothing changed) while some are left.
create function public.messaging_bulk_finish(p_msg_id bigint, p_bulk_id uuid, p_now timestamptz)
returns boolean
language plpgsql set search_path = '' as $$
begin
  if exists (select 1 from public.messaging_bulk_recipients
              where bulk_id = p_bulk_id and status in ('queued', 'sending')) then
    return false;
  end if;
  perform pgmq.archive('messaging_bulk', p_msg_id);
  update public.messaging_bulks set status = 'completed', completed_at = p_now
   where id = p_bulk_id and status <> 'completed';
  return true;
end
$$;

-- A bulk's counts by recipient status, as the caller may see them (RLS applies: invoker).
create function public.messaging_bulk_progress(p_bulk_id uuid)
returns table (status text, n integer)
language sql stable set search_path = '' as $$
  select r.status, count(*)::integer from public.messaging_bulk_recipients r
   where r.bulk_id = p_bulk_id group by r.status
$$;

revoke execute on function public.messaging_bulk_enqueue(jsonb, jsonb), public.messaging_bulk_read(integer),
  public.messaging_bulk_release(bigint, integer),
  public.messaging_bulk_claim(bigint, integer, uuid, timestamptz, integer, integer),
  public.messaging_bulk_record(bigint, jsonb), public.messaging_bulk_finish(bigint, uuid, timestamptz),
  public.messaging_bulk_progress(uuid)
  from public, anon, authenticated;
grant execute on function public.messaging_bulk_enqueue(jsonb, jsonb), public.messaging_bulk_read(integer),
  public.messaging_bulk_release(bigint, integer),
  public.messaging_bulk_claim(bigint, integer, uuid, timestamptz, integer, integer),
  public.messaging_bulk_record(bigint, jsonb), public.messaging_bulk_finish(bigint, uuid, timestamptz)
  to service_role;
-- Members read their bulks' progress (RLS limits it to their workspaces).
grant execute on function public.messaging_bulk_progress(uuid) to authenticated, service_role;

-- The worker every minute, through pg_net with the service-role key from Vault (the same pattern
-- as 20260213000200). Its answer comes after at most ~50 s of sending, within the timeout.
select cron.schedule('messaging-bulk-worker', '* * * * *',
  $$ select public.call_edge_function('/functions/v1/messaging-bulk-worker', jsonb_build_object('time', now()), 120000) $$);
