-- Fixed-window request counters for public (unauthenticated) endpoints, e.g. ai-rerank per client
-- IP. One row per (scope, key, window start); rate_limit_hit counts a request and says whether it
-- fits, atomically (one upsert), so concurrent instances of a function share one budget. Old
-- windows are deleted by the same call (at most one sweep per window per scope).

create table public.rate_limit_windows (
  scope text not null,
  key text not null,
  window_start timestamptz not null,
  hits integer not null default 0,
  primary key (scope, key, window_start)
);

alter table public.rate_limit_windows enable row level security;
grant all on public.rate_limit_windows to service_role;
-- No policy for anon or authenticated: the counters are system data, read and written only by
-- rate_limit_hit (service role).

-- Counts one request of `p_key` in `p_scope` and returns {allowed, hits, limit, retry_after}
-- (retry_after: seconds until the current window ends, for a 429's Retry-After).
create function public.rate_limit_hit(p_scope text, p_key text, p_limit integer, p_window_seconds integer)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  w timestamptz;
  n integer;
begin
  if p_limit < 1 or p_window_seconds < 1 then
    raise exception 'limit and window must be positive' using errcode = '22023';
  end if;
  w := to_timestamp(floor(extract(epoch from now()) / p_window_seconds) * p_window_seconds);
  insert into public.rate_limit_windows as r (scope, key, window_start, hits)
  values (p_scope, left(p_key, 200), w, 1)
  on conflict (scope, key, window_start) do update set hits = r.hits + 1
  returning r.hits into n;
  if n = 1 then
    -- First hit of a key in this window: drop this scope's finished windows.
    delete from public.rate_limit_windows
     where scope = p_scope and window_start < w - make_interval(secs => p_window_seconds);
  end if;
  return jsonb_build_object(
    'allowed', n <= p_limit,
    'hits', n,
    'limit', p_limit,
    'retry_after', greatest(1, ceil(extract(epoch from (w + make_interval(secs => p_window_seconds) - now()))))::int
  );
end $$;

revoke execute on function public.rate_limit_hit(text, text, integer, integer) from public, anon, authenticated;
grant execute on function public.rate_limit_hit(text, text, integer, integer) to service_role;
