-- crm-users-api ai-usage: totals and byModel net of refunds. A refunded charge (a failed gateway
-- action, an agent turn that never reached the user) moved the balance back, so it no longer
-- counts as debited: credits are credits_debited minus the refund of the usage log's debit
-- (credit_transactions.refund_of). Refunds are shown separately (total_credits_refunded,
-- refunded_calls; per model `refunded`), and calls still count every call made.
create or replace function public.user_ai_usage_summary(p_user_id uuid) returns jsonb
language sql stable set search_path = '' as $$
  with usage as (
    select l.*, coalesce(r.amount, 0) as refunded
      from public.ai_usage_logs l
      left join public.credit_transactions r on r.refund_of = l.credit_transaction_id and r.kind = 'refund'
     where l.user_id = p_user_id
  )
  select jsonb_build_object(
    'totals', (
      select jsonb_build_object(
        'total_calls', count(*),
        'total_input_tokens', coalesce(sum(u.input_tokens), 0),
        'total_output_tokens', coalesce(sum(u.output_tokens), 0),
        'total_raw_cost_usd', coalesce(sum(u.raw_cost_usd), 0),
        'total_billed_cost_usd', coalesce(sum(u.billed_cost_usd), 0),
        'total_credits_debited', coalesce(sum(u.credits_debited - u.refunded), 0),
        'total_credits_refunded', coalesce(sum(u.refunded), 0),
        'refunded_calls', count(*) filter (where u.refunded > 0)
      ) from usage u
    ),
    'byModel', coalesce((
      select jsonb_agg(jsonb_build_object('model', m.model, 'calls', m.calls, 'cost', m.cost, 'credits', m.credits,
                                          'refunded', m.refunded)
                       order by m.calls desc, m.model)
        from (
          select coalesce(u.model, 'unknown') as model, count(*) as calls,
                 sum(u.billed_cost_usd) as cost, sum(u.credits_debited - u.refunded) as credits,
                 sum(u.refunded) as refunded
            from usage u
           group by coalesce(u.model, 'unknown')
        ) m
    ), '[]'::jsonb)
  )
$$;
