-- One way for a pg_cron job to call an edge function: public.call_edge_function(path, body,
-- timeout_ms) POSTs through pg_net to the project's URL with the service-role key, both read from
-- Vault at each call (secrets `project_url` and `service_role_key`, created per project with
-- vault.create_secret, never in a migration). Until both secrets exist it sends nothing and
-- returns null. Every scheduled job of the project calls it; flow-scheduler-cron, which repeated
-- the request inline, is re-scheduled under its name (cron.schedule replaces a job of the same
-- name) with the same schedule, target and body.
create function public.call_edge_function(
  p_path text,
  p_body jsonb default '{}'::jsonb,
  p_timeout_ms integer default 30000
) returns bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_url text;
  v_key text;
begin
  if p_path is null or left(p_path, 14) <> '/functions/v1/' then
    raise exception 'call_edge_function: the path must start with /functions/v1/ (got %)', p_path
      using errcode = '22023';
  end if;
  select decrypted_secret into v_url from vault.decrypted_secrets where name = 'project_url';
  select decrypted_secret into v_key from vault.decrypted_secrets where name = 'service_role_key';
  if v_url is null or v_key is null then
    return null;
  end if;
  return net.http_post(
    url := v_url || p_path,
    headers := jsonb_build_object(
      'Content-Type', 'application/json',
      'apikey', v_key,
      'Authorization', 'Bearer ' || v_key
    ),
    body := coalesce(p_body, '{}'::jsonb),
    timeout_milliseconds := p_timeout_ms
  );
end;
$$;

-- It sends the service-role key: only the scheduler (the job owner) and the service role call it.
revoke execute on function public.call_edge_function(text, jsonb, integer) from public, anon, authenticated;
grant execute on function public.call_edge_function(text, jsonb, integer) to service_role;

select cron.schedule('flow-scheduler-cron', '* * * * *',
  $$ select public.call_edge_function('/functions/v1/flow-scheduler-cron', jsonb_build_object('time', now())) $$);
