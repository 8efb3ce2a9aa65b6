-- A scheduled call that cannot be made fails where it is looked for (issue 34). Every scheduled
-- job calls public.call_edge_function (20260207000100), which returned null and sent nothing
-- while the Vault secrets `project_url` and `service_role_key` were missing: the job's run said
-- `succeeded` in cron.job_run_details and nothing ran, on a fresh local start as on a hosted
-- project where the secrets were never created.
--
-- Now it raises, so pg_cron records the run as `failed` with the reason in return_message, as
-- it does for any job whose command raises (the local platform also logs it). Calls that are
-- made and then fail (refused connection, timeout, non-2xx) are recorded by pg_net in
-- net._http_response (status_code / error_msg), as before. The local platform writes both
-- secrets at every start (stack/cron/secrets.ts); hosted projects create them once
-- (docs/scheduled-work.md).
create or replace function public.call_edge_function(
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
    raise exception 'call_edge_function: % not sent: the Vault secret % is missing', p_path,
      case when v_url is null then 'project_url' else 'service_role_key' end
      using errcode = '55000',
        hint = 'create the secrets project_url and service_role_key (docs/scheduled-work.md)';
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

-- Unchanged: it sends the service-role key, so only the scheduler (the job owner, postgres) and
-- the service role call it.
revoke execute on function public.call_edge_function(text, jsonb, integer) from public, anon, authenticated;
grant execute on function public.call_edge_function(text, jsonb, integer) to service_role;
