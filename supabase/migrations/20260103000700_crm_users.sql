-- Platform user records for crm-users-api (admin only): a profile, its role and its credit
-- balance in one row; the edge function adds the email from the auth admin API.

-- security_invoker: RLS of user_profiles and user_credits applies, so only platform admins see
-- other people's rows (everyone else sees at most their own).
create view public.crm_user_records with (security_invoker = true) as
select
  p.id,
  p.user_id,
  p.role_id,
  p.subscription_tier,
  p.status,
  coalesce(c.balance, 0) as credits,
  p.created_at,
  r.name as role_name,
  r.level as role_level
from public.user_profiles p
left join public.roles r on r.id = p.role_id
left join public.user_credits c on c.user_id = p.user_id;

grant select on public.crm_user_records to authenticated, service_role;

-- AI usage totals of one user, over all their ai_usage_logs rows:
-- {totals {total_calls, total_input_tokens, total_output_tokens, total_raw_cost_usd,
--  total_billed_cost_usd, total_credits_debited}, byModel [{model, calls, cost, credits}]}
-- where byModel's cost is the billed cost in USD (what the user was charged for), most used
-- model first. SECURITY INVOKER: the ai_usage_logs policy limits it to platform admins (and the
-- user themselves).
create function public.user_ai_usage_summary(p_user_id uuid) returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'totals', (
      select jsonb_build_object(
        'total_calls', count(*),
        'total_input_tokens', coalesce(sum(l.input_tokens), 0),
        'total_output_tokens', coalesce(sum(l.output_tokens), 0),
        'total_raw_cost_usd', coalesce(sum(l.raw_cost_usd), 0),
        'total_billed_cost_usd', coalesce(sum(l.billed_cost_usd), 0),
        'total_credits_debited', coalesce(sum(l.credits_debited), 0)
      ) from public.ai_usage_logs l where l.user_id = p_user_id
    ),
    'byModel', coalesce((
      select jsonb_agg(jsonb_build_object('model', m.model, 'calls', m.calls, 'cost', m.cost, 'credits', m.credits)
                       order by m.calls desc, m.model)
        from (
          select coalesce(l.model, 'unknown') as model, count(*) as calls,
                 sum(l.billed_cost_usd) as cost, sum(l.credits_debited) as credits
            from public.ai_usage_logs l where l.user_id = p_user_id
           group by coalesce(l.model, 'unknown')
        ) m
    ), '[]'::jsonb)
  )
$$;
revoke execute on function public.user_ai_usage_summary(uuid) from public, anon;
grant execute on function public.user_ai_usage_summary(uuid) to authenticated, service_role;

-- DELETE /crm-users-api/{userId}: removes the user's profile and credit balance in one
-- transaction and keeps the auth account (and the credit ledger and usage history, which are
-- records of what happened). Platform admins (or the service role) only, and never on themselves, so an admin cannot
-- lock themselves out. Returns {profile_deleted, credits_deleted}.
create function public.crm_delete_user_records(p_user_id uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_profiles integer;
  v_credits integer;
begin
  if coalesce(auth.role(), '') <> 'service_role' and not public.has_platform_role(array['admin']) then
    raise exception 'only platform admins delete user records' using errcode = '42501';
  end if;
  if p_user_id = auth.uid() then
    raise exception 'admins cannot delete their own records' using errcode = 'PT409';
  end if;
  delete from public.user_credits where user_id = p_user_id;
  get diagnostics v_credits = row_count;
  delete from public.user_profiles where user_id = p_user_id;
  get diagnostics v_profiles = row_count;
  return jsonb_build_object('profile_deleted', v_profiles > 0, 'credits_deleted', v_credits > 0);
end $$;
revoke execute on function public.crm_delete_user_records(uuid) from public, anon;
grant execute on function public.crm_delete_user_records(uuid) to authenticated, service_role;
