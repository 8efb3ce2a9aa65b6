-- Batch PDF processing (pdf-batch-process): a batch of up to 100 uploaded documents (the
-- caller's upload jobs) run through the pipeline with at most max_concurrent at a time. Items
-- are claimed one at a time by an atomic function that counts the items in flight under a lock
-- on the batch row, so the limit holds whatever number of workers ask; the largest number ever
-- in flight is recorded. Cancelling marks queued items cancelled; running ones finish.

create table public.pdf_batches (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  workspace_id uuid references public.workspaces (id) on delete cascade,
  status text not null default 'queued'
    check (status in ('queued', 'processing', 'completed', 'failed', 'cancelled')),
  total_documents integer not null check (total_documents between 1 and 100),
  processed_documents integer not null default 0,
  failed_documents integer not null default 0,
  max_concurrent integer not null check (max_concurrent between 1 and 10),
  max_in_flight integer not null default 0,
  options jsonb not null default '{}'::jsonb,
  webhook_url text,
  webhook_status text,
  estimated_completion_time timestamptz,
  created_at timestamptz not null default now(),
  completed_at timestamptz
);

create table public.pdf_batch_items (
  id uuid primary key default gen_random_uuid(),
  batch_id uuid not null references public.pdf_batches (id) on delete cascade,
  position integer not null,
  document_id uuid not null,
  extraction_type text not null check (extraction_type in ('markdown', 'tables', 'images', 'all')),
  priority text not null check (priority in ('low', 'normal', 'high')),
  status text not null default 'queued'
    check (status in ('queued', 'processing', 'completed', 'failed', 'cancelled')),
  error text,
  started_at timestamptz,
  completed_at timestamptz,
  unique (batch_id, document_id)
);
create index pdf_batch_items_batch_idx on public.pdf_batch_items (batch_id, status);

alter table public.pdf_batches enable row level security;
alter table public.pdf_batch_items enable row level security;
grant select on public.pdf_batches, public.pdf_batch_items to authenticated;
grant all on public.pdf_batches, public.pdf_batch_items to service_role;

-- A user reads the batches they started (written by the function with the service role).
create policy pdf_batches_read on public.pdf_batches for select to authenticated
  using (user_id = (select auth.uid()));
-- A user reads the items of batches they can read.
create policy pdf_batch_items_read on public.pdf_batch_items for select to authenticated
  using (exists (select 1 from public.pdf_batches b where b.id = batch_id));

-- The next queued item (high, normal, low; then in order), marked processing, or nothing when
-- max_concurrent items are in flight or the batch is cancelled.
create function public.pdf_batch_claim_next(p_batch uuid) returns setof public.pdf_batch_items
language plpgsql security definer set search_path = '' as $$
declare
  b public.pdf_batches;
  in_flight integer;
  item public.pdf_batch_items;
begin
  select * into b from public.pdf_batches where id = p_batch for update;
  if not found or b.status in ('cancelled', 'completed', 'failed') then return; end if;
  select count(*) into in_flight from public.pdf_batch_items where batch_id = p_batch and status = 'processing';
  if in_flight >= b.max_concurrent then return; end if;
  update public.pdf_batch_items set status = 'processing', started_at = now()
   where id = (
     select id from public.pdf_batch_items
      where batch_id = p_batch and status = 'queued'
      order by case priority when 'high' then 0 when 'normal' then 1 else 2 end, position
      limit 1)
  returning * into item;
  if item.id is null then return; end if;
  update public.pdf_batches
     set status = 'processing', max_in_flight = greatest(max_in_flight, in_flight + 1)
   where id = p_batch;
  return next item;
end $$;

-- Records an item's outcome and settles the batch once nothing is queued or running. Returns
-- the batch's status afterwards.
create function public.pdf_batch_finish_item(p_item uuid, p_ok boolean, p_error text) returns text
language plpgsql security definer set search_path = '' as $$
declare
  bid uuid;
  left_over integer;
  st text;
begin
  update public.pdf_batch_items
     set status = case when p_ok then 'completed' else 'failed' end, error = p_error, completed_at = now()
   where id = p_item and status = 'processing'
  returning batch_id into bid;
  if bid is null then return null; end if;
  perform 1 from public.pdf_batches where id = bid for update;
  update public.pdf_batches
     set processed_documents = processed_documents + case when p_ok then 1 else 0 end,
         failed_documents = failed_documents + case when p_ok then 0 else 1 end
   where id = bid;
  select count(*) into left_over from public.pdf_batch_items
   where batch_id = bid and status in ('queued', 'processing');
  if left_over = 0 then
    update public.pdf_batches
       set status = case
             when status = 'cancelled' then 'cancelled'
             when processed_documents = 0 then 'failed'
             else 'completed' end,
           completed_at = now()
     where id = bid;
  end if;
  select status into st from public.pdf_batches where id = bid;
  return st;
end $$;

-- Cancels a batch: queued items are cancelled; items in flight finish and are recorded.
create function public.pdf_batch_cancel(p_batch uuid) returns text
language plpgsql security definer set search_path = '' as $$
declare
  st text;
begin
  update public.pdf_batches set status = 'cancelled', completed_at = coalesce(completed_at, now())
   where id = p_batch and status in ('queued', 'processing')
  returning status into st;
  if st is null then
    select status into st from public.pdf_batches where id = p_batch;
    return st;
  end if;
  update public.pdf_batch_items set status = 'cancelled', completed_at = now()
   where batch_id = p_batch and status = 'queued';
  return st;
end $$;

revoke execute on function public.pdf_batch_claim_next(uuid), public.pdf_batch_finish_item(uuid, boolean, text),
  public.pdf_batch_cancel(uuid) from public, anon, authenticated;
grant execute on function public.pdf_batch_claim_next(uuid), public.pdf_batch_finish_item(uuid, boolean, text),
  public.pdf_batch_cancel(uuid) to service_role;
