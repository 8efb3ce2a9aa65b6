-- Who may look platform accounts up by e-mail (crm-contacts-api GET /potential-matches: a
-- contact's e-mail paired with the account's id, platform role, tier and status).
--
-- The factory role sees only the CRM rows it created; letting it pair any e-mail it types into a
-- contact with an account would make it an account directory. Admins and managers (who manage
-- every contact) and the service role may; factory users learn nothing about accounts their own
-- contacts do not already link.
create function public.crm_may_look_up_accounts() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(auth.role() = 'service_role', false) or public.has_platform_role(array['admin', 'manager'])
$$;
revoke execute on function public.crm_may_look_up_accounts() from public;
grant execute on function public.crm_may_look_up_accounts() to authenticated, service_role;
