-- Platform events for the flow engine (spec "Flow events"): when something happens that flows
-- may listen to, and only when an enabled flow of the workspace listens to that event type, the
-- database queues a call to flow-engine `trigger-event` through pg_net (sent after the commit;
-- a rolled-back insert sends nothing), with the service-role key kept in Vault
-- (`project_url`, `service_role_key`). Without those secrets nothing is sent.
--
-- Events emitted:
--   product.created       products insert            {product: {id, name, sku, category, ...}}
--   quote.submitted       quote_requests insert      {quote_request: {id, quote_id, user_id, status, ...}}
--   quote.status_changed  quotes status update       {quote: {id, quote_number, status, ...}, previous_status}

create function public.flow_emit_event(p_workspace_id uuid, p_event_type text, p_data jsonb)
returns void
language plpgsql security definer set search_path = ''
as $$
declare
  v_url text;
  v_key text;
begin
  if not exists (
    select 1 from public.flows
     where workspace_id = p_workspace_id and enabled and trigger_type = 'event' and event_type = p_event_type
  ) then
    return;
  end if;
  select decrypted_secret into v_url from vault.decrypted_secrets where name = 'project_url';
  select decrypted_secret into v_key from vault.decrypted_secrets where name = 'service_role_key';
  if v_url is null or v_key is null then
    raise warning 'flow event % not sent: vault secrets project_url and service_role_key are not set', p_event_type;
    return;
  end if;
  perform net.http_post(
    url := v_url || '/functions/v1/flow-engine',
    headers := jsonb_build_object('Content-Type', 'application/json', 'apikey', v_key,
      'Authorization', 'Bearer ' || v_key),
    body := jsonb_build_object('action', 'trigger-event', 'event_type', p_event_type,
      'workspace_id', p_workspace_id, 'event_data', p_data),
    timeout_milliseconds := 30000
  );
end;
$$;
revoke execute on function public.flow_emit_event(uuid, text, jsonb) from public, anon, authenticated;

create function public.flow_event_product_created() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform public.flow_emit_event(new.workspace_id, 'product.created',
    jsonb_build_object('product', to_jsonb(new) - 'embedding' - 'search_vector'));
  return null;
end;
$$;
revoke execute on function public.flow_event_product_created() from public, anon, authenticated;
create trigger flow_event_product_created after insert on public.products
  for each row execute function public.flow_event_product_created();

create function public.flow_event_quote_submitted() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform public.flow_emit_event(new.workspace_id, 'quote.submitted',
    jsonb_build_object('quote_request', to_jsonb(new)));
  return null;
end;
$$;
revoke execute on function public.flow_event_quote_submitted() from public, anon, authenticated;
create trigger flow_event_quote_submitted after insert on public.quote_requests
  for each row execute function public.flow_event_quote_submitted();

create function public.flow_event_quote_status_changed() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform public.flow_emit_event(new.workspace_id, 'quote.status_changed',
    jsonb_build_object('quote', jsonb_build_object('id', new.id, 'quote_number', new.quote_number,
      'status', new.status, 'customer_email', new.customer_email, 'customer_name', new.customer_name),
      'previous_status', old.status));
  return null;
end;
$$;
revoke execute on function public.flow_event_quote_status_changed() from public, anon, authenticated;
create trigger flow_event_quote_status_changed after update of status on public.quotes
  for each row when (new.status is distinct from old.status)
  execute function public.flow_event_quote_status_changed();
