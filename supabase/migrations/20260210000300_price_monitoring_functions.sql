-- Price monitoring's multi-row writes, each one transaction (service role only; the
-- price-monitoring function authorises the caller first):
-- - price_monitoring_claim_due: claims the products whose scheduled check is due and moves their
--   next_check_at on by their frequency in the same statement, so overlapping scheduler calls
--   never check a product twice for one slot;
-- - price_monitoring_record: writes a finished check: price_history rows with the change against
--   each source's previous price, the sources' last_* columns, a notification to every member of
--   the product's workspace per price change, the job's counts, the product's last_checked_at;
-- - price_monitoring_status: get_status's monitoring, latestPrices, recentJobs and sources, with
--   prices as exact decimal strings.

create function public.price_monitoring_interval(p_frequency text) returns interval
language sql immutable set search_path = '' as $$
  select case p_frequency
    when 'hourly' then interval '1 hour'
    when 'daily' then interval '1 day'
    when 'weekly' then interval '7 days'
  end
$$;

create function public.price_monitoring_claim_due(p_limit integer default 10)
returns table (monitoring_id uuid, workspace_id uuid, product_id uuid, started_by uuid, frequency text)
language sql security definer set search_path = '' as $$
  with due as (
    select m.id from public.price_monitoring_products m
     where m.enabled and m.frequency <> 'on_demand'
       and m.next_check_at is not null and m.next_check_at <= now()
     order by m.next_check_at
     limit greatest(p_limit, 0)
     for update skip locked
  )
  update public.price_monitoring_products m
     set next_check_at = now() + public.price_monitoring_interval(m.frequency)
    from due
   where m.id = due.id
  returning m.id, m.workspace_id, m.product_id, m.started_by, m.frequency
$$;

