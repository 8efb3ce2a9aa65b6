-- Demo data for local runs, applied on a fresh database only (deno task start --reset).
-- Sign in with admin@example.com / demo-password (platform admin, owner of "Demo Catalog") or
-- member@example.com / demo-password (a member of it). Passwords are bcrypt hashes made by
-- pgcrypto, which GoTrue (and this platform's /auth/v1) verify like any other. Like every account,
-- each also owns a personal workspace (made by the new-user trigger, docs/workspaces.md), so calls
-- with an optional workspace name Demo Catalog (00000000-0000-4000-8000-0000000000a1).

with users (id, email, role) as (
  values
    ('00000000-0000-4000-8000-000000000001'::uuid, 'admin@example.com', 'admin'),
    ('00000000-0000-4000-8000-000000000002'::uuid, 'member@example.com', 'user')
), inserted as (
  insert into auth.users (id, aud, role, email, encrypted_password, email_confirmed_at,
                          raw_app_meta_data, raw_user_meta_data, instance_id)
  select id, 'authenticated', 'authenticated', email,
         extensions.crypt('demo-password', extensions.gen_salt('bf', 10)), now(),
         '{"provider":"email","providers":["email"]}'::jsonb, '{}'::jsonb,
         '00000000-0000-0000-0000-000000000000'::uuid
    from users
  returning id, email
)
insert into auth.identities (provider_id, user_id, identity_data, provider)
select id::text, id, jsonb_build_object('sub', id::text, 'email', email, 'email_verified', true), 'email'
  from inserted;

-- The new-user triggers made profiles with the `user` role; promote the demo admin.
update public.user_profiles set role_id = (select id from public.roles where name = 'admin')
 where user_id = '00000000-0000-4000-8000-000000000001';

select public.grant_credits('00000000-0000-4000-8000-000000000001', 500, 'grant', 'demo-seed');
select public.grant_credits('00000000-0000-4000-8000-000000000002', 100, 'grant', 'demo-seed');

insert into public.workspaces (id, name, slug, owner_id)
values ('00000000-0000-4000-8000-0000000000a1', 'Demo Catalog', 'demo-catalog',
        '00000000-0000-4000-8000-000000000001');
insert into public.workspace_members (workspace_id, user_id, role)
values ('00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-000000000002', 'member');

insert into public.products (workspace_id, name, description, sku, category, metadata) values
  ('00000000-0000-4000-8000-0000000000a1', 'Porcelain Tile 60x60 Matt Grey',
   'Rectified porcelain floor tile, matt finish, R10 slip rating', 'MZ-6060-GR', 'tiles',
   '{"manufacturer": "Marazzi", "size": "60x60", "finish": "matt", "color": "grey"}'),
  ('00000000-0000-4000-8000-0000000000a1', 'Porcelain Tile 60x60 Matte Gray',
   'Rectified porcelain tile for floors, matte finish, R10', 'MZ-6060-GY', 'tiles',
   '{"manufacturer": "Marazzi", "size": "60x60", "finish": "matt", "color": "gray"}'),
  ('00000000-0000-4000-8000-0000000000a1', 'Flexible Tile Adhesive C2TE 25 kg',
   'Cementitious adhesive for porcelain and natural stone', 'MP-KER-25', 'adhesives',
   '{"manufacturer": "Mapei", "weight": "25 kg"}'),
  ('00000000-0000-4000-8000-0000000000a1', 'Oak Engineered Plank Natural',
   'Engineered oak flooring, brushed and oiled, 14 mm', 'KH-OAK-14', 'wood',
   '{"brand": "Kahrs", "thickness": "14 mm"}');
