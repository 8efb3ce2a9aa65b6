-- Quote totals, computed once, in SQL, so that the API, /rest/v1 readers and the PDF print the
-- same figures.
--
-- Rounding rule (the only one): every line is rounded to 2 decimals, half-up, then the rounded
-- lines are summed. Postgres round(numeric, 2) rounds half away from zero, which is half-up for
-- the non-negative prices and quantities the table constraints allow. Rounding per line (not the
-- sum) makes the printed lines add up to the printed total exactly.
--   list_total = round(quantity x coalesce(unit_price, discounted_price), 2)
--   line_total = round(quantity x coalesce(discounted_price, unit_price), 2)
--   subtotal = sum(list_total); total = sum(line_total); discount_total = subtotal - total
-- Unpriced lines (no price at all) count in unpriced_item_count and add nothing.

-- security_invoker: the views read the tables as the caller, so RLS still decides the rows.
create view public.quote_item_totals with (security_invoker = true) as
select
  i.id,
  i.quote_id,
  i.workspace_id,
  i.position,
  i.product_id,
  coalesce(nullif(trim(i.description), ''), p.name) as label,
  i.quantity,
  i.unit,
  i.unit_price,
  i.discounted_price,
  coalesce(i.discounted_price, i.unit_price) as effective_unit_price,
  round(i.quantity * coalesce(i.unit_price, i.discounted_price), 2) as list_total,
  round(i.quantity * coalesce(i.discounted_price, i.unit_price), 2) as line_total,
  i.price_source,
  i.notes,
  i.created_at
from public.quote_items i
left join public.products p on p.id = i.product_id;

create view public.quote_totals with (security_invoker = true) as
select
  q.id as quote_id,
  q.workspace_id,
  q.currency,
  count(t.id)::integer as item_count,
  (count(t.id) filter (where t.line_total is null))::integer as unpriced_item_count,
  coalesce(sum(t.list_total), 0)::numeric(16, 2) as subtotal,
  (coalesce(sum(t.list_total), 0) - coalesce(sum(t.line_total), 0))::numeric(16, 2) as discount_total,
  coalesce(sum(t.line_total), 0)::numeric(16, 2) as total
from public.quotes q
left join public.quote_item_totals t on t.quote_id = q.id
group by q.id, q.workspace_id, q.currency;

grant select on public.quote_item_totals, public.quote_totals to authenticated, service_role;

-- Everything a quote PDF shows, as one JSON document: {quote, items, totals, fingerprint, pdf}.
-- fingerprint is the md5 of the printed content only (edits that change nothing printed keep
-- it), so generate-quote-pdf can tell whether a stored PDF still shows the quote.
-- SECURITY INVOKER: null when the caller cannot see the quote.
create function public.quote_document(p_quote_id uuid) returns jsonb
language sql stable set search_path = '' as $$
  with q as (
    select * from public.quotes where id = p_quote_id
  ),
  content as (
    select jsonb_build_object(
      'quote', jsonb_build_object(
        'id', q.id,
        'workspace_id', q.workspace_id,
        'quote_number', q.quote_number,
        'title', q.title,
        'customer_name', q.customer_name,
        'customer_email', q.customer_email,
        'customer_company', q.customer_company,
        'customer_address', q.customer_address,
        'currency', q.currency,
        'status', q.status,
        'valid_until', q.valid_until,
        'notes', q.notes,
        'issue_date', (q.created_at at time zone 'UTC')::date
      ),
      'items', coalesce((
        select jsonb_agg(jsonb_build_object(
          'id', t.id,
          'position', t.position,
          'product_id', t.product_id,
          'label', t.label,
          'quantity', t.quantity,
          'unit', t.unit,
          'unit_price', t.unit_price,
          'discounted_price', t.discounted_price,
          'effective_unit_price', t.effective_unit_price,
          'list_total', t.list_total,
          'line_total', t.line_total,
          'price_source', t.price_source,
          'notes', t.notes
        ) order by t.position, t.created_at, t.id)
        from public.quote_item_totals t where t.quote_id = q.id
      ), '[]'::jsonb),
      'totals', (
        select jsonb_build_object(
          'item_count', s.item_count,
          'unpriced_item_count', s.unpriced_item_count,
          'subtotal', s.subtotal,
          'discount_total', s.discount_total,
          'total', s.total,
          'currency', s.currency
        ) from public.quote_totals s where s.quote_id = q.id
      )
    ) as doc,
    q.pdf_storage_path, q.pdf_fingerprint, q.pdf_generated_at
    from q
  )
  select c.doc || jsonb_build_object(
    -- Only what the PDF prints: not the status, ids, price sources or internal line notes.
    'fingerprint', md5(jsonb_build_array(
      (c.doc->'quote') - array['id', 'workspace_id', 'status'],
      coalesce((
        select jsonb_agg(i.item - array['id', 'product_id', 'price_source', 'notes'] order by i.n)
          from jsonb_array_elements(c.doc->'items') with ordinality as i(item, n)
      ), '[]'::jsonb),
      c.doc->'totals'
    )::text),
    'pdf', jsonb_build_object(
      'storage_path', c.pdf_storage_path,
      'fingerprint', c.pdf_fingerprint,
      'generated_at', c.pdf_generated_at
    )
  )
  from content c
$$;

revoke execute on function public.quote_document(uuid) from public, anon;
grant execute on function public.quote_document(uuid) to authenticated, service_role;