-- p_results: [{source_id, status: ok|no_price|failed, price (decimal text, for ok), currency, error}]
create function public.price_monitoring_record(
  p_job uuid, p_results jsonb, p_credits_consumed numeric, p_credits_refunded numeric
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  j public.price_monitoring_jobs;
  s public.competitor_sources;
  r jsonb;
  v_price numeric;
  v_currency text;
  v_prev numeric;
  v_prev_currency text;
  v_has_prev boolean;
  v_change numeric;
  v_pct numeric;
  v_product text;
  n_found integer := 0;
  n_changes integer := 0;
  v_changes jsonb := '[]'::jsonb;
begin
  select * into j from public.price_monitoring_jobs where id = p_job for update;
  if not found then
    raise exception 'price monitoring job % not found', p_job using errcode = 'PT404';
  end if;
  if j.status <> 'running' then
    raise exception 'price monitoring job % is already %', p_job, j.status using errcode = '55000';
  end if;
  select name into v_product from public.products where id = j.product_id;

  for r in select value from jsonb_array_elements(coalesce(p_results, '[]'::jsonb)) loop
    select * into s from public.competitor_sources
     where id = (r->>'source_id')::uuid and product_id = j.product_id;
    if not found then
      continue; -- removed while the check ran
    end if;
    if r->>'status' = 'ok' then
      v_price := (r->>'price')::numeric(14, 4);
      v_currency := nullif(r->>'currency', '');
      select h.price, h.currency, true into v_prev, v_prev_currency, v_has_prev
        from public.price_history h
       where h.source_id = s.id
       order by h.checked_at desc, h.id desc
       limit 1;
      v_has_prev := coalesce(v_has_prev, false);
      v_change := null;
      v_pct := null;
      if v_has_prev and v_prev_currency is not distinct from v_currency then
        v_change := v_price - v_prev;
        v_pct := case when v_prev = 0 then null else round(v_change / v_prev * 100, 2) end;
      end if;
      insert into public.price_history (workspace_id, product_id, source_id, job_id, competitor_name, url,
        price, currency, previous_price, price_change, change_percent)
      values (j.workspace_id, j.product_id, s.id, j.id, s.competitor_name, s.url,
        v_price, v_currency, case when v_has_prev then v_prev end, v_change, v_pct);
      update public.competitor_sources
         set last_checked_at = now(), last_price = v_price, last_currency = v_currency,
             last_status = 'ok', last_error = null
       where id = s.id;
      n_found := n_found + 1;
      if v_change is not null and v_change <> 0 then
        n_changes := n_changes + 1;
        v_changes := v_changes || jsonb_build_object(
          'source_id', s.id, 'competitor_name', s.competitor_name,
          'previous_price', trim_scale(v_prev)::text, 'price', trim_scale(v_price)::text,
          'currency', v_currency, 'change_percent', v_pct);
        insert into public.notifications (user_id, workspace_id, type, title, message, data)
        select m.user_id, j.workspace_id, 'price_change',
               format('Price change: %s at %s', v_product, s.competitor_name),
               format('%s changed the price of %s from %s to %s%s%s', s.competitor_name, v_product,
                      trim_scale(v_prev), trim_scale(v_price), coalesce(' ' || v_currency, ''),
                      case when v_pct is null then ''
                           else format(' (%s%s%%)', case when v_pct > 0 then '+' else '' end, v_pct) end),
               jsonb_build_object('product_id', j.product_id, 'source_id', s.id, 'job_id', j.id,
                 'competitor_name', s.competitor_name, 'url', s.url,
                 'previous_price', trim_scale(v_prev)::text, 'price', trim_scale(v_price)::text,
                 'currency', v_currency, 'price_change', trim_scale(v_change)::text, 'change_percent', v_pct)
          from public.workspace_members m
         where m.workspace_id = j.workspace_id;
      end if;
      v_has_prev := null;
    else
      update public.competitor_sources
         set last_checked_at = now(), last_status = case when r->>'status' = 'no_price' then 'no_price' else 'failed' end,
             last_error = left(r->>'error', 1000)
       where id = s.id;
    end if;
  end loop;

  update public.price_monitoring_jobs
     set status = 'completed', completed_at = now(),
         sources_checked = jsonb_array_length(coalesce(p_results, '[]'::jsonb)),
         prices_found = n_found, price_changes = n_changes,
         credits_consumed = p_credits_consumed, credits_refunded = p_credits_refunded,
         results = coalesce(p_results, '[]'::jsonb)
   where id = j.id;
  update public.price_monitoring_products set last_checked_at = now() where product_id = j.product_id;
  return jsonb_build_object(
    'sources_checked', jsonb_array_length(coalesce(p_results, '[]'::jsonb)),
    'prices_found', n_found, 'price_changes', n_changes, 'changes', v_changes);
end $$;

create function public.price_monitoring_status(p_product uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object(
    'monitoring', (
      select jsonb_build_object('id', m.id, 'productId', m.product_id, 'frequency', m.frequency,
        'enabled', m.enabled, 'lastCheckedAt', m.last_checked_at, 'nextCheckAt', m.next_check_at,
        'startedBy', m.started_by, 'createdAt', m.created_at, 'updatedAt', m.updated_at)
        from public.price_monitoring_products m where m.product_id = p_product),
    'latestPrices', coalesce((
      select jsonb_agg(x.v order by x.checked_at desc)
        from (
          select distinct on (h.source_id) h.checked_at, jsonb_build_object(
            'sourceId', h.source_id, 'competitorName', h.competitor_name, 'url', h.url,
            'price', trim_scale(h.price)::text, 'currency', h.currency,
            'previousPrice', trim_scale(h.previous_price)::text,
            'priceChange', trim_scale(h.price_change)::text, 'changePercent', h.change_percent,
            'checkedAt', h.checked_at, 'jobId', h.job_id) as v
            from public.price_history h
            join public.competitor_sources s on s.id = h.source_id
           where h.product_id = p_product
           order by h.source_id, h.checked_at desc, h.id desc
        ) x), '[]'::jsonb),
    'recentJobs', coalesce((
      select jsonb_agg(x.v order by x.started_at desc)
        from (
          select j.started_at, jsonb_build_object('id', j.id, 'trigger', j.trigger, 'status', j.status,
            'sourcesChecked', j.sources_checked, 'pricesFound', j.prices_found,
            'priceChanges', j.price_changes, 'creditsConsumed', trim_scale(j.credits_consumed)::text,
            'creditsRefunded', trim_scale(j.credits_refunded)::text, 'errorMessage', j.error_message,
            'startedAt', j.started_at, 'completedAt', j.completed_at) as v
            from public.price_monitoring_jobs j
           where j.product_id = p_product
           order by j.started_at desc
           limit 10
        ) x), '[]'::jsonb),
    'sources', coalesce((
      select jsonb_agg(jsonb_build_object('id', s.id, 'competitorName', s.competitor_name, 'url', s.url,
          'priceSelector', s.price_selector, 'skuHint', s.sku_hint, 'nameHint', s.name_hint,
          'defaultCurrency', s.default_currency, 'isActive', s.is_active,
          'lastCheckedAt', s.last_checked_at, 'lastPrice', trim_scale(s.last_price)::text,
          'lastCurrency', s.last_currency, 'lastStatus', s.last_status, 'lastError', s.last_error)
          order by s.created_at, s.id)
        from public.competitor_sources s where s.product_id = p_product), '[]'::jsonb)
  )
$$;

revoke execute on function public.price_monitoring_interval(text), public.price_monitoring_claim_due(integer),
  public.price_monitoring_record(uuid, jsonb, numeric, numeric), public.price_monitoring_status(uuid)
  from public, anon, authenticated;
grant execute on function public.price_monitoring_interval(text), public.price_monitoring_claim_due(integer),
  public.price_monitoring_record(uuid, jsonb, numeric, numeric), public.price_monitoring_status(uuid)
  to service_role;
