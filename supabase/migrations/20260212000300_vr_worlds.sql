-- Generated 3D worlds (spec "3D world generation"): one row per generate-vr-world call, from the
-- debit to the World Labs operation's end. Status: generating (credits debited, operation
-- started) -> completed (asset URLs stored) | failed (error set, credits refunded once:
-- credits_refunded). Written only by the function (service role) after it authorised the caller.
--
-- Who may do what: a user reads and deletes their own worlds; members of the workspace a world was
-- made for (optional workspace_id) read it too.

create table public.vr_worlds (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  workspace_id uuid references public.workspaces (id) on delete set null,
  status text not null default 'generating' check (status in ('generating', 'completed', 'failed')),
  prompt text not null check (length(prompt) between 1 and 2000),
  source_image_url text not null check (length(source_image_url) <= 2048),
  room_type text check (room_type is null or length(room_type) <= 100),
  style text check (style is null or length(style) <= 100),
  model text not null check (model in ('world-0.1-mini', 'world-0.1-plus')),
  -- The provider's ids: its long-running operation and the world it produced.
  operation_id text,
  world_id text,
  world_marble_url text,
  splat_url_100k text,
  splat_url_500k text,
  splat_url_full text,
  collider_glb_url text,
  panorama_url text,
  thumbnail_url text,
  caption text,
  credits_charged numeric(14, 4) not null default 0,
  -- The ledger's debit (credit_transactions.id) and whether it was given back.
  charge_transaction_id uuid,
  credits_refunded boolean not null default false,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz
);
create index vr_worlds_user_idx on public.vr_worlds (user_id, created_at desc);
create index vr_worlds_workspace_idx on public.vr_worlds (workspace_id, created_at desc) where workspace_id is not null;

create trigger vr_worlds_touch before update on public.vr_worlds
  for each row execute function public.touch_updated_at();

alter table public.vr_worlds enable row level security;

grant select, delete on public.vr_worlds to authenticated;
grant all on public.vr_worlds to service_role;

-- A user reads their own worlds; members read the worlds made for their workspace.
create policy vr_worlds_read on public.vr_worlds for select to authenticated
  using (user_id = (select auth.uid()) or (workspace_id is not null and public.is_workspace_member(workspace_id)));
-- A user deletes their own worlds (the credits stay spent).
create policy vr_worlds_delete on public.vr_worlds for delete to authenticated
  using (user_id = (select auth.uid()));
